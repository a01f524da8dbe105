/**
 * The HTTP app: the request log and the Host guard in front of every path, then the routes and their
 * pipelines (routes.ts), then 404/405 for what no route takes. Also the listener and its drain.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import Koa from 'koa';
import type { HttpDeps } from './deps.js';
import { hostGuard } from './middleware/host-guard.js';
import { requestLog } from './middleware/request-log.js';
import { unrouted } from './middleware/unrouted.js';
import { mountRoutes } from './routes.js';
import type { PipelineState } from './state.js';

export function createHttpApp(deps: HttpDeps): Koa<PipelineState> {
  const app = new Koa<PipelineState>();
  app.proxy = false; // X-Forwarded-Host must never feed the Host allow-list
  app.silent = true; // errors are logged by the request log, once, with the request id
  app.use(requestLog(deps.log));
  app.use(hostGuard(deps.allowedHosts));
  mountRoutes(app, deps);
  app.use(unrouted());
  return app;
}

export interface ListenOptions {
  readonly host: string;
  readonly port: number;
  /** PEM certificate and key: the listener then speaks HTTPS, TLS 1.2 or later. */
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer } | null;
}

/** Servers that are closing: their answers carry `Connection: close`. */
const draining = new WeakSet<Server>();

/** Starts the HTTP listener with timeouts that bound slow clients (slowloris). */
export async function listen(app: Koa<PipelineState>, options: ListenOptions): Promise<Server> {
  // A request without Host reaches our guard (401) instead of Node's bare 400.
  const handle = app.callback();
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    // While draining, a kept-alive connection ends after its answer instead of taking a new request.
    if (draining.has(server)) res.shouldKeepAlive = false;
    void handle(req, res); // Koa answers its own errors; the promise never rejects
  };
  const server: Server =
    options.tls == null
      ? createServer({ requireHostHeader: false }, listener)
      : createTlsServer(
          { requireHostHeader: false, cert: options.tls.cert, key: options.tls.key, minVersion: 'TLSv1.2' },
          listener,
        );
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 5_000;
  server.maxHeadersCount = 100;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/**
 * Stops accepting connections and resolves once every request already received has been answered
 * (SIGTERM/SIGINT, trap E3): idle kept-alive connections close now, busy ones after their answer.
 */
export function closeGracefully(server: Server): Promise<void> {
  draining.add(server);
  return new Promise<void>((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
