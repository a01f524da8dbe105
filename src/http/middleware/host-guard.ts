/**
 * The Host allow-list (DNS rebinding), before anything else and on every path: a foreign Host gets 401
 * even for /health and for paths that do not exist. `app.proxy` is off, so this is the Host header
 * itself, never X-Forwarded-Host.
 */
import { normaliseHost } from '../../protocol/host.js';
import { plain } from '../plain.js';
import type { Step } from '../state.js';

const REFUSED = { refused: 'host not allowed' } as const;

export function hostGuard(allowedHosts: ReadonlySet<string>): Step {
  return function hostGuard(ctx, next) {
    if (allowedHosts.has(normaliseHost(ctx.get('host')))) return next();
    ctx.state.log = REFUSED;
    plain(ctx, 401);
  };
}
