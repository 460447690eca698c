/**
 * The weather scenario every SDK integration test runs through its own client: the user asks
 * for the weather and the time in Paris, the model asks for both tools at once, the agent runs
 * them and sends the results, the model answers. Each test brings the agent loop its SDK is
 * written with; the question, the tools, the fixtures and what the run must show are here.
 */
import { expect } from '@jest/globals';
import type { Fixture, FixtureUsage, Run } from 'jest-understudy';

export const QUESTION = 'Weather and time in Paris?';
export const ANSWER = 'It is 18°C in Paris at 09:30.';

/** The two tools, with their input as JSON Schema (each test puts them in its SDK's shape). */
export interface WeatherTool {
  name: 'get_weather' | 'get_time';
  description: string;
  parameters: { type: 'object'; properties: Record<string, { type: 'string' }>; required: string[] };
}

export const TOOLS: WeatherTool[] = [
  {
    name: 'get_weather',
    description: 'Weather by city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'get_time',
    description: 'Local time in a time zone',
    parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
  },
];

export const weather = ({ city }: { city: string }) => ({ city, tempC: city === 'Paris' ? 18 : 25 });
export const time = ({ tz }: { tz: string }) => ({ tz, time: '09:30' });

/** Runs a tool the model asked for, by name. */
export function runTool(name: string, args: any): unknown {
  if (name === 'get_weather') return weather(args);
  if (name === 'get_time') return time(args);
  throw new Error(`no tool ${name}`);
}

export interface WeatherFixtureOptions {
  /** The chunk size of the streamed first turn (the tool calls) and of the answer. */
  tools?: number;
  answer?: number;
  /** Text the model says with its tool calls, and the usage the first turn reports. */
  preamble?: string;
  usage?: FixtureUsage;
}

/** Both tools in parallel, then the answer. */
export function weatherFixtures(options: WeatherFixtureOptions = {}): Fixture[] {
  const chunk = options;
  return [
    {
      match: { userMessage: 'Paris', turnIndex: 0, hasToolResult: false },
      response: {
        ...(options.preamble !== undefined && { content: options.preamble }),
        ...(chunk.tools !== undefined && { chunkSize: chunk.tools }),
        ...(options.usage && { usage: options.usage }),
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_time', arguments: { tz: 'Europe/Paris' } },
        ],
      },
    },
    {
      match: { userMessage: 'Paris', turnIndex: 1, hasToolResult: true },
      response: { content: ANSWER, ...(chunk.answer !== undefined && { chunkSize: chunk.answer }) },
    },
  ];
}

/**
 * What the run of a weather agent shows whatever the SDK: it succeeded with the answer, and
 * both tool calls carry their arguments and the results the agent sent back.
 */
export function expectWeatherRun(run: Run): void {
  expect(run.terminalState).toBe('succeeded');
  expect(run.finalMessage).toBe(ANSWER);
  expect(run.toolsCalled).toEqual(['get_weather', 'get_time']);
  expect(run.toolCalls[0]).toMatchObject({
    name: 'get_weather',
    arguments: { city: 'Paris' },
    result: { city: 'Paris', tempC: 18 },
    answered: true,
  });
  expect(run.toolCalls[1]).toMatchObject({
    name: 'get_time',
    arguments: { tz: 'Europe/Paris' },
    result: { tz: 'Europe/Paris', time: '09:30' },
    answered: true,
  });
  expect(run.toolCalls[0].id).not.toBe(run.toolCalls[1].id);
}
