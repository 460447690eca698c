/**
 * The parts of Playwright's Page / BrowserContext, Route, WebSocketRoute and Request that browser
 * routing uses, structurally: `playwright` and `playwright-core` objects both fit, and neither is a
 * dependency.
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

/** A page's WebSocket, held before it connects (Playwright 1.48 and later). */
export interface PlaywrightWebSocketRoute {
  url(): string;
  /** Connects the page's socket to the real server: it passes. */
  connectToServer(): unknown;
  close(options?: { code?: number; reason?: string }): Promise<void>;
  /** Without `connectToServer`, the route is the server: the page's frames, and its answers. */
  onMessage?(handler: (message: string | Buffer) => unknown): void;
  send?(message: string | Buffer): void;
  onClose?(handler: (code: number | undefined, reason: string | undefined) => unknown): void;
}

type Handler = (route: PlaywrightRoute) => unknown;
type SocketHandler = (socket: PlaywrightWebSocketRoute) => unknown;

/** A console message a page logged (what the page guards report through). */
export interface PlaywrightConsoleMessage {
  text(): string;
}

/** A web worker or service worker. */
export interface PlaywrightWorker {
  url(): string;
  /** Playwright 1.57 and later, the first version that routes a service worker's requests. */
  waitForEvent?: unknown;
}

/** A Page or a BrowserContext. */
export interface Routable {
  route(url: string, handler: Handler): Promise<unknown>;
  unroute?(url: string, handler?: Handler): Promise<unknown>;
  /** Playwright 1.48 and later. */
  routeWebSocket?(url: (url: URL) => boolean, handler: SocketHandler): Promise<unknown>;
  addInitScript?(script: { content: string }): Promise<unknown>;
  on?(event: string, listener: (value: never) => void): unknown;
  off?(event: string, listener: (value: never) => void): unknown;
  /** A Page's context: routed instead of the page, since it also sees popups and service workers. */
  context?(): Routable;
  /** A BrowserContext's service workers (Chromium). */
  serviceWorkers?(): PlaywrightWorker[];
  /** A BrowserContext's browser (null for a persistent context). */
  browser?(): { browserType?(): { name?(): string } } | null;
  /** A BrowserContext's open pages, with their frames. */
  pages?(): Array<{ frames?(): Array<{ evaluate?(expression: string): Promise<unknown> }> }>;
}
