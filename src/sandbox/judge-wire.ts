/**
 * A judge's request on its provider's wire, and the text of its answer: the package's own
 * call, made as the provider's API takes it (no SDK), so the file's model pipeline serves it
 * like any call (forwarded in record and live modes, answered from the cassette in replay).
 */
import type { JudgeSetting } from '../options';

export const JUDGE_PROVIDERS = ['openai', 'anthropic', 'gemini'] as const;

/** What the judge is asked: the system prompt holds rubric and text, so a changed one is a stale recording, not a new request. */
export function judgePrompt(rubric: string, text: string): { system: string; user: string } {
  return {
    system:
      'You are a strict judge. Decide whether the text satisfies the rubric, judging it against the rubric only. ' +
      'Answer with one JSON object and nothing else: {"verdict": "pass" or "fail", "reasons": ["one sentence per reason"]}.\n\n' +
      `<rubric>\n${rubric}\n</rubric>\n\n<text>\n${text}\n</text>`,
    user: 'Give your verdict as JSON.',
  };
}

export interface JudgeWireRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const DEFAULT_BASE: Record<JudgeSetting['provider'], string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

const trimmed = (url: string) => url.replace(/\/+$/, '');

/** The request for `judge`, with the key of its provider from `env` (replay's placeholder is enough there). */
export function judgeRequest(
  judge: JudgeSetting,
  prompt: { system: string; user: string },
  env: NodeJS.ProcessEnv,
): JudgeWireRequest {
  const base = trimmed(judge.baseURL ?? DEFAULT_BASE[judge.provider]);
  const json = { 'content-type': 'application/json' };
  switch (judge.provider) {
    case 'openai':
      return {
        url: `${base}/chat/completions`,
        headers: { ...json, authorization: `Bearer ${env.OPENAI_API_KEY ?? ''}` },
        body: JSON.stringify({
          model: judge.model,
          temperature: 0,
          messages: [
            { role: 'system', content: prompt.system },
            { role: 'user', content: prompt.user },
          ],
        }),
      };
    case 'anthropic':
      return {
        url: `${base}/v1/messages`,
        headers: { ...json, 'x-api-key': env.ANTHROPIC_API_KEY ?? '', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: judge.model,
          max_tokens: 1024,
          temperature: 0,
          system: prompt.system,
          messages: [{ role: 'user', content: prompt.user }],
        }),
      };
    case 'gemini':
      return {
        url: `${base}/v1beta/models/${encodeURIComponent(judge.model)}:generateContent`,
        headers: { ...json, 'x-goog-api-key': env.GEMINI_API_KEY ?? env.GOOGLE_API_KEY ?? '' },
        body: JSON.stringify({
          systemInstruction: { parts: [{ text: prompt.system }] },
          contents: [{ role: 'user', parts: [{ text: prompt.user }] }],
          generationConfig: { temperature: 0 },
        }),
      };
  }
}

type Json = Record<string, any>;

/** The text of a judge's answer (a 200 body of its provider), or undefined when it holds none. */
export function answerText(provider: JudgeSetting['provider'], body: Json): string | undefined {
  const texts = (parts: unknown): string | undefined =>
    Array.isArray(parts)
      ? parts
          .filter((p) => typeof p?.text === 'string' && p.thought !== true)
          .map((p) => p.text)
          .join('')
      : undefined;
  switch (provider) {
    case 'openai': {
      const content = body?.choices?.[0]?.message?.content;
      return typeof content === 'string' ? content : undefined;
    }
    case 'anthropic':
      return texts(
        Array.isArray(body?.content) ? body.content.filter((b: Json) => b?.type === 'text') : undefined,
      );
    case 'gemini':
      return texts(body?.candidates?.[0]?.content?.parts);
  }
}

export interface Verdict {
  pass: boolean;
  reasons: string[];
}

/** The verdict in a judge's answer: a JSON object with `verdict` "pass" or "fail" (fenced or not), else undefined. */
export function verdictOf(answer: string): Verdict | undefined {
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start === -1 || end < start) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { verdict, reasons } = parsed as { verdict?: unknown; reasons?: unknown };
  const word = typeof verdict === 'string' ? verdict.trim().toLowerCase() : undefined;
  if (word !== 'pass' && word !== 'fail') return undefined;
  const list = Array.isArray(reasons) ? reasons : reasons === undefined ? [] : [reasons];
  return { pass: word === 'pass', reasons: list.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))) };
}
