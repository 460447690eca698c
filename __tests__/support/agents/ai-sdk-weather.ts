/** The weather scenario's tools as Vercel AI SDK tools (a module of its own: `ai` is an ES module). */
import { jsonSchema, tool } from 'ai';
import { TOOLS, time, type WeatherTool, weather } from './weather';

export interface AiSdkToolOptions {
  /** Closed input schemas (`additionalProperties: false`), as OpenAI's strict tools want them. */
  closed?: boolean;
  /** Called with each tool call before it runs; it may throw, as a failing tool does. */
  observe?: (name: WeatherTool['name'], input: Record<string, string>) => void;
}

export function aiSdkWeatherTools({ closed = false, observe }: AiSdkToolOptions = {}) {
  const [forWeather, forTime] = TOOLS;
  const schema = <T>(t: WeatherTool) =>
    jsonSchema<T>({ ...t.parameters, ...(closed && { additionalProperties: false }) });
  return {
    get_weather: tool({
      description: forWeather.description,
      inputSchema: schema<{ city: string }>(forWeather),
      execute: async (input) => {
        observe?.('get_weather', input);
        return weather(input);
      },
    }),
    get_time: tool({
      description: forTime.description,
      inputSchema: schema<{ tz: string }>(forTime),
      execute: async (input) => {
        observe?.('get_time', input);
        return time(input);
      },
    }),
  };
}
