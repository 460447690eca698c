import { describe, expect, it } from '@jest/globals';
import { answerText, judgePrompt, judgeRequest, verdictOf } from '../../../../src/sandbox/judge-wire';

const prompt = judgePrompt('Must be polite', 'Thanks!');

describe("the judge's wire", () => {
  it('puts rubric and text in the system prompt, so a change is a stale recording and not a new request', () => {
    expect(prompt.system).toContain('<rubric>\nMust be polite\n</rubric>');
    expect(prompt.system).toContain('<text>\nThanks!\n</text>');
    expect(judgePrompt('Other rubric', 'Other text').user).toBe(prompt.user);
  });

  it('asks each provider on its own API, with its key, at a base URL when given', () => {
    const env = { OPENAI_API_KEY: 'sk-o', ANTHROPIC_API_KEY: 'sk-a', GEMINI_API_KEY: 'g' };
    const openai = judgeRequest({ provider: 'openai', model: 'gpt-4o-mini' }, prompt, env);
    expect(openai.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(openai.headers.authorization).toBe('Bearer sk-o');
    expect(JSON.parse(openai.body)).toMatchObject({
      model: 'gpt-4o-mini',
      messages: [{ role: 'system', content: prompt.system }, { role: 'user' }],
    });
    const anthropic = judgeRequest(
      { provider: 'anthropic', model: 'claude-haiku-4-5', baseURL: 'https://proxy.test/' },
      prompt,
      env,
    );
    expect(anthropic.url).toBe('https://proxy.test/v1/messages');
    expect(anthropic.headers['x-api-key']).toBe('sk-a');
    expect(JSON.parse(anthropic.body)).toMatchObject({ system: prompt.system, max_tokens: 1024 });
    const gemini = judgeRequest({ provider: 'gemini', model: 'gemini-2.5-flash' }, prompt, env);
    expect(gemini.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
    );
    expect(gemini.headers['x-goog-api-key']).toBe('g');
  });

  it("reads the answer's text from each provider's body", () => {
    expect(answerText('openai', { choices: [{ message: { content: 'a' } }] })).toBe('a');
    expect(
      answerText('anthropic', {
        content: [
          { type: 'thinking', thinking: 'hm' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('b');
    expect(
      answerText('gemini', {
        candidates: [{ content: { parts: [{ text: 'x', thought: true }, { text: 'c' }] } }],
      }),
    ).toBe('c');
    expect(answerText('openai', { choices: [] })).toBeUndefined();
  });

  it('takes a verdict from a JSON object, fenced or not, and nothing else', () => {
    expect(verdictOf('{"verdict":"pass","reasons":["ok"]}')).toEqual({ pass: true, reasons: ['ok'] });
    expect(verdictOf('```json\n{"verdict": "FAIL", "reasons": "too rude"}\n```')).toEqual({
      pass: false,
      reasons: ['too rude'],
    });
    expect(verdictOf('{"verdict":"fail"}')).toEqual({ pass: false, reasons: [] });
    expect(verdictOf('Looks good to me')).toBeUndefined();
    expect(verdictOf('{"verdict":"maybe"}')).toBeUndefined();
    expect(verdictOf('{"pass": true}')).toBeUndefined();
    expect(verdictOf('{not json}')).toBeUndefined();
  });
});
