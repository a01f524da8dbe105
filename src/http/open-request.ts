/** Opening a request body: decrypt, check freshness, parse (DESIGN decisions 1–3). */
import { openJson } from '../protocol/index.js';
import type { OpenFailure, OpenResult } from '../protocol/index.js';
import type { HttpDeps } from './deps.js';

/** Tokens stamped further ahead than this are refused (the sender's clock is wrong, or it is forged). */
export const MAX_FUTURE_SKEW_SECONDS = 30;

export function openRequest(deps: HttpDeps, body: string, nowMs: number): OpenResult {
  return openJson(deps.keyring, body, {
    nowMs,
    ttlSeconds: deps.messageTtlSeconds,
    maxSkewSeconds: MAX_FUTURE_SKEW_SECONDS,
  });
}

/** A key holder sent plaintext that is not UTF-8 JSON: 400. Anything else means "not ours": 401. */
export function refusalStatus(reason: OpenFailure): 400 | 401 {
  return reason === 'not-json' || reason === 'not-utf8' ? 400 : 401;
}
