/**
 * A presented API key of either kind, as the verify and revoke actions of both families take it: the
 * check they run on it (the dict's shape, the access the policy gives the caller on the key's owner,
 * then the stored record, found by the token's hash, it must equal), revoking it, and the end-user
 * messages of their failures.
 */
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import { hashToken } from '../domain/tokens.js';
import type { NoSessionKeyRecord, SessionKeyRecord } from '../services/store/api-keys.js';
import { keyAccess } from './apikey-access.js';
import { matchesStored, presentedKey } from './apikey-dict.js';
import type { KeyKind, PresentedKey } from './apikey-dict.js';
import type { Deps, Meta } from './define.js';

export type KeyFailure = 'apikey_malformed' | 'apikey_access_denied' | 'caller_not_valid' | 'apikey_invalid';

const NOT_VERIFIED = 'API key could not be verified.';
const NOT_ALLOWED = 'API key verification failed. You are not allowed to operate on this API key.';
const REVOKE_FAILED = 'API key revocation failed.';
const REVOKE_NOT_ALLOWED = 'API key revocation failed. You are not allowed to operate on this API key.';

/** The end-user messages of a failed verify. */
export const VERIFY_FAILURES: Readonly<Record<KeyFailure, string>> = {
  apikey_malformed: NOT_VERIFIED,
  apikey_access_denied: NOT_ALLOWED,
  caller_not_valid: NOT_ALLOWED,
  apikey_invalid: NOT_VERIFIED,
};

/** The end-user messages of a failed revoke. */
export const REVOKE_FAILURES: Readonly<Record<KeyFailure, string>> = {
  apikey_malformed: REVOKE_FAILED,
  apikey_access_denied: REVOKE_NOT_ALLOWED,
  caller_not_valid: REVOKE_NOT_ALLOWED,
  apikey_invalid: REVOKE_FAILED,
};

/** Who presents the key, as the verify and revoke actions take it. */
export interface KeyUse {
  readonly apikey_dict: PresentedKey['dict'];
  readonly user_id: number;
  readonly user_role: string;
}

export type CheckedKey<R> =
  | { readonly ok: true; readonly presented: PresentedKey; readonly record: R }
  | { readonly ok: false; readonly code: KeyFailure };

interface StoredKey {
  readonly session: SessionKeyRecord;
  readonly nosession: NoSessionKeyRecord;
}

/**
 * The stored keys of each kind, by their token's hash: found (a session-tied one only while its session
 * is valid at `now`) and revoked (a no-session one with its refresh tokens).
 */
const STORED: {
  readonly [K in KeyKind]: {
    find(deps: Deps, tknHash: string, now: number): Promise<StoredKey[K] | null>;
    revoke(deps: Deps, tknHash: string): Promise<boolean>;
  };
} = {
  session: {
    find: (deps, tknHash, now) => deps.store.apiKeys.findSessionKey(tknHash, now),
    revoke: (deps, tknHash) => deps.store.apiKeys.revokeSessionKey(tknHash),
  },
  nosession: {
    find: (deps, tknHash) => deps.store.apiKeys.findNoSessionKey(tknHash),
    revoke: (deps, tknHash) => deps.store.apiKeys.revokeNoSessionKey(tknHash),
  },
};

/**
 * The presented `kind` key, checked as far as `action` needs; with `window`, it must also be inside
 * its validity window now. The stored record when it passes.
 */
export async function checkedKey<K extends KeyKind>(
  deps: Deps,
  meta: Meta,
  input: KeyUse,
  kind: K,
  action: 'view' | 'delete',
  window: boolean,
): Promise<CheckedKey<StoredKey[K]>> {
  const presented = presentedKey(input.apikey_dict, kind);
  if (presented === null) return { ok: false, code: 'apikey_malformed' };
  const caller = { userId: input.user_id, role: input.user_role };
  const access = await keyAccess(deps, caller, action, presented.uid);
  if (access !== 'ok') return { ok: false, code: access === 'denied' ? 'apikey_access_denied' : access };
  const now = deps.clock.now();
  const record = await STORED[kind].find(deps, hashToken(presented.tkn), now);
  if (record === null || !matchesStored(presented, record, now, window)) return { ok: false, code: 'apikey_invalid' };
  return { ok: true, presented, record };
}

/** Revokes the presented `kind` key: an expired one too, but an edited dict revokes nothing. */
export async function revokeKey(
  deps: Deps,
  meta: Meta,
  input: KeyUse,
  kind: KeyKind,
  action: 'apikey-revoke' | 'apikey-revoke-nosession',
): Promise<Result<Record<string, never>, KeyFailure>> {
  const checked = await checkedKey(deps, meta, input, kind, 'delete', false);
  if (!checked.ok) return fail(checked.code);
  if (!(await STORED[kind].revoke(deps, checked.record.tknHash))) return fail('apikey_invalid');
  deps.audit.record({
    event: 'apikey.revoked',
    reqid: meta.reqid,
    subject: { userId: checked.record.userId },
    detail: { action, keys: 1 },
  });
  return ok({});
}
