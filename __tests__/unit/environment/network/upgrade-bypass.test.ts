/**
 * Where the socket guard sends a node:http WebSocket upgrade when an interceptor stands in for
 * Node's request functions (as msw 2 does): one to a served host is made by Node's own functions
 * and its socket connected to the socket server; everything else goes on to the interceptor. Hosts
 * here end in .invalid and every socket the guard serves is destroyed, so nothing leaves.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { GUARDED, type GuardContext, Patches } from '../../../../environment/network/guard';
import { LazyInterceptor } from '../../../../environment/network/lazy';
import { blockedMessage } from '../../../../environment/network/policy';
import { guardSockets, requestFunctions } from '../../../../environment/network/sockets';

const UPGRADE = { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13' };
const SERVED = 'api.provider.invalid';

const context: GuardContext = {
  decide: (target) =>
    target.host === SERVED ? { action: 'serve' } : { action: 'refuse', message: blockedMessage(target) },
  refused: () => {},
  label: (transport) => transport,
};

/** What the stand-in interceptor was handed, and what the socket server was given. */
let intercepted: string[];
let attached: Array<[string, string]>;
const patches = new Patches();

/** Replaces `object[key]` without the guards' mark, as another interceptor would. */
function replace<T extends object, K extends keyof T>(object: T, key: K, value: unknown) {
  const previous = object[key];
  object[key] = value as T[K];
  patches.add(() => {
    object[key] = previous;
  });
}

/** Puts stand-ins for `http(s).request`, `http(s).get` and `http.ClientRequest` in place, as msw 2 does. */
function interceptRequests() {
  const standIn = (name: string) => (options: { hostname?: string; path?: string }) => {
    intercepted.push(`${name} ${options.hostname}${options.path ?? '/'}`);
    const request = { on: () => request, end: () => {} };
    return request;
  };
  replace(http, 'request', standIn('http.request'));
  replace(http, 'get', standIn('http.get'));
  replace(https, 'request', standIn('https.request'));
  replace(https, 'get', standIn('https.get'));
  const record = standIn('new ClientRequest');
  replace(
    http,
    'ClientRequest',
    new Proxy(http.ClientRequest, {
      construct: (_target, args: unknown[]) => record(args[0] as { hostname?: string }),
    }),
  );
}

function guard(realRequests = requestFunctions(), interceptor?: LazyInterceptor) {
  patches.add(
    guardSockets({
      ...context,
      realConnect: net.Socket.prototype.connect,
      realRequests,
      interceptor,
      attach: (socket, origin, transport) => {
        attached.push([origin, transport]);
        socket.destroy();
      },
    }),
  );
}

const quiet = (request: http.ClientRequest) => request.on('error', () => {}).end();

afterEach(() => patches.restore());

describe('a WebSocket upgrade through an interceptor of the request functions (msw 2)', () => {
  it("a served host's upgrade is made by Node's own functions and served, whichever function the client calls", () => {
    intercepted = [];
    attached = [];
    const real = requestFunctions();
    interceptRequests();
    guard(real);
    quiet(https.request({ hostname: SERVED, path: '/v1/responses', headers: UPGRADE }));
    quiet(https.get({ hostname: SERVED, path: '/v1/realtime', headers: UPGRADE }));
    quiet(http.request(`http://${SERVED}/ws`, { headers: UPGRADE }));
    quiet(new http.ClientRequest({ hostname: SERVED, path: '/ws', headers: UPGRADE }));
    quiet(
      https.request({ hostname: SERVED, path: '/v1/responses', headers: UPGRADE, agent: new https.Agent() }),
    );
    expect(intercepted).toEqual([]);
    expect(attached).toEqual([
      [`https://${SERVED}`, 'tls'],
      [`https://${SERVED}`, 'tls'],
      [`http://${SERVED}`, 'net'],
      [`http://${SERVED}`, 'net'],
      [`https://${SERVED}`, 'tls'],
    ]);
  });

  it('any other request goes on to the interceptor: plain HTTP to a served host, an upgrade to a host not served', () => {
    intercepted = [];
    attached = [];
    const real = requestFunctions();
    interceptRequests();
    guard(real);
    quiet(https.request({ hostname: SERVED, path: '/v1/chat/completions', method: 'POST' }));
    quiet(https.request({ hostname: 'tracker.invalid', path: '/socket', headers: UPGRADE }));
    quiet(http.get({ hostname: 'tracker.invalid', path: '/socket', headers: UPGRADE }));
    quiet(new http.ClientRequest({ hostname: 'tracker.invalid', path: '/socket', headers: UPGRADE }));
    expect(intercepted).toEqual([
      `https.request ${SERVED}/v1/chat/completions`,
      'https.request tracker.invalid/socket',
      'http.get tracker.invalid/socket',
      'new ClientRequest tracker.invalid/socket',
    ]);
    expect(attached).toEqual([]);
  });

  it('are left alone when nothing stands in for them, and put back as they were', () => {
    const same = (a: ReturnType<typeof requestFunctions>, b: ReturnType<typeof requestFunctions>) =>
      (Object.keys(a) as Array<keyof typeof a>).flatMap((module) =>
        Object.entries(a[module]).map(([name, f]) => f === (b[module] as Record<string, unknown>)[name]),
      );
    const real = requestFunctions();
    const unguard = guardSockets({ ...context, realConnect: net.Socket.prototype.connect, attach: () => {} });
    expect(same(requestFunctions(), real)).toEqual([true, true, true, true, true]);
    unguard();

    interceptRequests();
    const intercepting = requestFunctions();
    const restore = guardSockets({
      ...context,
      realConnect: net.Socket.prototype.connect,
      realRequests: real,
      attach: () => {},
    });
    expect(same(requestFunctions(), intercepting)).toEqual([false, false, false, false, false]);
    expect((http.ClientRequest as unknown as Record<symbol, unknown>)[GUARDED]).toBe(true);
    // The mark is the guard's proxy's own: Node's constructor never carries it.
    expect((real.http.ClientRequest as unknown as Record<symbol, unknown>)[GUARDED]).toBeUndefined();
    restore();
    expect(same(requestFunctions(), intercepting)).toEqual([true, true, true, true, true]);
  });
});

describe('an interceptor started on the first request that needs it, beneath the guard', () => {
  const lazily = () => {
    intercepted = [];
    attached = [];
    let starts = 0;
    const interceptor = new LazyInterceptor(() => {
      starts++;
      interceptRequests();
    });
    const real = requestFunctions();
    guard(real, interceptor);
    return { interceptor, real, starts: () => starts };
  };
  const guarded = () =>
    [http.request, http.get, https.request, https.get, http.ClientRequest].map(
      (f) => (f as unknown as Record<symbol, unknown>)[GUARDED] === true,
    );

  it("a served host's upgrade does not start it; the first other request does, and goes on to it", () => {
    const { interceptor, starts } = lazily();
    quiet(https.request({ hostname: SERVED, path: '/v1/responses', headers: UPGRADE }));
    expect([interceptor.started, attached]).toEqual([false, [[`https://${SERVED}`, 'tls']]]);
    quiet(https.get({ hostname: 'tracker.invalid', path: '/first' }));
    quiet(http.request({ hostname: 'tracker.invalid', path: '/second' }));
    expect([starts(), intercepted]).toEqual([
      1,
      ['https.get tracker.invalid/first', 'http.request tracker.invalid/second'],
    ]);
    // It went in beneath: the guard's functions are still the ones in place, and still serve upgrades.
    expect(guarded()).toEqual([true, true, true, true, true]);
    quiet(new http.ClientRequest({ hostname: SERVED, path: '/ws', headers: UPGRADE }));
    expect(attached).toHaveLength(2);
  });

  it('a ClientRequest constructed first starts it too', () => {
    const { starts } = lazily();
    quiet(new http.ClientRequest({ hostname: 'tracker.invalid', path: '/socket' }));
    expect([starts(), intercepted]).toEqual([1, ['new ClientRequest tracker.invalid/socket']]);
  });

  it('a start that failed fails every later request that needs it the same way', () => {
    let starts = 0;
    const interceptor = new LazyInterceptor(() => {
      starts++;
      throw new Error('msw could not load');
    });
    guard(requestFunctions(), interceptor);
    const attempt = (request: () => http.ClientRequest) => {
      try {
        quiet(request());
        return 'made';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect([
      attempt(() => http.request({ hostname: 'tracker.invalid', path: '/first' })),
      attempt(() => https.get({ hostname: 'tracker.invalid', path: '/second' })),
    ]).toEqual(['msw could not load', 'msw could not load']);
    expect([starts, interceptor.started]).toEqual([1, false]);
  });

  it('never starts once the file has ended', () => {
    const { interceptor, starts } = lazily();
    interceptor.close();
    interceptor.start();
    expect([starts(), interceptor.started]).toEqual([0, false]);
  });
});
