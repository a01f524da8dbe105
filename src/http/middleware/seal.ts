/** Encrypts the reply into the body (Fernet with the current key, then base64), with its status. */
import type { Clock, Random } from '../../domain/ports.js';
import { sealJson } from '../../protocol/index.js';
import type { FailureCode, Keyring } from '../../protocol/index.js';
import { TEXT_PLAIN } from '../plain.js';
import { earlier } from '../state.js';
import type { Step } from '../state.js';

export interface SealDeps {
  readonly keyring: Keyring;
  readonly clock: Clock;
  readonly random: Random;
}

/**
 * The HTTP status of an action's answer: only a server that cannot serve (the database or the hash queue
 * unavailable) answers with another status than 200; every other outcome is in the sealed body.
 */
export function httpStatusOf(code: FailureCode | null): 200 | 503 {
  return code === 'db_unavailable' || code === 'busy' ? 503 : 200;
}

export function seal(deps: SealDeps): Step {
  const { keyring, clock, random } = deps;
  return function seal(ctx) {
    const reply = earlier(ctx.state.reply, 'the reply');
    ctx.status = httpStatusOf(reply.code);
    // A 503 says when to try again: in a second.
    if (ctx.status === 503) ctx.set('Retry-After', '1');
    ctx.set('Content-Type', TEXT_PLAIN);
    ctx.body = sealJson(keyring, reply.payload, { nowMs: clock.now(), iv: random.bytes(16) });
  };
}
