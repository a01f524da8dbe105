/**
 * The decrypted request envelope must be `{request, body, reqid, client_ipaddr}` (docs/design.md#http-status-codes).
 * `client_ipaddr` keys the rate limits, so it is required only while limiting is on; with limiting
 * off a missing or invalid one is passed on as "" (logs and audit events then carry no address).
 */
import { isSafeText } from '../domain/json-dict.js';
import { isActionName, REQID_MAX_LENGTH } from '../protocol/index.js';
import type { ActionName, RequestId } from '../protocol/index.js';
import { isIpAddress } from '../protocol/ip.js';

export interface CheckedRequest {
  readonly action: ActionName;
  readonly body: Readonly<Record<string, unknown>>;
  readonly reqid: RequestId;
  /** A valid IP address; "" only with rate limiting off and no valid address given. */
  readonly clientIp: string;
}

export type EnvelopeCheck =
  | { readonly ok: true; readonly request: CheckedRequest }
  | {
      readonly ok: false;
      readonly why: string;
      readonly reqid?: RequestId;
      readonly action?: string;
      /** The valid client IP, when there is one: even a malformed request counts against its per-IP bucket. */
      readonly clientIp?: string;
    };

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An integer or a short text without control characters (echoed back as given). */
export function isRequestId(value: unknown): value is RequestId {
  if (typeof value === 'number') return Number.isSafeInteger(value);
  return typeof value === 'string' && value.length <= REQID_MAX_LENGTH && isSafeText(value);
}

export function checkEnvelope(value: unknown, ipRequired = true): EnvelopeCheck {
  if (!isObject(value)) return { ok: false, why: 'envelope is not an object' };
  const { request, body, reqid, client_ipaddr: given } = value;
  const clientIp = typeof given === 'string' && isIpAddress(given) ? given : null;
  const ip = clientIp === null ? {} : { clientIp };
  if (!isRequestId(reqid)) return { ok: false, why: 'reqid missing or not an int or short string', ...ip };
  if (typeof request !== 'string') return { ok: false, why: 'request missing or not a string', reqid, ...ip };
  const action = request.slice(0, 64);
  if (!isObject(body)) return { ok: false, why: 'body missing or not an object', reqid, action, ...ip };
  if (clientIp === null && ipRequired) {
    return { ok: false, why: 'client_ipaddr missing or not an IP address', reqid, action };
  }
  if (!isActionName(request)) return { ok: false, why: 'unknown action', reqid, action, ...ip };
  return { ok: true, request: { action: request, body, reqid, clientIp: clientIp ?? '' } };
}
