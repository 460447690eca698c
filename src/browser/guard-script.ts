/**
 * What Playwright's routing cannot see, blocked inside the browser: a script that runs first in
 * every page and frame of a routed context (an init script) and in every worker started there (the
 * route puts it in front of their scripts). Measured in Chromium with Playwright 1.65:
 *
 * - a dedicated worker's fetch and XHR are routed, its WebSockets are not: in a worker, a WebSocket
 *   may reach loopback only (the test's own servers; another process's loopback port too, which the
 *   process's policy would refuse, since a worker cannot ask it in time);
 * - a shared worker's requests are not routed at all: `SharedWorker` is refused;
 * - WebTransport (HTTP/3 over UDP) is never routed: refused, in pages and workers;
 * - WebRTC reaches the ICE (STUN/TURN) servers it is given: a server not on loopback is refused;
 * - a service worker's requests are routed through the context in Chromium (Playwright 1.57 and
 *   later); in other browsers registering one is refused.
 *
 * What is refused throws a `SecurityError` in the page (which the app may catch) and is reported
 * to the route with a request to REPORT_URL (synchronous where it can be), which fails the test. Plain browser JavaScript,
 * self-contained: it is sent as text, and puts itself in front of blob: and data: workers too.
 */

/** Where the guard reports what it refused; answered by the route, never sent anywhere. */
export const REPORT_URL = 'https://jest-understudy.invalid/refused';

/** The query parameter that marks a worker's script request, so the route puts the guard in front of it. */
export const WORKER_MARK = '__understudy_worker';

export interface GuardOptions {
  /**
   * Refuse registering a service worker (a browser whose service workers Playwright cannot route);
   * `unless-chromium`: the page decides by its user agent (a context that names no browser).
   */
  blockServiceWorkers: boolean | 'unless-chromium';
}

/** The guard's source: an expression statement that runs the guard where it is evaluated. */
export function guardScript(options: GuardOptions): string {
  const settings = JSON.stringify({ report: REPORT_URL, mark: WORKER_MARK, ...options });
  return `(${GUARD})(${settings});\n`;
}

/** A worker script with the guard in front. */
export function guardedWorkerScript(body: string, options: GuardOptions): string {
  return guardScript(options) + body;
}

const GUARD = String.raw`function understudyGuard(settings) {
  var scope = self;
  if (scope.__jestUnderstudyGuard) return;
  try { Object.defineProperty(scope, '__jestUnderstudyGuard', { value: true }); } catch (e) { return; }
  var nativeFetch = typeof scope.fetch === 'function' ? scope.fetch.bind(scope) : undefined;
  var here = function () { return String(scope.location && scope.location.href); };
  var absolute = function (url) { try { return new URL(String(url), here()).href; } catch (e) { return String(url); } };
  var NativeXhr = scope.XMLHttpRequest;
  // Synchronous where it can be (pages, dedicated workers): the test knows before the page goes on.
  var report = function (what) {
    var body = what + ' (in ' + here() + ')';
    try {
      if (typeof NativeXhr === 'function') {
        var xhr = new NativeXhr();
        xhr.open('POST', settings.report, false);
        xhr.send(body);
      } else if (nativeFetch) nativeFetch(settings.report, { method: 'POST', body: body, keepalive: true }).catch(function () {});
    } catch (e) {}
  };
  var refuse = function (what) {
    report(what);
    return new DOMException('jest-understudy blocked ' + what + ': Playwright cannot route it, so it would reach the network unseen', 'SecurityError');
  };
  var loopback = function (url) {
    try {
      var host = new URL(String(url), here()).hostname.replace(/^\[|\]$/g, '');
      return host === 'localhost' || host === '::1' || /^127\./.test(host);
    } catch (e) { return false; }
  };
  var define = function (owner, name, value) {
    try { Object.defineProperty(owner, name, { value: value, configurable: true, writable: true }); } catch (e) {}
  };
  var wrap = function (Native, name, guard) {
    var Guarded = function () {
      if (!new.target) throw new TypeError("Failed to construct '" + name + "': Please use the 'new' operator");
      var args = guard(Array.prototype.slice.call(arguments));
      return Reflect.construct(Native, args, new.target === Guarded ? Native : new.target);
    };
    Guarded.prototype = Native.prototype;
    Object.setPrototypeOf(Guarded, Native);
    define(Guarded, 'name', name);
    define(scope, name, Guarded);
  };
  var inWorker = typeof WorkerGlobalScope === 'function' && scope instanceof WorkerGlobalScope;
  var source = '(' + understudyGuard + ')(' + JSON.stringify(settings) + ');\n';

  if (inWorker && typeof scope.WebSocket === 'function')
    wrap(scope.WebSocket, 'WebSocket', function (args) {
      if (!loopback(args[0])) throw refuse('a WebSocket to ' + absolute(args[0]) + ' from a worker');
      return args;
    });
  if (typeof scope.WebTransport === 'function')
    wrap(scope.WebTransport, 'WebTransport', function (args) { throw refuse('a WebTransport session to ' + absolute(args[0])); });
  if (typeof scope.SharedWorker === 'function')
    wrap(scope.SharedWorker, 'SharedWorker', function (args) { throw refuse('a SharedWorker (' + absolute(args[0]) + ')'); });
  if (typeof scope.Worker === 'function')
    wrap(scope.Worker, 'Worker', function (args) {
      var url = String(args[0]);
      if (/^(blob|data):/i.test(url)) {
        // Never fetched over the network, so the route cannot mark it: the guard goes in front here.
        var xhr = new NativeXhr();
        xhr.open('GET', url, false);
        xhr.send();
        args[0] = URL.createObjectURL(new Blob([source + xhr.responseText], { type: 'text/javascript' }));
      } else {
        var marked = new URL(url, here());
        marked.searchParams.append(settings.mark, '1');
        args[0] = marked.href;
      }
      return args;
    });
  if (typeof scope.RTCPeerConnection === 'function') {
    var servers = function (config) {
      var far = [];
      var list = (config && config.iceServers) || [];
      for (var i = 0; i < list.length; i++) {
        var urls = [].concat(list[i].urls || list[i].url || []);
        for (var j = 0; j < urls.length; j++) {
          var host = String(urls[j]).replace(/^[a-z]+:/i, '').replace(/[?].*$/, '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
          if (!(host === 'localhost' || host === '::1' || /^127\./.test(host))) far.push(String(urls[j]));
        }
      }
      if (far.length > 0) throw refuse('a WebRTC connection through ' + far.join(', '));
    };
    var setConfiguration = scope.RTCPeerConnection.prototype.setConfiguration;
    if (typeof setConfiguration === 'function')
      define(scope.RTCPeerConnection.prototype, 'setConfiguration', function (config) {
        servers(config);
        return setConfiguration.call(this, config);
      });
    wrap(scope.RTCPeerConnection, 'RTCPeerConnection', function (args) { servers(args[0]); return args; });
  }
  var blockServiceWorkers = settings.blockServiceWorkers === 'unless-chromium'
    ? !/Chrom(e|ium)\//.test(String(scope.navigator && scope.navigator.userAgent))
    : settings.blockServiceWorkers;
  if (blockServiceWorkers && typeof scope.ServiceWorkerContainer === 'function')
    define(scope.ServiceWorkerContainer.prototype, 'register', function (url) {
      return Promise.reject(refuse('a service worker (' + absolute(url) + ')'));
    });
}`;
