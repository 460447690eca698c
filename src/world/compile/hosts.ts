/** Hosts a world package may not take: the model providers' API hosts, which the mock model answers. */
import { PROVIDERS } from '../../providers/registry';

/** The provider whose API host `baseURL` names (the mock model serves those hosts). */
export function providerAt(baseURL: string): string | undefined {
  const host = URL.canParse(baseURL) ? new URL(baseURL).host : undefined;
  const names: Record<string, string> = { openai: 'OpenAI', anthropic: 'Anthropic', gemini: 'Gemini' };
  for (const provider of PROVIDERS)
    if (provider.defaultBaseURLs.some((url) => new URL(url).host === host)) return names[provider.id];
  return undefined;
}
