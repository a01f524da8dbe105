/**
 * @authsvc/client: a typed client for frontends. Encrypts the request, sends it, checks that the reply
 * answers this request (`reqid`), decrypts it. It imports only src/protocol, so a frontend never
 * loads the server's database drivers.
 *
 * Action outcomes (success or failure) are returned; a request the client can tell the server would
 * refuse, and transport problems, throw an AuthsvcError whose `kind` says what happened (errors.ts).
 */
import { randomUUID } from 'node:crypto';
import { openJson, parseKeyring, sealJson } from '../protocol/index.js';
import type { Keyring } from '../protocol/index.js';
// What the declarations below name comes from the protocol's modules that are free of Node's types (not from its
// index, whose Fernet declarations hold Buffers): a frontend's strict project compiles them without @types/node
// (docs/design.md#the-clients-declarations-stand-alone).
export { FAILURE_REASONS, failureCodeOf } from '../protocol/failure-codes.js';
import type { ActionInput, ActionName } from '../protocol/actions/index.js';
import type { RequestId, ResponseEnvelope } from '../protocol/messages.js';
import { AuthsvcError } from './errors.js';
import type { AuthsvcErrorKind } from './errors.js';
import { precheck } from './precheck.js';
import { createTransport, TransportError } from './transport.js';
import type { RawReply } from './transport.js';

/**
 * `ResponseEnvelope<K>` is `SuccessReply<K> | FailureReply<K>`: after `if (reply.success)` the items
 * the declaration fills on success are non-null (`ActionSuccess<K>`); on failure `failure_reason` is
 * the text of one of `ActionFailure<K>`, the codes action K may answer with (its declaration's and the
 * common ones), and `failureCodeOf` maps the text back to its code. `RateClass` says which rate-limit
 * buckets an action counts against.
 */
export type { ActionFailure, ActionInput, ActionName, ActionOutput, ActionSuccess } from '../protocol/actions/index.js';
export type { FailureCode, FailureReason } from '../protocol/failure-codes.js';
export type { FailureReply, RequestId, ResponseEnvelope, SuccessReply } from '../protocol/messages.js';
export type { RateClass } from '../protocol/rate-class.js';

export { AUTHSVC_ERROR_KINDS, AuthsvcError } from './errors.js';
export type { AuthsvcErrorKind, InvalidRequestReason } from './errors.js';

// The frontend kit (docs/frontend.md): the session cookie, CSRF tokens and mailed codes; the Koa middleware is
// `@authsvc/client/koa`.
export { csrfToken, csrfValid } from './csrf.js';
export { makeMailCode, memoryUsedCodes, normaliseEmail, readMailCode, redeemMailCode } from './mail-codes.js';
export type {
  MailCodeCheck,
  MailCodeClaims,
  MailCodePurpose,
  MailCodeRefusal,
  MakeMailCodeOptions,
  ReadMailCodeOptions,
  RedeemMailCodeOptions,
  UsedCodes,
} from './mail-codes.js';
export { sessionCookie, sessionCookieName, sessionTokenFrom } from './session-cookie.js';
export type { SessionCookieOptions } from './session-cookie.js';

export interface ClientOptions {
  /** Base URL of authsvc, e.g. http://127.0.0.1:13431/ or https://auth.internal:13431/ */
  readonly url: string;
  /**
   * PEM CA certificate(s) to trust for an https URL (e.g. a private or self-signed certificate); a Buffer, as
   * readFileSync returns it, is a Uint8Array.
   */
  readonly ca?: string | Uint8Array;
  /** The pre-shared Fernet key (or `;`-separated keys: the first encrypts). */
  readonly secret: string;
  /** Per-request timeout in milliseconds (default 5000). */
  readonly timeoutMs?: number;
  /** Accept replies stamped up to this many seconds ago (default 120). */
  readonly replyTtlSeconds?: number;
}

export interface RequestOptions {
  /** The end user's IP address (authsvc rate-limits by it). */
  readonly clientIp: string;
  /** Defaults to a random UUID. */
  readonly reqid?: RequestId;
  readonly signal?: AbortSignal;
}

export interface AuthsvcClient {
  request<K extends ActionName>(action: K, body: ActionInput<K>, options: RequestOptions): Promise<ResponseEnvelope<K>>;
  /** Closes idle keep-alive connections. */
  close(): void;
}

const KINDS: Readonly<Record<number, AuthsvcErrorKind>> = {
  400: 'bad-request',
  401: 'unauthorized',
  404: 'not-found',
  405: 'not-found',
  413: 'too-large',
  429: 'rate-limited',
  503: 'unavailable',
};

/** The reply's shape is checked here; its items are the server's word (the client does not re-validate them). */
function isEnvelope(value: unknown): value is Record<string, unknown> & { reqid: unknown } {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return typeof v['success'] === 'boolean' && Array.isArray(v['messages']) && typeof v['response'] === 'object';
}

export function createClient(options: ClientOptions): AuthsvcClient {
  const keyring: Keyring | null = parseKeyring(options.secret);
  if (keyring === null) throw new TypeError('authsvc client: secret is not a Fernet key');
  const url = new URL(options.url);
  const timeoutMs = options.timeoutMs ?? 5000;
  const replyTtlSeconds = options.replyTtlSeconds ?? 120;
  const transport = createTransport(url, options.ca);

  return {
    async request<K extends ActionName>(action: K, body: ActionInput<K>, requestOptions: RequestOptions) {
      const reqid = requestOptions.reqid ?? randomUUID();
      precheck(action, body, requestOptions.clientIp, reqid);
      const sealed = sealJson(keyring, { request: action, body, reqid, client_ipaddr: requestOptions.clientIp });
      let response: RawReply;
      try {
        response = await transport.post(sealed, timeoutMs, requestOptions.signal);
      } catch (error) {
        if (error instanceof TransportError && error.reason !== 'aborted')
          throw new AuthsvcError(error.reason, error.message);
        throw error;
      }
      const text = response.text;
      if (response.status !== 200 && response.status !== 503) {
        const retry = Number(response.headers['retry-after']);
        throw new AuthsvcError(
          KINDS[response.status] ?? 'server-error',
          `authsvc answered ${response.status}: ${text.trim().slice(0, 200)}`,
          response.status,
          Number.isFinite(retry) && retry > 0 ? retry : undefined,
        );
      }
      const opened = openJson(keyring, text, { nowMs: Date.now(), ttlSeconds: replyTtlSeconds, maxSkewSeconds: 60 });
      if (!opened.ok || !isEnvelope(opened.value)) {
        if (response.status === 503) throw new AuthsvcError('unavailable', 'authsvc is unavailable', 503);
        throw new AuthsvcError(
          'bad-response',
          `authsvc reply could not be read (${opened.ok ? 'not an envelope' : opened.reason})`,
          response.status,
        );
      }
      if (opened.value.reqid !== reqid) {
        throw new AuthsvcError(
          'reqid-mismatch',
          'authsvc reply answers another request (reqid differs)',
          response.status,
        );
      }
      if (response.status === 503) {
        throw new AuthsvcError('unavailable', `authsvc is unavailable: ${String(opened.value['failure_reason'])}`, 503);
      }
      return opened.value as unknown as ResponseEnvelope<K>;
    },
    close() {
      transport.close();
    },
  };
}
