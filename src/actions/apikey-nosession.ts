/**
 * The no-session API key actions (reference §2.6, docs/design.md#tokens-are-stored-hashed,
 * docs/design.md#api-keys-and-refresh-tokens): keys bound to a user, role and IP address, each with a refresh token.
 * Refreshing rotates the token; a rotated token presented again within `refreshgrace` seconds fails harmlessly (the
 * loser of a race), later it is taken for theft and revokes the key's whole family.
 */
import { fail, ok } from '../domain/result.js';
import { hashToken, newToken } from '../domain/tokens.js';
import { STEP_UP, steppedUp } from '../accounts/second-step.js';
import { formatDateTime } from '../protocol/index.js';
import type { ActionOutput, Problem } from '../protocol/index.js';
import { normaliseIp } from '../protocol/addresses.js';
import type { NoSessionKeyRecord, RefreshRecord } from '../services/store/api-keys.js';
import { badLifetime, grantedKeyAccess, isProblem, keyAccess, lifetime, requestedFields } from './apikey-access.js';
import { checkedKey, REVOKE_FAILURES, revokeKey, VERIFY_FAILURES } from './apikey-presented.js';
import { keyDict, matchesStored, presentedKey } from './apikey-dict.js';
import { defineAction } from './define.js';
import type { FamilyHandlers } from './define.js';
import type { apikeyNosessionActions } from '../protocol/actions/apikey-nosession.js';
import type { Deps, Meta } from './define.js';

const REFRESH_FAILED =
  'API key refresh failed. The API key presented does not have a valid refresh token. ' +
  'You may need to login again to generate a new API key.';

type Issued = ActionOutput<'apikey-new-nosession'>;
const NONE: Issued = { apikey: null, expires: null, refresh_token: null, refresh_token_expires: null };

interface Lifetimes {
  readonly expires_seconds: number;
  readonly not_valid_before: number;
  readonly refresh_expires: number;
  readonly refresh_nbf: number;
}

interface Times {
  readonly key: { readonly nbf: number; readonly expires: number };
  readonly refresh: { readonly nbf: number; readonly expires: number };
}

/** The key's and the refresh token's validity from `now`, or the lifetime the request got wrong. */
function timesOf(now: number, l: Lifetimes): Times | Problem {
  const key = lifetime(now, l.expires_seconds, l.not_valid_before, 'not_valid_before');
  if (isProblem(key)) return key;
  const refresh = lifetime(now, l.refresh_expires, l.refresh_nbf, 'refresh_nbf');
  if (isProblem(refresh)) return refresh;
  return { key, refresh };
}

/**
 * A new key and its refresh token (not yet stored), both recording `base.generation`: the owner's
 * credential generation read with the permission check (docs/design.md#revocation-fence).
 */
function issue(
  deps: Deps,
  base: Omit<NoSessionKeyRecord, 'tknHash' | 'issued' | 'notValidBefore' | 'expires'>,
  now: number,
  { key, refresh }: Times,
) {
  const tkn = newToken(deps.random);
  const refreshToken = newToken(deps.random);
  const record: NoSessionKeyRecord = {
    ...base,
    tknHash: hashToken(tkn),
    issued: now,
    notValidBefore: key.nbf,
    expires: key.expires,
  };
  const refreshRecord: RefreshRecord = {
    tokenHash: hashToken(refreshToken),
    familyId: base.familyId,
    apikeyHash: record.tknHash,
    userId: base.userId,
    generation: base.generation,
    issued: now,
    notValidBefore: refresh.nbf,
    expires: refresh.expires,
    rotatedAt: null,
  };
  const reply: Issued = {
    apikey: JSON.stringify(keyDict(record, tkn)),
    expires: formatDateTime(record.expires),
    refresh_token: refreshToken,
    refresh_token_expires: formatDateTime(refresh.expires),
  };
  return { record, refreshRecord, reply };
}

const generated = (reply: Issued): string[] => [`API key generated successfully, expires: ${reply.expires ?? ''}.`];

const apikeyNewNosession = defineAction('apikey-new-nosession', {
  messages: {
    ok: 'API key generated successfully.',
    failures: {
      apikey_issue_denied: 'API key issuance failed. You are not allowed to issue an API key.',
      caller_not_valid: 'API key issuance failed. You are not allowed to issue an API key.',
      step_up_required: STEP_UP,
    },
  },
  async handle(deps, input, meta) {
    const ipAddress = normaliseIp(input.ip_address);
    const now = deps.clock.now();
    const times = timesOf(now, input);
    if (isProblem(times)) return badLifetime(times, NONE);
    const caller = { userId: input.user_id, role: input.user_role };
    const access = await grantedKeyAccess(deps, caller, 'create', input.user_id);
    if (typeof access === 'string') return fail(access === 'denied' ? 'apikey_issue_denied' : access, NONE);
    // With a second factor, session_token must be the user's, with a factor proved lately (docs/design.md#step-up).
    const sessionHash = input.session_token === undefined ? null : hashToken(input.session_token);
    if (!(await steppedUp(deps, input.user_id, sessionHash))) return fail('step_up_required', NONE);
    const issued = issue(
      deps,
      {
        // A new family: every key refreshed from this one will carry it.
        familyId: deps.random.bytes(32).toString('hex'),
        ...requestedFields(input, ipAddress),
        generation: access.generation,
      },
      now,
      times,
    );
    await deps.store.apiKeys.createNoSessionKey(issued.record, issued.refreshRecord);
    deps.audit.record({
      event: 'apikey.issued',
      reqid: meta.reqid,
      subject: { userId: input.user_id, ip: ipAddress },
      detail: { action: 'apikey-new-nosession' },
    });
    return ok(issued.reply, generated(issued.reply));
  },
});

const apikeyVerifyNosession = defineAction('apikey-verify-nosession', {
  messages: { ok: 'No-session API key verified successfully.', failures: VERIFY_FAILURES },
  async handle(deps, input, meta) {
    const checked = await checkedKey(deps, meta, input, 'nosession', 'view', true);
    if (!checked.ok) return fail(checked.code);
    return ok({}, [`No-session API key verified successfully. Expires: ${formatDateTime(checked.record.expires)}.`]);
  },
});

const apikeyRevokeNosession = defineAction('apikey-revoke-nosession', {
  messages: { ok: 'API key revocation processed.', failures: REVOKE_FAILURES },
  handle: (deps, input, meta) => revokeKey(deps, meta, input, 'nosession', 'apikey-revoke-nosession'),
});

const REVOKEALL_DENIED = 'All API keys revocation failed. You are not allowed to delete API keys.';
const REVOKEALL_INVALID = 'All API keys revocation failed. The API key presented is invalid.';

const apikeyRevokeallNosession = defineAction('apikey-revokeall-nosession', {
  messages: {
    ok: 'All API keys revocation processed.',
    failures: {
      apikey_malformed: REVOKEALL_INVALID,
      apikey_access_denied: REVOKEALL_DENIED,
      caller_not_valid: REVOKEALL_DENIED,
      apikey_invalid: REVOKEALL_INVALID,
    },
  },
  async handle(deps, input, meta) {
    const none = { deleted_keys: null, revoked_keys: null };
    const checked = await checkedKey(deps, meta, input, 'nosession', 'delete', true);
    if (!checked.ok) return fail(checked.code, none);
    const deleted = await deps.store.apiKeys.revokeAllNoSession(checked.record.userId);
    deps.audit.record({
      event: 'apikey.revoked',
      reqid: meta.reqid,
      subject: { userId: checked.record.userId },
      detail: { action: 'apikey-revokeall-nosession', keys: deleted },
    });
    return ok({ deleted_keys: deleted, revoked_keys: deleted });
  },
});

const apikeyRefreshNosession = defineAction('apikey-refresh-nosession', {
  messages: {
    ok: 'API key generated successfully.',
    failures: {
      apikey_malformed: REFRESH_FAILED,
      apikey_owner_mismatch: REFRESH_FAILED,
      apikey_issue_denied: REFRESH_FAILED,
      caller_not_valid: REFRESH_FAILED,
      refresh_token_invalid: REFRESH_FAILED,
      refresh_token_rotated: REFRESH_FAILED,
      apikey_invalid: REFRESH_FAILED,
    },
  },
  async handle(deps, input, meta) {
    const presented = presentedKey(input.apikey_dict, 'nosession');
    if (presented === null) return fail('apikey_malformed', NONE);
    // The new key keeps the old key's user and role: no refreshing into another role (unlike the reference).
    if (presented.uid !== input.user_id || presented.rol !== input.user_role)
      return fail('apikey_owner_mismatch', NONE);
    const caller = { userId: input.user_id, role: input.user_role };
    for (const action of ['delete', 'create'] as const) {
      const access = await keyAccess(deps, caller, action, presented.uid);
      if (access !== 'ok') return fail(access === 'denied' ? 'apikey_issue_denied' : access, NONE);
    }

    const now = deps.clock.now();
    const keyHash = hashToken(presented.tkn);
    const refresh = await deps.store.apiKeys.findRefresh(hashToken(input.refresh_token));
    if (refresh === null || refresh.apikeyHash !== keyHash || refresh.userId !== presented.uid) {
      return fail('refresh_token_invalid', NONE);
    }
    if (refresh.rotatedAt !== null) return reused(deps, meta, refresh, now);
    if (!(refresh.notValidBefore <= now && now < refresh.expires)) return fail('refresh_token_invalid', NONE);
    const old = await deps.store.apiKeys.findNoSessionKey(keyHash);
    if (old === null) {
      // A concurrent refresh may have rotated the token (and revoked this key) since it was read.
      const again = await deps.store.apiKeys.findRefresh(refresh.tokenHash);
      if (again?.rotatedAt != null) return reused(deps, meta, again, now);
    }
    // The key itself may have expired (as in the reference); it must still be the stored one.
    if (old === null || !matchesStored(presented, old, now, false)) return fail('apikey_invalid', NONE);

    const times = timesOf(now, input);
    if (isProblem(times)) return badLifetime(times, NONE);
    // The new key keeps the old one's generation: a refresh never carries a key past a revocation.
    const issued = issue(deps, { ...old, ipAddress: normaliseIp(input.ip_address) }, now, times);
    const won = await deps.store.apiKeys.rotate(refresh.tokenHash, keyHash, now, issued.record, issued.refreshRecord);
    // Another request exchanged the token a moment ago: it won, and this one changes nothing.
    if (!won) return fail('refresh_token_rotated', NONE);
    deps.audit.record({ event: 'apikey.refreshed', reqid: meta.reqid, subject: { userId: old.userId } });
    return ok(issued.reply, generated(issued.reply));
  },
});

/** A rotated token presented again: harmless within the grace period, theft after it. */
async function reused(deps: Deps, meta: Meta, refresh: RefreshRecord, now: number) {
  if (refresh.rotatedAt !== null && now - refresh.rotatedAt < deps.settings.refreshGraceSeconds * 1000) {
    return fail('refresh_token_rotated', NONE);
  }
  const revoked = await deps.store.apiKeys.revokeFamily(refresh.familyId);
  deps.audit.record({
    event: 'apikey.refresh-reuse-detected',
    reqid: meta.reqid,
    subject: { userId: refresh.userId },
    detail: { revoked_keys: revoked },
  });
  // The answer says only that the refresh failed: nothing tells the presenter what was detected.
  return fail('refresh_token_invalid', NONE);
}

export const apikeyNosessionHandlers = {
  'apikey-new-nosession': apikeyNewNosession,
  'apikey-verify-nosession': apikeyVerifyNosession,
  'apikey-revoke-nosession': apikeyRevokeNosession,
  'apikey-revokeall-nosession': apikeyRevokeallNosession,
  'apikey-refresh-nosession': apikeyRefreshNosession,
} satisfies FamilyHandlers<typeof apikeyNosessionActions>;
