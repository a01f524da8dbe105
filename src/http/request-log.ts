/**
 * The outermost step, on every path: one `request` log line per request, and the 500 answer (with an
 * error log carrying the request id) for anything a later step throws.
 */
import type { Logger } from '../log/logger.js';
import { plain } from './plain.js';
import type { Step } from './state.js';

export function requestLog(log: Logger): Step {
  return async function requestLog(ctx, next) {
    const started = performance.now();
    try {
      await next();
    } catch (error) {
      log.error('internal error', {
        path: ctx.path,
        reqid: ctx.state.reqid,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      plain(ctx, 500);
    }
    log.info('request', {
      method: ctx.method,
      path: ctx.path,
      status: ctx.status,
      ms: Math.round((performance.now() - started) * 100) / 100,
      ...ctx.state.log,
    });
  };
}
