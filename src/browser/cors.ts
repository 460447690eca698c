/**
 * CORS for served hosts: a page on its own origin calling a provider or world host directly is a
 * cross-origin request, which the real providers answer (with CORS headers, and a preflight) when
 * asked for browser access. Headers are echoed rather than `*`, so credentialed requests work too.
 * Pure.
 */
import type { FulfillOptions } from './playwright';

/** An OPTIONS request a browser sends before a cross-origin one. */
export function isPreflight(method: string, headers: Record<string, string>): boolean {
  return method === 'OPTIONS' && headers['access-control-request-method'] !== undefined;
}

export function preflightResponse(headers: Record<string, string>): FulfillOptions {
  const allow: Record<string, string> = {
    'access-control-allow-origin': headers.origin ?? '*',
    'access-control-allow-methods': headers['access-control-request-method'] ?? 'GET, POST',
    'access-control-max-age': '600',
    vary: 'origin',
  };
  const asked = headers['access-control-request-headers'];
  if (asked) allow['access-control-allow-headers'] = asked;
  if (headers.origin) allow['access-control-allow-credentials'] = 'true';
  return { status: 204, headers: allow, body: '' };
}

/** Headers a cross-origin page needs to read a response (and its headers, as SDKs read retry-after). */
export function corsHeaders(request: Record<string, string>, exposed: string[]): Record<string, string> {
  const out: Record<string, string> = {
    'access-control-allow-origin': request.origin ?? '*',
    vary: 'origin',
  };
  if (request.origin) out['access-control-allow-credentials'] = 'true';
  if (exposed.length > 0) out['access-control-expose-headers'] = exposed.join(', ');
  return out;
}
