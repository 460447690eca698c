// A client in another process that reads the served port's answer as bytes, as they arrive.
//   node raw-client.cjs <url> <json body> [hang-up]
// prints one JSON line: { status, headers, chunks, complete, error }. `complete`: the response
// ended cleanly (its last chunk came); `error`: how the connection failed, if it did.
// `hang-up`: the client goes away after the first chunk of the body.
const http = require('node:http');

const [url, body, mode] = process.argv.slice(2);
const result = { status: 0, headers: {}, chunks: [], complete: false, error: null };
const done = () => {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
};
const req = http.request(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer understudy-placeholder-key' },
});
req.on('response', (res) => {
  result.status = res.statusCode;
  result.headers = res.headers;
  res.setEncoding('utf8');
  res.on('data', (chunk) => {
    result.chunks.push(chunk);
    if (mode === 'hang-up') {
      req.destroy();
      done();
    }
  });
  res.on('end', () => {
    result.complete = res.complete;
    done();
  });
  res.on('error', (error) => {
    result.error = error.code ?? error.message;
    done();
  });
});
req.on('error', (error) => {
  result.error = error.code ?? error.message;
  done();
});
req.end(body);
