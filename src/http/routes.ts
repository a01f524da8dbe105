/**
 * The routes and the pipeline of each (docs/design.md#the-request-path). Every step is made once, here, when the
 * app is built; a request only walks them.
 *
 *   POST /            size guard → open → envelope → admit → dispatch → seal
 *   GET|HEAD /health  health
 *   POST /echo        size guard → open → echo → seal   (debugmode 1, loopback peers only)
 *   GET|HEAD /metrics the scrape                        (metrics 1, the peers of metricsallow only)
 *
 * The request count (metrics 1), the request log and the Host guard run before any route (server.ts);
 * unrouted answers 404/405.
 */
import { Router } from '@koa/router';
import type Koa from 'koa';
import type { HttpDeps } from './deps.js';
import { admit } from './admit.js';
import { dispatch } from './dispatch.js';
import { echo } from './echo.js';
import { envelope, open, seal } from './envelope.js';
import { health } from './health.js';
import { scrapeMetrics } from './metrics.js';
import { sizeGuard } from './guards.js';
import type { PipelineState } from './state.js';
import { isLoopback } from './loopback.js';

/** Paths match exactly, as written: no trailing slash, no other case. */
const EXACT = { sensitive: true, strict: true } as const;

/** Mounts (debugmode) the routes for local developers, then those of the service. */
export function mountRoutes(app: Koa<PipelineState>, deps: HttpDeps): void {
  const guardSize = sizeGuard(deps.maxBodySize);
  const openBody = open(deps);
  const sealReply = seal(deps);
  const service = new Router<PipelineState>(EXACT)
    .post(
      '/',
      guardSize,
      openBody,
      envelope({ ipRequired: deps.rateLimits !== null }),
      admit(deps),
      dispatch(deps),
      sealReply,
    )
    .get('/health', health(deps.health));
  if (deps.debugmode) {
    app.use(
      loopbackOnly(new Router<PipelineState>(EXACT).post('/echo', guardSize, openBody, echo(), sealReply).routes()),
    );
  }
  if (deps.metrics !== null) {
    const { allowPeer, scrape } = deps.metrics;
    app.use(peersOnly(allowPeer, new Router<PipelineState>(EXACT).get('/metrics', scrapeMetrics(scrape)).routes()));
  }
  app.use(service.routes());
}

/**
 * Routes that exist only for some peers (this machine, or those an item names): to any other peer
 * they are not there at all (404 by whatever follows), whatever the method.
 */
type Routes = ReturnType<Router<PipelineState>['routes']>;

export function peersOnly(allowed: (address: string | undefined) => boolean, routes: Routes): Routes {
  return async function peersOnly(ctx, next) {
    if (allowed(ctx.req.socket.remoteAddress)) await routes(ctx, next);
    else await next();
  };
}

export function loopbackOnly(routes: Routes): Routes {
  return peersOnly(isLoopback, routes);
}
