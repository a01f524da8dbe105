/**
 * Opens the body (docs/design.md#request-body-and-key-rotation, docs/design.md#freshness-and-replay,
 * docs/design.md#http-status-codes): base64, Fernet with our keys, freshness (not older than `messagettl`, not stamped
 * more than 30 s ahead), UTF-8 JSON. A key holder who sent plaintext that is not UTF-8 JSON gets 400; anything else
 * means "not ours": 401.
 */
import { openJson } from '../../protocol/index.js';
import type { Keyring, OpenFailure } from '../../protocol/index.js';
import type { Clock } from '../../domain/ports.js';
import { plain } from '../plain.js';
import { earlier } from '../state.js';
import type { Step } from '../state.js';

/** Tokens stamped further ahead than this are refused (the sender's clock is wrong, or it is forged). */
export const MAX_FUTURE_SKEW_SECONDS = 30;

export interface OpenDeps {
  readonly keyring: Keyring;
  readonly messageTtlSeconds: number;
  readonly clock: Clock;
}

export function open(deps: OpenDeps): Step {
  const { keyring, messageTtlSeconds: ttlSeconds, clock } = deps;
  return function open(ctx, next) {
    const nowMs = clock.now();
    const opened = openJson(keyring, earlier(ctx.state.text, 'the body'), {
      nowMs,
      ttlSeconds,
      maxSkewSeconds: MAX_FUTURE_SKEW_SECONDS,
    });
    if (!opened.ok) {
      ctx.state.log = { refused: opened.reason };
      plain(ctx, refusalStatus(opened.reason));
      return;
    }
    ctx.state.receivedAtMs = nowMs;
    ctx.state.opened = opened;
    return next();
  };
}

function refusalStatus(reason: OpenFailure): 400 | 401 {
  return reason === 'not-json' || reason === 'not-utf8' ? 400 : 401;
}
