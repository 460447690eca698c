/** Reads what routing needs from `fetch(input, init)` without building a Request on the fast path. */

export function urlOf(input: unknown): string | undefined {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.href;
  if (input && typeof (input as Request).url === 'string') return (input as Request).url;
  return undefined;
}

export function methodOf(input: unknown, init: RequestInit | undefined): string {
  return (init?.method ?? (input as Request | undefined)?.method ?? 'GET').toUpperCase();
}

export function signalOf(input: unknown, init: RequestInit | undefined): AbortSignal | undefined {
  return init?.signal ?? (input as Request | undefined)?.signal ?? undefined;
}

export async function bodyTextOf(input: unknown, init: RequestInit | undefined): Promise<string> {
  const body = init?.body;
  if (typeof body === 'string') return body;
  if (body !== undefined && body !== null) return new Response(body).text();
  if (input && typeof (input as Request).text === 'function') return (input as Request).text();
  return '';
}

/** A header of `fetch(input, init)`, without building a Request. */
export function headerOf(input: unknown, init: RequestInit | undefined, name: string): string | null {
  const headers = init?.headers ?? (input as Request | undefined)?.headers;
  if (!headers) return null;
  const lower = name.toLowerCase();
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  if (Array.isArray(headers)) {
    for (const [k, v] of headers) if (k.toLowerCase() === lower) return v;
    return null;
  }
  for (const [k, v] of Object.entries(headers as Record<string, string>))
    if (k.toLowerCase() === lower) return v;
  return null;
}

/** Visits each header of `fetch(input, init)` (as `Headers.forEach` does), without building a Request. */
export function eachHeaderOf(
  input: unknown,
  init: RequestInit | undefined,
  visit: (value: string, name: string) => void,
): void {
  const headers = init?.headers ?? (input as Request | undefined)?.headers;
  if (!headers) return;
  if (typeof (headers as Headers).forEach === 'function' && !Array.isArray(headers))
    (headers as Headers).forEach(visit);
  else if (Array.isArray(headers)) for (const [k, v] of headers) visit(String(v), k);
  else for (const [k, v] of Object.entries(headers as Record<string, string>)) visit(String(v), k);
}
