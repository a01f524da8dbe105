/**
 * The sealed envelope, both ways: `open` decrypts the body, `envelope` checks what it holds, and `seal`
 * encrypts the reply into the answer (Fernet with the current key, then base64), with its status.
 */
import type { Clock, Random } from '../domain/ports.js';
import { checkEnvelope, openJson, sealJson } from '../protocol/index.js';
import type { FailureCode, Keyring, OpenFailure } from '../protocol/index.js';
import { plain, TEXT_PLAIN } from './plain.js';
import { earlier } from './state.js';
import type { Step } from './state.js';

/** Tokens stamped further ahead than this are refused (the sender's clock is wrong, or it is forged). */
export const MAX_FUTURE_SKEW_SECONDS = 30;

export interface OpenDeps {
  readonly keyring: Keyring;
  readonly messageTtlSeconds: number;
  readonly clock: Clock;
}

/**
 * Opens the body (docs/design.md#request-body-and-key-rotation, docs/design.md#freshness-and-replay,
 * docs/design.md#http-status-codes): base64, Fernet with our keys, freshness (not older than `messagettl`, not stamped
 * more than 30 s ahead), UTF-8 JSON. A key holder who sent plaintext that is not UTF-8 JSON gets 400; anything else
 * means "not ours": 401.
 */
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

/**
 * The decrypted request must be `{request, body, reqid, client_ipaddr}` naming a known action
 * (docs/design.md#http-status-codes); `client_ipaddr` only while rate limiting is on. From here on the request id is
 * known. A malformed envelope is answered 400 by the admit step, after it has counted it against the
 * client's per-IP bucket: flooding with bad requests is still flooding.
 */
export function envelope(options: { readonly ipRequired: boolean }): Step {
  return function envelope(ctx, next) {
    const checked = checkEnvelope(earlier(ctx.state.opened, 'the opened token').value, options.ipRequired);
    if (!checked.ok) {
      ctx.state.log = { refused: checked.why, reqid: checked.reqid, action: checked.action };
      ctx.state.malformed = checked.clientIp === undefined ? {} : { clientIp: checked.clientIp };
      if (checked.reqid !== undefined) ctx.state.reqid = checked.reqid;
      return next();
    }
    ctx.state.request = checked.request;
    ctx.state.reqid = checked.request.reqid;
    return next();
  };
}

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

/** Encrypts the reply into the body (Fernet with the current key, then base64), with its status. */
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
