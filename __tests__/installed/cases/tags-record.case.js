/**
 * Tags: the file's docblock tag and a title tag. `understudy record --tag cassette-v3`
 * re-records only the tagged test; the other is skipped, with the reason, and keeps its fixtures.
 * TAGS_UPSTREAM is the stand-in provider's base URL; TAGS_NOTE is what the tagged test says.
 * @understudy-tags agent
 */
const { describe, expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy } = require('jest-understudy');

const ask = (text) =>
  understudy.run(async () => {
    const client = new OpenAI({ baseURL: `${process.env.TAGS_UPSTREAM}/openai/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: text }],
    });
    return res.choices[0].message.content;
  });

describe('notes', () => {
  it('answers a note @cassette-v3', async () => {
    const run = await ask(process.env.TAGS_NOTE || 'Thanks!');
    expect(run.output).toMatch(/^You said: /);
  });

  it('answers a greeting', async () => {
    const run = await ask('Hello there');
    expect(run.output).toMatch(/^You said: /);
  });
});
