/**
 * A wire answer written straight onto a node:http response, for the served port: no WHATWG
 * Response between the model's answer and the socket.
 */
import { once } from 'node:events';
import type http from 'node:http';
import { respond } from '../node-http';
import { STALLED_HEADERS, type StreamPlan, type WireAnswer } from './wire';

/**
 * Writes a wire answer straight onto the response: a plain body in one write with its length,
 * a stream event by event as its plan paces them (all in one write when nothing waits), a
 * dropped connection as one.
 */
export async function writeAnswer(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  answer: WireAnswer,
): Promise<void> {
  switch (answer.kind) {
    case 'drop':
      return void res.destroy();
    case 'response':
      return respond(req, res, answer.response);
    case 'plain': {
      const head = req.method === 'HEAD';
      res.writeHead(answer.status, {
        ...answer.headers,
        'content-length': head ? 0 : Buffer.byteLength(answer.body),
      });
      return void res.end(head ? undefined : answer.body);
    }
    case 'stream':
      res.writeHead(answer.status, answer.headers);
      if (req.method === 'HEAD') return void res.end();
      return writeEvents(res, answer.plan);
    case 'stalled':
      // The headers go now, so the client stops waiting for them; the body never comes.
      res.writeHead(200, STALLED_HEADERS);
      res.flushHeaders();
      await answer.ended;
      return void res.destroy();
  }
}

async function writeEvents(res: http.ServerResponse, plan: StreamPlan): Promise<void> {
  if (plan.unpaced && !plan.fails) {
    // Nothing waits between them: one chunk holds every event (SSE readers do not care where
    // chunks end, and one write costs the server and the client less than one per event).
    const events = Array.from({ length: plan.count }, (_, at) => plan.event(at));
    const text = events.every((event) => typeof event === 'string');
    return void res.end(text ? events.join('') : Buffer.concat(events.map((e) => Buffer.from(e))));
  }
  const signal = plan.signal();
  // What went out so far, for a run that ends while the stream is still going (`plan.settle`).
  let sent = 0;
  plan.progress = () => sent;
  for (let at = 0; at < plan.count; at++) {
    const delay = plan.delay(at);
    if (delay > 0) await plan.clock.sleep(delay, signal).catch(() => undefined);
    if (signal?.aborted || res.destroyed) {
      // The client went away: what went out before is all it got.
      plan.stopped(at);
      return void res.destroy();
    }
    const event = plan.event(at);
    if (plan.fails && at === plan.count - 1) {
      // node:http holds a response's first writes until the next tick: destroyed before then,
      // the events sent so far would never leave.
      sent = at + 1;
      await new Promise<void>((written) => res.write(event, () => written()));
    } else {
      sent = at + 1;
      if (!res.write(event)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    }
  }
  plan.progress = undefined;
  if (res.destroyed) return;
  // A stream that fails midway (a disconnect fault): the client sees the connection drop.
  if (plan.fails) res.destroy();
  else res.end();
}
