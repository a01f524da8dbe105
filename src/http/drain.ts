/**
 * The drain on SIGTERM/SIGINT (DESIGN decision 26, trap E3): every request the server accepted gets
 * an answer, and every answer given while draining carries `Connection: close`.
 *
 * Closing the listening socket at once would reset the connections the kernel has already accepted
 * but Node has not yet taken (in a cluster, those the primary holds for a worker), and Node's close
 * also drops fresh connections whose request has not arrived yet: clients that connected a few
 * milliseconds after the signal would be accepted and never answered. So the server keeps listening
 * while connections keep arriving, answering each with `Connection: close`, and closes the listener
 * once no connection or request has arrived for QUIET_MS (at most LISTEN_LIMIT_MS after the signal,
 * so steady traffic cannot keep it alive), then waits for the answers in flight.
 */
import type { Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** No new connection or request for this long: nobody is about to arrive, the listener can close. */
export const QUIET_MS = 100;
/** The listener closes this long after the signal at the latest, whatever the traffic. */
export const LISTEN_LIMIT_MS = 2000;
const POLL_MS = 25;

export interface Drain {
  /** Called for every request: while draining its answer closes the connection. */
  onRequest(res: ServerResponse): void;
  /** Starts the drain (once); resolves when the listener is closed and every answer is sent. */
  drain(): Promise<void>;
}

export function drainOf(server: Server): Drain {
  const inFlight = new Set<ServerResponse>();
  let lastArrival = performance.now();
  let drained: Promise<void> | null = null;
  server.on('connection', () => {
    lastArrival = performance.now();
  });

  const waitForQuiet = async (): Promise<void> => {
    const started = performance.now();
    while (server.listening) {
      const now = performance.now();
      if (now - lastArrival >= QUIET_MS || now - started >= LISTEN_LIMIT_MS) return;
      await sleep(POLL_MS);
    }
  };
  const closeListener = (): Promise<void> =>
    new Promise<void>((resolve) => {
      if (!server.listening) {
        resolve();
        return;
      }
      // Resolves once every connection has ended; idle kept-alive ones are closed now.
      server.close(() => resolve());
      server.closeIdleConnections();
    });

  return {
    onRequest(res) {
      lastArrival = performance.now();
      if (drained !== null) res.shouldKeepAlive = false;
      inFlight.add(res);
      res.once('close', () => inFlight.delete(res));
    },
    drain() {
      if (drained !== null) return drained;
      // Answers still being prepared close their connection too (their headers are not written yet).
      for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
      drained = waitForQuiet().then(closeListener);
      return drained;
    },
  };
}
