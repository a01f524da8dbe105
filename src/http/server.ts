/**
 * The HTTP app: the request log and the Host guard in front of every path, then the routes and their
 * pipelines (routes.ts), then 404/405 for what no route takes. Also the listener and its drain.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import Koa from 'koa';
import type { HttpDeps } from './deps.js';
import { drainOf } from './drain.js';
import type { Drain, DrainOptions } from './drain.js';
import { hostGuard } from './guards.js';
import { countRequests } from './metrics.js';
import { requestLog } from './request-log.js';
import { mountRoutes } from './routes.js';
import type { PipelineState } from './state.js';
import type { RouterMiddleware } from '@koa/router';
import { plain } from './plain.js';

export function createHttpApp(deps: HttpDeps): Koa<PipelineState> {
  const app = new Koa<PipelineState>();
  app.proxy = false; // X-Forwarded-Host must never feed the Host allow-list
  app.silent = true; // errors are logged by the request log, once, with the request id
  // Outermost, so it sees every answer as sent, the request log's 500s included.
  if (deps.metrics !== null) app.use(countRequests(deps.metrics.observer));
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
  /** The whole request (headers and body) must arrive within this; 30 s unless given (tests). */
  readonly requestTimeoutMs?: number;
}

/**
 * How often Node looks for requests past their timeout. Its default (30 s) let a 30 s timeout take up
 * to 60 s; checked every second, the configured timeout is the effective one.
 */
const TIMEOUT_CHECK_MS = 1000;

/** Each listener's drain (drain.ts): it owns the request listener, and answers 503 once draining. */
const drains = new WeakMap<Server, Drain>();

/** Starts the HTTP listener with timeouts that bound slow clients (slowloris). */
export async function listen(app: Koa<PipelineState>, options: ListenOptions): Promise<Server> {
  const handle = app.callback();
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    void handle(req, res); // Koa answers its own errors; the promise never rejects
  };
  // A request without Host reaches our guard (401) instead of Node's bare 400. The request listener
  // is the drain's (drain.ts): it serves through `serve` until the drain, then answers 503.
  const server: Server =
    options.tls == null
      ? createServer({ requireHostHeader: false, connectionsCheckingInterval: TIMEOUT_CHECK_MS })
      : createTlsServer({
          requireHostHeader: false,
          connectionsCheckingInterval: TIMEOUT_CHECK_MS,
          cert: options.tls.cert,
          key: options.tls.key,
          minVersion: 'TLSv1.2',
        });
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;
  // Node lets a request run to the later of the two, so the headers' bound never exceeds the request's.
  server.headersTimeout = Math.min(10_000, server.requestTimeout);
  server.keepAliveTimeout = 5_000;
  server.maxHeadersCount = 100;
  drains.set(server, drainOf(server, serve));
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
 * Answers late requests 503, stops accepting connections once arrivals stop and resolves when every
 * connection accepted has been answered, each answer closing its connection (SIGTERM/SIGINT,
 * docs/design.md#signals-reach-the-primary-only; drain.ts). Only for a server from `listen`.
 */
export function closeGracefully(server: Server, options?: DrainOptions): Promise<void> {
  const drain = drains.get(server);
  if (drain === undefined) return Promise.reject(new Error('closeGracefully: not a server from listen()'));
  return drain.drain(options);
}

/**
 * After the routers: a known path with another method is 405 with `Allow`; anything else is 404.
 * Both bodies are one line of text.
 */
export function unrouted(): RouterMiddleware<PipelineState> {
  return function unrouted(ctx) {
    // The routers leave on the context the layers whose path matched (none of them took the method).
    const layers = ctx.matched;
    if (layers === undefined || layers.length === 0) return plain(ctx, 404);
    ctx.set('Allow', allowedMethods(layers));
    plain(ctx, 405);
  };
}

function allowedMethods(layers: readonly { readonly methods: readonly string[] }[]): string {
  return [...new Set(layers.flatMap((layer) => layer.methods))].join(', ');
}
