/**
 * apikey-new, apikey-verify, apikey-revoke: API keys tied to a session (reference §2.5,
 * docs/design.md#tokens-are-stored-hashed, docs/design.md#api-keys-and-refresh-tokens). A key dies with its session:
 * logout, session deletion, a lock, a password change or reset delete the session and the foreign key deletes its keys;
 * an expired session verifies none of its keys.
 */
import { fail, ok } from '../domain/result.js';
import { hashToken, newToken } from '../domain/tokens.js';
import { STEP_UP, steppedUp } from '../accounts/second-step.js';
import { formatDateTime } from '../protocol/index.js';
import { normaliseIp } from '../protocol/addresses.js';
import type { SessionKeyRecord } from '../services/store/api-keys.js';
import { badLifetime, grantedKeyAccess, isProblem, lifetime, requestedFields } from './apikey-access.js';
import { checkedKey, REVOKE_FAILURES, revokeKey, VERIFY_FAILURES } from './apikey-presented.js';
import { keyDict } from './apikey-dict.js';
import { defineAction } from './define.js';
import type { FamilyHandlers } from './define.js';
import type { apikeySessionActions } from '../protocol/actions/apikey-session.js';

const DAY_SECONDS = 86_400;
const SESSION_MISMATCH = 'DB session user_id, ip_address, user_agent, user_role does not match provided session info.';

const apikeyNew = defineAction('apikey-new', {
  messages: {
    ok: 'API key generated successfully.',
    failures: {
      apikey_issue_denied: 'API key issuance failed. You are not allowed to issue an API key.',
      caller_not_valid: 'API key issuance failed. You are not allowed to issue an API key.',
      apikey_session_invalid: 'Invalid session token for API key issuance request.',
      step_up_required: STEP_UP,
    },
  },
  async handle(deps, input, meta) {
    const none = { apikey: null, expires: null };
    const now = deps.clock.now();
    const times = lifetime(now, input.expires_days * DAY_SECONDS, input.not_valid_before, 'not_valid_before');
    if (isProblem(times)) return badLifetime(times, none);
    const caller = { userId: input.user_id, role: input.user_role };
    const access = await grantedKeyAccess(deps, caller, 'create', input.user_id);
    if (typeof access === 'string') return fail(access === 'denied' ? 'apikey_issue_denied' : access, none);

    const sessionHash = hashToken(input.session_token);
    const session = await deps.store.sessions.find(sessionHash, now);
    if (session === null) return fail('apikey_session_invalid', none);
    const ipAddress = normaliseIp(input.ip_address);
    if (session.userId !== input.user_id || session.ipAddress !== ipAddress || session.userAgent !== input.user_agent) {
      return fail('apikey_session_invalid', none, [SESSION_MISMATCH]);
    }
    if (!(await steppedUp(deps, input.user_id, sessionHash))) return fail('step_up_required', none);

    const tkn = newToken(deps.random);
    const record: SessionKeyRecord = {
      tknHash: hashToken(tkn),
      // The owner's credential generation, read with the permission check (docs/design.md#revocation-fence).
      generation: access.generation,
      sessionHash,
      ...requestedFields(input, ipAddress),
      userAgent: input.user_agent,
      issued: now,
      notValidBefore: times.nbf,
      expires: times.expires,
    };
    if (!(await deps.store.apiKeys.createSessionKey(record))) return fail('apikey_session_invalid', none);
    deps.audit.record({
      event: 'apikey.issued',
      reqid: meta.reqid,
      subject: { userId: input.user_id, ip: ipAddress },
      detail: { action: 'apikey-new' },
    });
    const expires = formatDateTime(times.expires);
    return ok({ apikey: JSON.stringify(keyDict(record, tkn)), expires }, [
      `API key generated successfully, expires: ${expires}.`,
    ]);
  },
});

const apikeyVerify = defineAction('apikey-verify', {
  messages: { ok: 'API key verified successfully.', failures: VERIFY_FAILURES },
  async handle(deps, input, meta) {
    const checked = await checkedKey(deps, meta, input, 'session', 'view', true);
    if (!checked.ok) return fail(checked.code);
    return ok({}, [`API key verified successfully. Expires: ${formatDateTime(checked.record.expires)}.`]);
  },
});

const apikeyRevoke = defineAction('apikey-revoke', {
  messages: { ok: 'API key revocation processed.', failures: REVOKE_FAILURES },
  handle: (deps, input, meta) => revokeKey(deps, meta, input, 'session', 'apikey-revoke'),
});

export const apikeySessionHandlers = {
  'apikey-new': apikeyNew,
  'apikey-verify': apikeyVerify,
  'apikey-revoke': apikeyRevoke,
} satisfies FamilyHandlers<typeof apikeySessionActions>;
