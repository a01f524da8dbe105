/**
 * Routes that exist only for some peers (this machine, or those an item names): to any other peer
 * they are not there at all (404 by whatever follows), whatever the method.
 */
import type { Router } from '@koa/router';
import { isLoopback } from '../loopback.js';
import type { PipelineState } from '../state.js';

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
