/**
 * Routes that exist only for this machine: to any other peer they are not there at all (404 by
 * whatever follows), whatever the method.
 */
import type { Router } from '@koa/router';
import { isLoopback } from '../loopback.js';
import type { PipelineState } from '../state.js';

type Routes = ReturnType<Router<PipelineState>['routes']>;

export function loopbackOnly(routes: Routes): Routes {
  return async function loopbackOnly(ctx, next) {
    if (isLoopback(ctx.req.socket.remoteAddress)) await routes(ctx, next);
    else await next();
  };
}
