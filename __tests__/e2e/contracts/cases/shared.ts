/** What the case files share: the parallel two-tool exchange, and catching the SDK's error. */
import type { Fixture } from 'jest-understudy';

/** The model calls two tools at once, then answers once it has results. */
export const parallel: Fixture[] = [
  {
    match: { userMessage: 'Paris', hasToolResult: false },
    response: {
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_time', arguments: { tz: 'Europe/Paris' } },
      ],
    },
  },
  { match: { userMessage: 'Paris', hasToolResult: true }, response: { content: 'Sunny at 9.' } },
];

/** The error a request rejects with, when it is of `type` (any other outcome throws). */
export async function rejection<E>(
  request: Promise<unknown>,
  type: abstract new (...args: any[]) => E,
): Promise<E> {
  try {
    await request;
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error('the request succeeded');
}
