/**
 * The drain on SIGTERM/SIGINT (docs/design.md#drain): from the signal until the
 * process exits, every connection the server accepts gets an HTTP answer. Requests received before
 * the signal are served, their answers closing the connection; requests that arrive later get a 503
 * with `Connection: close` (nothing was done: safe to send elsewhere). Once the listener is closed,
 * new connections are refused at connect time, which is not an accepted connection.
 *
 * Closing a listener resets every connection queued in front of the server: in the kernel's accept
 * queue (a single process whose event loop is busy) or in the cluster primary's round-robin queue
 * (node:cluster closes the connections it still holds when the last worker closes). Both queues hold
 * up to one connection per waiting client, so the listener closes only when they are empty:
 * - late requests cost a 503, not a request's work, so the queues drain as fast as clients connect;
 * - the listener closes once no connection has arrived for QUIET_MS, checked right after a poll of
 *   the event loop (which accepts whatever the kernel queued);
 * - under traffic that never pauses, after LISTEN_LIMIT_MS, the 503s are held back: clients waiting
 *   for one do not connect again, so arrivals pause and the listener closes in that lull (or
 *   CLOSING_LIMIT_MS later whatever arrives). The held answers go out once the listener is closed and,
 *   in a cluster worker, once no worker takes connections any more (`listenerClosed`, cluster/primary.ts):
 *   their clients connect again at once, and must be refused, not queued for a worker that is closing.
 * The answers in flight are then awaited.
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { setImmediate as afterPoll, setTimeout as sleep } from 'node:timers/promises';
import { TEXT_PLAIN, plainText } from './plain.js';

/** No new connection for this long: nobody is about to arrive, the listener can close. */
export const QUIET_MS = 100;
/** Under traffic that never pauses for QUIET_MS, late answers are held back from this long after the signal… */
export const LISTEN_LIMIT_MS = 2000;
/** …and the listener closes at the first QUIET_MS lull, or this long later whatever arrives. */
export const CLOSING_LIMIT_MS = 500;
const POLL_MS = 25;

const UNAVAILABLE = Buffer.from(plainText(503));
const UNAVAILABLE_HEADERS = {
  'Content-Type': TEXT_PLAIN,
  'Content-Length': String(UNAVAILABLE.length),
  Connection: 'close',
};

export interface DrainOptions {
  /**
   * Resolves once the listener's close has taken effect beyond this process (a cluster worker: once
   * the primary hands it no more connections). Held answers wait for it.
   */
  readonly listenerClosed?: () => Promise<void>;
}

export interface Drain {
  /** Starts the drain (once); resolves when the listener is closed and every answer is sent. */
  drain(options?: DrainOptions): Promise<void>;
}

/** Serves `server`'s requests through `serve` until the drain, then answers them 503. */
export function drainOf(server: Server, serve: RequestListener): Drain {
  const inFlight = new Set<ServerResponse>();
  const track: RequestListener = (req, res) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    serve(req, res);
  };
  server.on('request', track);

  // Connections before the signal count too: one accepted just before it may still be in a queue.
  let lastArrival = performance.now();
  server.on('connection', () => {
    lastArrival = performance.now();
  });
  let drained: Promise<void> | null = null;
  /** Late answers held back while the listener closes; null while they go out at once. */
  let held: ServerResponse[] | null = null;
  const answer = (res: ServerResponse): void => {
    if (res.destroyed || res.headersSent) return;
    res.writeHead(503, UNAVAILABLE_HEADERS).end(UNAVAILABLE);
  };
  const late = (req: IncomingMessage, res: ServerResponse): void => {
    lastArrival = performance.now();
    // Answered once the whole request is read: closing with unread bytes would reset the connection.
    req.once('end', () => {
      if (held === null) answer(res);
      else held.push(res);
    });
    req.resume();
  };

  const closeListener = async (options: DrainOptions): Promise<void> => {
    const started = performance.now();
    let closingFrom = Number.POSITIVE_INFINITY;
    for (;;) {
      // After a poll phase, in which libuv accepted every connection the kernel had queued.
      await afterPoll();
      const now = performance.now();
      if (now - lastArrival >= QUIET_MS || now - closingFrom >= CLOSING_LIMIT_MS || !server.listening) break;
      if (held === null && now - started >= LISTEN_LIMIT_MS) {
        held = [];
        closingFrom = now;
      }
      await sleep(POLL_MS);
    }
    const allEnded = new Promise<void>((resolve) => {
      if (!server.listening) resolve();
      // Resolves once every connection has ended. Node closes the idle kept-alive ones now; a
      // connection whose request has not arrived yet is not idle, it stays and gets its 503.
      else server.close(() => resolve());
    });
    if (held !== null) {
      await options.listenerClosed?.();
      const release = held;
      held = null;
      for (const res of release) answer(res);
    }
    await allEnded;
  };

  return {
    drain(options = {}) {
      if (drained !== null) return drained;
      server.off('request', track);
      server.on('request', late);
      // Answers still being prepared close their connection too (their headers are not written yet).
      for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
      drained = closeListener(options);
      return drained;
    },
  };
}
