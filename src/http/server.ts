/**
 * The thin transport: guard (Host, path, method, size), open the envelope, admit (freshness,
 * replay), dispatch, seal the reply. Handlers never see Koa.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import Koa from 'koa';
import type { Context } from 'koa';
import { actionSpecs, sealJson } from '../protocol/index.js';
import { readBody } from './body.js';
import { checkEnvelope } from './envelope-check.js';
import { handleEcho, isLoopback } from './echo.js';
import { healthReport } from './health.js';
import { normaliseHost } from '../protocol/host.js';
import { plain } from './plain.js';
import type { HttpDeps } from './deps.js';
import { openRequest, refusalStatus } from './open-request.js';

export function createHttpApp(deps: HttpDeps): Koa {
  const app = new Koa();
  app.proxy = false; // X-Forwarded-Host must never feed the Host allow-list
  app.silent = true; // errors are logged by our own middleware, once, with the request id

  app.use(async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } catch (error) {
      deps.log.error('internal error', {
        path: ctx.path,
        reqid: ctx.state['reqid'] as unknown,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      plain(ctx, 500);
    }
    const fields = ctx.state['log'] as Record<string, unknown> | undefined;
    deps.log.info('request', {
      method: ctx.method,
      path: ctx.path,
      status: ctx.status,
      ms: Math.round((performance.now() - started) * 100) / 100,
      ...fields,
    });
  });

  app.use(async (ctx) => {
    if (!deps.allowedHosts.has(normaliseHost(ctx.get('host')))) {
      ctx.state['log'] = { refused: 'host not allowed' };
      return plain(ctx, 401);
    }
    if (ctx.path === '/') {
      if (ctx.method !== 'POST') return plain(ctx, 405);
      return handleAction(ctx, deps);
    }
    if (ctx.path === '/echo' && deps.debugmode && isLoopback(ctx.req.socket.remoteAddress)) {
      if (ctx.method !== 'POST') return plain(ctx, 405);
      return handleEcho(ctx, deps);
    }
    if (ctx.path === '/health') {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return plain(ctx, 405);
      const { httpStatus, report } = await healthReport(deps.health);
      ctx.status = httpStatus;
      ctx.body = report;
      return;
    }
    plain(ctx, 404);
  });

  return app;
}

async function handleAction(ctx: Context, deps: HttpDeps): Promise<void> {
  const read = await readBody(ctx.req, deps.maxBodySize);
  if (!read.ok) {
    ctx.state['log'] = { refused: read.tooLarge ? 'body too large' : 'body not received' };
    ctx.set('Connection', 'close');
    return plain(ctx, read.tooLarge ? 413 : 400);
  }
  const nowMs = deps.clock.now();
  const opened = openRequest(deps, read.text, nowMs);
  if (!opened.ok) {
    ctx.state['log'] = { refused: opened.reason };
    return plain(ctx, refusalStatus(opened.reason));
  }
  const checked = checkEnvelope(opened.value);
  if (!checked.ok) {
    ctx.state['log'] = { refused: checked.why, reqid: checked.reqid, action: checked.action };
    return plain(ctx, 400);
  }
  const { action, body, reqid, clientIp } = checked.request;
  ctx.state['reqid'] = reqid;
  if (actionSpecs[action].changesState) {
    const expiresAtMs = (opened.timestamp + deps.messageTtlSeconds + 1) * 1000;
    if (!deps.replay.admit(opened.mac, expiresAtMs, nowMs)) {
      ctx.state['log'] = { refused: 'replayed', reqid, action };
      return plain(ctx, 401);
    }
  }
  const reply = await deps.dispatcher.run(action, body, { reqid, clientIp });
  ctx.state['log'] = {
    action,
    reqid,
    ip: deps.pii(clientIp),
    success: reply.payload.success,
    ...(reply.code === null ? {} : { failure: reply.code }),
  };
  ctx.status = reply.status;
  if (reply.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(reply.retryAfterSeconds));
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = sealJson(deps.keyring, reply.payload, { nowMs: deps.clock.now(), iv: deps.random.bytes(16) });
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
export async function listen(app: Koa, options: ListenOptions): Promise<Server> {
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
