/**
 * Every request of one test file, answered: a provider's by the model server, a world package's by
 * the world (through its door: src/world/host/door.ts), anything else by the test's own msw handlers,
 * and what none of them answers is left to the network policy (undefined). Whatever carries the
 * request (fetch, what msw intercepts on node:http, https, XMLHttpRequest…, a browser page
 * Playwright routes, the served port), it comes in here.
 *
 * The HTTP carrier's crash gate is here too: a run that crashed gets no answer, and over HTTP that
 * is a connection that stalls (see `gate`).
 */
import { abortReason } from '../clock';
import { bodyTextOf, eachHeaderOf, headerOf, methodOf, signalOf, urlOf } from '../fetch-input';
import { noteCredentials } from '../files/secrets';
import { ProviderRouter } from '../providers/registry';
import type { FileContext } from '../run/context';
import type { SocketCall, SocketCallAnswer, SocketServices } from '../sockets/protocol';
import { httpFormOf } from '../sockets/registry';
import { loadHandlersModule, UserHandlers } from './http-handlers';
import { type ModelRequest, ModelServer } from './serve-model';
import { SocketCallRequest, socketServices, type TurnSocket } from './serve-turn';
import type { ServedRequest } from './served';
import { asResponse, connectionDropped, undelivered, type WireAnswer } from './wire';

const same = <T>(answer: T): T => answer;

/**
 * A request that came over the served port, as the model server reads it at a provider's `url`.
 * Its signal is the port's, made only if something reads it; a class, so that the getter is not
 * made per request (see `NodeServedRequest` in ./serve-port.ts).
 */
class ServedModelRequest implements ModelRequest {
  constructor(
    readonly url: string,
    private readonly served: ServedRequest,
  ) {}

  get method(): string {
    return this.served.method;
  }

  get signal(): AbortSignal {
    return this.served.signal;
  }

  readBody(): Promise<string> {
    return this.served.readBody();
  }

  header(name: string): string | null {
    return this.served.header(name);
  }

  headers(): Headers {
    return this.served.headers();
  }

  eachHeader(visit: (value: string, name: string) => void): void {
    this.served.eachHeader(visit);
  }
}

/** A socket call's answer: a stream's events go to the socket as they are, anything else as the HTTP response. */
const callAnswerOf = (answer: WireAnswer | undefined): SocketCallAnswer | undefined =>
  answer &&
  (answer.kind === 'stream'
    ? { kind: 'events', events: answer.plan }
    : { kind: 'response', response: asResponse(answer) });

const whole = (response: Response | undefined): WireAnswer | undefined =>
  response && { kind: 'response', response };

export class FileRequests {
  readonly router: ProviderRouter;
  /** The test's own msw handlers (`understudy.http`, `setupServer`, the `handlers` option). */
  readonly http: UserHandlers;
  /** Every request to a provider host. */
  private readonly server: ModelServer;
  private filesDone!: () => void;
  /** What a crashed run's requests get: its body fails when the file's tests are done. */
  private readonly stalled: WireAnswer = {
    kind: 'stalled',
    ended: new Promise<void>((resolve) => {
      this.filesDone = resolve;
    }),
  };

  constructor(readonly context: FileContext) {
    this.router = new ProviderRouter(context.options.providers);
    this.server = new ModelServer(context);
    this.http = new UserHandlers(context);
    if (context.options.handlers !== undefined) {
      const { handlers, where } = loadHandlersModule(context.options.handlers);
      this.http.configure(handlers, where);
    }
  }

  /** Serves `fetch(input, init)` when it targets a mocked host; undefined leaves it to msw. */
  handleFetch(input: unknown, init: unknown): Promise<Response> | undefined {
    return this.gate(urlOf(input), () => this.serveFetch(input, init), asResponse);
  }

  /** A request for `url` (a provider or world host URL; the request's own unless it came over the served port). */
  handleRequest(request: Request, url = request.url): Promise<Response | undefined> | undefined {
    return this.gate(url, () => this.serveRequest(request, url), asResponse);
  }

  /**
   * A request that came over the served port for `url` (a provider's URL): a model call is
   * served from the request as it arrived, and answered in wire form.
   */
  serveModel(request: ServedRequest, url: string): Promise<WireAnswer | undefined> | undefined {
    return this.gate(
      url,
      () => {
        const target = this.router.route(url, request.method);
        // Not a provider this file serves: the same way as any request for that URL.
        if (!target) return request.toRequest().then((r) => this.serveRequest(r, url)?.then(whole));
        return this.server.serve(target, new ServedModelRequest(url, request));
      },
      same,
    );
  }

  /** A world request that came over the served port (its HTTP routes, MCP, a tool by name), through the gate. */
  serveWorld(serve: () => Promise<WireAnswer | undefined>): Promise<WireAnswer | undefined> | undefined {
    return this.gate(undefined, serve, same);
  }

  /** Whether requests to `origin` are this file's to serve: a provider's or a world package's base URL is there. */
  serves(origin: string): boolean {
    return this.router.serves(origin) || this.context.world.serves(origin);
  }

  /** Whether the test has msw handlers of its own. */
  answersHttp(): boolean {
    return !this.http.empty;
  }

  /** The file's model, as a socket protocol serving one connection reaches it. */
  socketServices(socket: TurnSocket): SocketServices {
    return {
      ...socketServices(this.server, socket),
      call: (call) => {
        const url = httpFormOf(socket.url);
        return (this.gate(url, () => this.serveCall(url, call), same) ?? Promise.resolve(undefined)).then(
          callAnswerOf,
        );
      },
    };
  }

  /** A socket turn's HTTP call, served as a request to its URL is, answered in wire form. */
  private serveCall(url: string, call: SocketCall): Promise<WireAnswer | undefined> | undefined {
    const target = this.router.route(url, 'POST');
    if (!target) return undefined;
    const { signal } = call;
    if (signal.aborted) return Promise.reject(abortReason(signal));
    return this.server.serve(target, new SocketCallRequest(url, call)).then((answer) => {
      if (signal.aborted) throw undelivered(answer, abortReason(signal));
      return answer;
    });
  }

  /** The unmatched model calls since the last drain that the test did not accept. */
  drainUnmatched(): string[] {
    return this.server.drainUnmatched();
  }

  /** The file's tests are done: the bodies crashed runs wait on fail now. */
  fileFinished(): void {
    this.filesDone();
  }

  private serveFetch(input: unknown, init: unknown): Promise<Response> | undefined {
    const url = urlOf(input);
    const i = init as RequestInit | undefined;
    const target = url === undefined ? undefined : this.router.route(url, methodOf(input, i));
    // Not a provider: maybe a world HTTP route (undefined leaves it to msw).
    if (!target && url !== undefined) {
      noteCredentials({ forEach: (visit) => eachHeaderOf(input, i, visit) }, url);
      return this.context.world.handleFetch(
        url,
        input,
        i,
        methodOf(input, i),
        () => bodyTextOf(input, i),
        signalOf(input, i),
      );
    }
    if (!target || url === undefined) return undefined;
    const signal = signalOf(input, i);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return this.server
      .serve(target, {
        url,
        method: methodOf(input, i),
        readBody: () => bodyTextOf(input, i),
        header: (name) => headerOf(input, i, name),
        headers: () => new Headers((i?.headers ?? (input as Request | undefined)?.headers) as HeadersInit),
        eachHeader: (visit) => eachHeaderOf(input, i, visit),
        signal,
      })
      .then((answer) => {
        // Given up on while it was served: fetch rejects, as it does before a response arrives.
        if (signal?.aborted) throw undelivered(answer, abortReason(signal));
        if (answer.kind === 'drop') throw connectionDropped();
        return asResponse(answer);
      });
  }

  private serveRequest(request: Request, url: string): Promise<Response | undefined> | undefined {
    const target = this.router.route(url, request.method);
    // A world HTTP route, else the test's own msw handlers, else undefined (the network policy decides).
    if (!target) {
      noteCredentials(request.headers, url);
      return this.context.world.handleRequest(request, url) ?? this.http.handle(request);
    }
    if (request.signal.aborted) return Promise.reject(abortReason(request.signal));
    return this.server
      .serve(target, {
        url,
        method: request.method,
        readBody: () => request.text(),
        header: (name) => request.headers.get(name),
        headers: () => request.headers,
        eachHeader: (visit) => request.headers.forEach(visit),
        signal: request.signal,
      })
      .then((answer) => {
        if (request.signal.aborted) throw undelivered(answer, abortReason(request.signal));
        return asResponse(answer);
      });
  }

  /**
   * The HTTP carrier's crash gate. A run with a crash fault crashes at its n-th model request
   * (which is never answered), and a run that crashed gets no answer (the world's door holds its
   * tool calls: src/run/crash.ts). An HTTP answer that never comes would leave the client's
   * request-timeout timer running, so such a request gets, as soon as its run crashes, headers and
   * a body that does not end until the file's tests are done (then it fails, and the client's
   * timers stop): the same over fetch, what msw intercepts and the served port.
   */
  private gate<R>(
    url: string | undefined,
    serve: () => Promise<R> | undefined,
    stalledAs: (answer: WireAnswer) => R,
  ): Promise<R> | undefined {
    const crash = this.context.currentRun()?.crash;
    if (!crash) return serve();
    const stalled = () => stalledAs(this.stalled);
    if (url !== undefined && this.router.route(url) && crash.modelRequest())
      return Promise.resolve(stalled());
    const served = serve();
    return served && crash.stall(served, stalled);
  }
}
