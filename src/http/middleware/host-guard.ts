/**
 * The Host allow-list (DNS rebinding), before anything else and on every path: a foreign Host gets 401
 * even for /health and for paths that do not exist. `app.proxy` is off, so this is the Host header
 * itself, never X-Forwarded-Host.
 */
import { normaliseHost } from '../../protocol/addresses.js';
import { plain } from '../plain.js';
import type { Step } from '../state.js';

const REFUSED = { refused: 'host not allowed' } as const;

export function hostGuard(allowedHosts: ReadonlySet<string>): Step {
  // A frontend sends the same Host on every request: the answer for the last value seen is kept, so the
  // common case is one string comparison (normalising runs node's IPv6 check, a regex, each time).
  let lastHost: string | undefined;
  let lastAllowed = false;
  return function hostGuard(ctx, next) {
    const host = ctx.get('host');
    if (host !== lastHost) {
      lastAllowed = allowedHosts.has(normaliseHost(host));
      lastHost = host;
    }
    if (lastAllowed) return next();
    ctx.state.log = REFUSED;
    plain(ctx, 401);
  };
}
