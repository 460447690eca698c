// An agent in another process that calls the desk's refund over the served port, the way the
// first argument names (a tool call by name, the HTTP route, or MCP), or asks the served model
// (`model`), and prints what it got as it gets it: `headers <status>` when the answer starts,
// `body <text>` when it is complete.
const [how, base, packageUrl] = process.argv.slice(2);
const post = (url, body, headers = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

async function main() {
  let response;
  if (how === 'tool')
    response = await post(`${base}/tools/desk/refunds.create`, { input: { orderId: 'A-1' } });
  else if (how === 'http') response = await post(`${packageUrl}/refunds`, { orderId: 'A-1' });
  else if (how === 'model')
    response = await post(
      `${base}/openai/v1/chat/completions`,
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      { authorization: 'Bearer understudy-placeholder-key' },
    );
  else {
    const accept = { accept: 'application/json, text/event-stream' };
    const init = await post(
      packageUrl,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'child', version: '1' },
        },
      },
      accept,
    );
    const session = { ...accept, 'mcp-session-id': init.headers.get('mcp-session-id') };
    await init.text();
    response = await post(
      packageUrl,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'refund', arguments: { orderId: 'A-1' } },
      },
      session,
    );
  }
  console.log(`headers ${response.status}`);
  console.log(`body ${await response.text()}`);
}

main().catch((error) => console.log(`failed ${error.message}`));
