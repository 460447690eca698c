/**
 * The parts of Playwright's Page / BrowserContext, Route and Request that browser routing uses,
 * structurally: `playwright` and `playwright-core` objects both fit, and neither is a dependency.
 */
export interface PlaywrightRequest {
  url(): string;
  method(): string;
  headers(): Record<string, string>;
  allHeaders?(): Promise<Record<string, string>>;
  postDataBuffer(): Buffer | null;
}

export interface FulfillOptions {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

export interface PlaywrightRoute {
  request(): PlaywrightRequest;
  fulfill(options: FulfillOptions): Promise<void>;
  /** Playwright 1.23 and later; `continue` before. */
  fallback?(): Promise<void>;
  continue(): Promise<void>;
  abort(errorCode?: string): Promise<void>;
}

type Handler = (route: PlaywrightRoute) => unknown;

/** A Page or a BrowserContext. */
export interface Routable {
  route(url: string, handler: Handler): Promise<void>;
  unroute?(url: string, handler?: Handler): Promise<void>;
}
