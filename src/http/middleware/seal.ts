/** Encrypts the reply into the body (Fernet with the current key, then base64), with its status. */
import type { Clock, Random } from '../../domain/ports.js';
import { sealJson } from '../../protocol/index.js';
import type { Keyring } from '../../protocol/index.js';
import { TEXT_PLAIN } from '../plain.js';
import { earlier } from '../state.js';
import type { Step } from '../state.js';

export interface SealDeps {
  readonly keyring: Keyring;
  readonly clock: Clock;
  readonly random: Random;
}

export function seal(deps: SealDeps): Step {
  const { keyring, clock, random } = deps;
  return function seal(ctx) {
    const reply = earlier(ctx.state.reply, 'the reply');
    ctx.status = reply.status;
    if (reply.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(reply.retryAfterSeconds));
    ctx.set('Content-Type', TEXT_PLAIN);
    ctx.body = sealJson(keyring, reply.payload, { nowMs: clock.now(), iv: random.bytes(16) });
  };
}
