/**
 * The wire envelope: HTTP body = standard base64 of a Fernet token of UTF-8 JSON
 * (so a body always starts with `Z0FBQUFB`). A bare Fernet token (starting `gAAAAA`) is also accepted.
 */
import { randomBytes } from 'node:crypto';
import { actionSpecs } from './actions/index.js';
import type { ActionName } from './actions/index.js';
import { decodeBase64, fernetDecrypt, fernetEncrypt, parseFernetKey } from './fernet.js';
import type { FernetFailure, FernetKey } from './fernet.js';
import { isIpAddress } from './addresses.js';
import { REQID_MAX_LENGTH } from './messages.js';
import type { RequestId } from './messages.js';

/** Whether a request names an action of the protocol (the declarations in actions/ are data; this runs per request). */
export function isActionName(name: string): name is ActionName {
  return Object.prototype.hasOwnProperty.call(actionSpecs, name);
}

export interface Keyring {
  /** Every key that may decrypt; the first one encrypts. Never empty. */
  readonly keys: readonly [FernetKey, ...FernetKey[]];
}

/**
 * Parses `--secret`: one Fernet key, or several separated by `;` for rotation.
 * Returns null when any part is not a key.
 */
export function parseKeyring(text: string): Keyring | null {
  const parts = text
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const keys: FernetKey[] = [];
  for (const part of parts) {
    const key = parseFernetKey(part);
    if (key === null) return null;
    keys.push(key);
  }
  const [first, ...rest] = keys;
  return first === undefined ? null : { keys: [first, ...rest] };
}

export interface SealOptions {
  /** Milliseconds since the epoch, written into the token. */
  readonly nowMs?: number;
  /** 16 bytes; random when omitted. */
  readonly iv?: Uint8Array;
}

/** JSON → Fernet → standard base64: the HTTP body. */
export function sealJson(keyring: Keyring, value: unknown, options: SealOptions = {}): string {
  const json = Buffer.from(JSON.stringify(value), 'utf8');
  const token = fernetEncrypt(
    keyring.keys[0],
    json,
    Math.floor((options.nowMs ?? Date.now()) / 1000),
    options.iv ?? randomBytes(16),
  );
  return Buffer.from(token, 'ascii').toString('base64');
}

export type OpenFailure = FernetFailure | 'not-utf8' | 'not-json';

export type OpenResult =
  | { readonly ok: true; readonly value: unknown; readonly timestamp: number; readonly mac: Buffer }
  | { readonly ok: false; readonly reason: OpenFailure };

export interface OpenOptions {
  readonly nowMs: number;
  readonly ttlSeconds?: number;
  readonly maxSkewSeconds?: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Tab, line feed, carriage return and space: what a body may carry around its base64. */
const isAsciiSpace = (code: number): boolean => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

function trimAsciiSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isAsciiSpace(text.charCodeAt(start))) start++;
  while (end > start && isAsciiSpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** Recovers the Fernet token text from a body: double base64 (normal) or a bare token. */
export function tokenFromBody(body: string): string | null {
  const text = trimAsciiSpace(body);
  if (text.startsWith('gAAAAA')) return text;
  const bytes = decodeBase64(text);
  if (bytes === null) return null;
  const token = bytes.toString('latin1');
  return token.startsWith('gAAAAA') ? token : null;
}

/**
 * Body → token → verified plaintext → JSON. Failures say why (for the log); every one of them means
 * the sender did not hold our key or sent something no key holder would.
 */
export function openJson(keyring: Keyring, body: string, options: OpenOptions): OpenResult {
  const token = tokenFromBody(body);
  if (token === null) return { ok: false, reason: 'malformed' };
  const opened = fernetDecrypt(keyring.keys, token, options);
  if (!opened.ok) return opened;
  let text: string;
  try {
    // Buffer#toString would silently replace invalid UTF-8 with U+FFFD.
    text = utf8.decode(opened.plaintext);
  } catch {
    return { ok: false, reason: 'not-utf8' };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown, timestamp: opened.timestamp, mac: opened.mac };
  } catch {
    return { ok: false, reason: 'not-json' };
  }
}

// A lone surrogate or a NUL: PostgreSQL refuses NUL in text, and lone surrogates are not UTF-8.
const BAD_TEXT = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isSafeText(text: string): boolean {
  return !BAD_TEXT.test(text);
}

/**
 * The decrypted request envelope must be `{request, body, reqid, client_ipaddr}` (docs/design.md#http-status-codes).
 * `client_ipaddr` keys the rate limits, so it is required only while limiting is on; with limiting
 * off a missing or invalid one is passed on as "" (logs and audit events then carry no address).
 */
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
