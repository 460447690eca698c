/**
 * The offered-tools rule, run directly: what each protocol's request lets its model call, and
 * the fixture replies it refuses.
 */
import { describe, expect, it } from '@jest/globals';
import { checkOfferedTools, offeredToolsOf } from '../../../../src/contracts/offered-tools';
import type { NeutralReply } from '../../../../src/conversation';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2, cachedInputTokens: 0, reasoningTokens: 0 };
const calling = (...names: string[]): NeutralReply => ({
  content: null,
  toolCalls: names.map((name, i) => ({ id: `call_${i}`, name, arguments: '{}' })),
  finishReason: 'tool_calls',
  usage,
  model: 'm',
});
const searching: NeutralReply = { ...calling(), content: 'Sunny.', webSearches: ['paris weather'] };
const problem = (protocol: string, body: Record<string, unknown>, reply: NeutralReply) =>
  checkOfferedTools(protocol, body, reply, 'fixture #0')?.problem;

describe('what each request offers', () => {
  it('Chat: function and custom tools, legacy functions; tool_choice none and allowed_tools', () => {
    const body = {
      tools: [
        { type: 'function', function: { name: 'get_weather' } },
        { type: 'custom', custom: { name: 'apply_patch' } },
      ],
      functions: [{ name: 'legacy' }],
    };
    expect(offeredToolsOf('openai.chat', body)).toEqual({
      client: ['get_weather', 'apply_patch', 'legacy'],
      hosted: [],
    });
    expect(offeredToolsOf('openai.chat', { ...body, tool_choice: 'none' })?.only).toEqual({
      names: [],
      why: 'tool_choice is "none"',
    });
    const allowed = {
      type: 'allowed_tools',
      allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'get_weather' } }] },
    };
    expect(offeredToolsOf('openai.chat', { ...body, tool_choice: allowed })?.only?.names).toEqual([
      'get_weather',
    ]);
  });

  it('Responses: functions and custom tools; the built-in tools apart', () => {
    const offered = offeredToolsOf('openai.responses', {
      tools: [
        { type: 'function', name: 'get_weather' },
        { type: 'web_search' },
        { type: 'file_search', vector_store_ids: ['vs_1'] },
        { type: 'code_interpreter', container: { type: 'auto' } },
      ],
      tool_choice: {
        type: 'allowed_tools',
        mode: 'auto',
        tools: [{ type: 'function', name: 'get_weather' }],
      },
    });
    expect(offered?.client).toEqual(['get_weather']);
    expect(offered?.hosted.map((h) => [h.type, h.webSearch])).toEqual([
      ['web_search', true],
      ['file_search', false],
      ['code_interpreter', false],
    ]);
    expect(offered?.only?.names).toEqual(['get_weather']);
  });

  it('Anthropic: custom tools and the client tools the API names (bash, the text editor…); server tools apart', () => {
    const offered = offeredToolsOf('anthropic.messages', {
      tools: [
        { name: 'get_weather', input_schema: { type: 'object' } },
        { type: 'bash_20250124', name: 'bash' },
        { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
        { type: 'web_search_20250305', name: 'web_search' },
        { type: 'code_execution_20250825', name: 'code_execution' },
      ],
      mcp_servers: [{ type: 'url', url: 'https://mcp.example.test', name: 'docs' }],
    });
    expect(offered?.client).toEqual(['get_weather', 'bash', 'str_replace_based_edit_tool']);
    expect(offered?.hosted.map((h) => h.type)).toEqual([
      'web_search_20250305',
      'code_execution_20250825',
      'mcp server docs',
    ]);
  });

  it('Gemini: function declarations (either case style), the built-in tools, the calling mode', () => {
    const body = {
      tools: [
        { functionDeclarations: [{ name: 'get_weather' }] },
        { function_declarations: [{ name: 'get_time' }] },
        { googleSearch: {} },
        { codeExecution: {} },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } },
    };
    const offered = offeredToolsOf('gemini.generateContent', body);
    expect(offered?.client).toEqual(['get_weather', 'get_time']);
    expect(offered?.hosted.map((h) => [h.type, h.webSearch])).toEqual([
      ['googleSearch', true],
      ['codeExecution', false],
    ]);
    expect(offered?.only?.names).toEqual(['get_time']);
    expect(
      offeredToolsOf('gemini.generateContent', {
        ...body,
        toolConfig: { function_calling_config: { mode: 'none' } },
      })?.only,
    ).toEqual({ names: [], why: 'toolConfig.functionCallingConfig.mode is NONE' });
    expect(offeredToolsOf('gemini.generateContent', { tools: [{ computerUse: {} }] })?.open).toBe(true);
  });

  it('Bedrock: toolSpec names', () => {
    expect(
      offeredToolsOf('bedrock.converse', { toolConfig: { tools: [{ toolSpec: { name: 'get_weather' } }] } })
        ?.client,
    ).toEqual(['get_weather']);
  });
});

describe('the replies it refuses', () => {
  const chat = { tools: [{ type: 'function', function: { name: 'get_weather' } }] };

  it('a call to a tool not offered, with the offered tools and the closest name', () => {
    expect(problem('openai.chat', chat, calling('get_wether'))).toBe(
      'the fixture calls "get_wether", but the request offers only "get_weather": a model cannot call a tool it was not given. Did you mean "get_weather"?',
    );
    expect(problem('openai.chat', {}, calling('get_weather'))).toBe(
      'the fixture calls "get_weather", but the request offers no tools: a model cannot call a tool it was not given.',
    );
    expect(problem('openai.chat', chat, calling('get_weather'))).toBeUndefined();
  });

  it('names that differ only in case, as the Agents SDK names its handoffs', () => {
    const body = { tools: [{ type: 'function', name: 'transfer_to_Customer_Support_Agent' }] };
    expect(problem('openai.responses', body, calling('transfer_to_customer_support_agent'))).toContain(
      'Did you mean "transfer_to_Customer_Support_Agent"? (tool names are case-sensitive)',
    );
  });

  it('the second of two calls, and the place of the call in the fixture', () => {
    const v = checkOfferedTools(
      'openai.chat',
      chat,
      calling('get_weather', 'delete_everything'),
      'fixture #3',
    );
    expect(v).toMatchObject({ rule: 'offered-tools', at: 'fixture #3 response.toolCalls[1]' });
    expect(v?.error).toBeUndefined();
  });

  it('a call the request forbids (tool_choice none, a tool outside the allowed list)', () => {
    expect(problem('openai.chat', { ...chat, tool_choice: 'none' }, calling('get_weather'))).toBe(
      'the fixture calls "get_weather", but tool_choice is "none": the model may call no tool in this request',
    );
    const anthropic = {
      tools: [
        { name: 'get_weather', input_schema: {} },
        { name: 'get_time', input_schema: {} },
      ],
      tool_choice: { type: 'none' },
    };
    expect(problem('anthropic.messages', anthropic, calling('get_time'))).toContain(
      'but tool_choice is { type: "none" }',
    );
    const gemini = {
      tools: [{ functionDeclarations: [{ name: 'get_weather' }, { name: 'get_time' }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } },
    };
    expect(problem('gemini.generateContent', gemini, calling('get_weather'))).toBe(
      'the fixture calls "get_weather", but toolConfig.functionCallingConfig.allowedFunctionNames: the model may call only "get_time" in this request',
    );
    expect(problem('gemini.generateContent', gemini, calling('get_time'))).toBeUndefined();
  });

  it('a built-in tool called as a function, and a web search the request does not offer', () => {
    const anthropic = { tools: [{ type: 'web_search_20250305', name: 'web_search' }] };
    expect(problem('anthropic.messages', anthropic, calling('web_search'))).toContain(
      'which the request offers only as the built-in tool web_search_20250305, not as a function the client runs',
    );
    expect(problem('anthropic.messages', anthropic, searching)).toBeUndefined();
    expect(problem('anthropic.messages', { tools: [] }, searching)).toBe(
      'the fixture says the model searched the web ("paris weather"), but the request offers no web search tool (a `web_search_20250305` server tool): the model searches only when the request lets it',
    );
    expect(problem('gemini.generateContent', { tools: [{ googleSearch: {} }] }, searching)).toBeUndefined();
    expect(
      problem('openai.responses', { tools: [{ type: 'web_search_preview' }] }, searching),
    ).toBeUndefined();
    // Chat replies have no place for searches: nothing is sent, nothing to refuse.
    expect(problem('openai.chat', {}, searching)).toBeUndefined();
  });

  it('every hosted tool of each API, by its name or its versioned type', () => {
    const hosted: Array<[string, Record<string, unknown>, string]> = [
      ['openai.responses', { tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] }, 'file_search'],
      [
        'openai.responses',
        { tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] },
        'code_interpreter',
      ],
      ['openai.responses', { tools: [{ type: 'web_search_2025_08_26' }] }, 'web_search'],
      ['openai.responses', { tools: [{ type: 'web_search_preview_2025_03_11' }] }, 'web_search'],
      [
        'anthropic.messages',
        { tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] },
        'code_execution',
      ],
      ['anthropic.messages', { tools: [{ type: 'web_fetch_20250910', name: 'web_fetch' }] }, 'web_fetch'],
      ['gemini.generateContent', { tools: [{ googleSearch: {} }] }, 'google_search'],
      ['gemini.generateContent', { tools: [{ codeExecution: {} }] }, 'code_execution'],
    ];
    for (const [protocol, body, name] of hosted)
      expect(problem(protocol, body, calling(name))).toContain('not as a function the client runs');
    // A search the request offers under a versioned type is a search.
    expect(
      problem('openai.responses', { tools: [{ type: 'web_search_2025_08_26' }] }, searching),
    ).toBeUndefined();
  });

  it('any name when Gemini computer use is offered (its actions are predefined functions)', () => {
    expect(
      problem('gemini.generateContent', { tools: [{ computerUse: {} }] }, calling('click_at')),
    ).toBeUndefined();
  });
});
