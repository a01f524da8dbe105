/**
 * session-new, session-exists, session-delete, session-delete-userid, and internal-session-edit: an
 * edit for the frontend's own use that checks no permissions (docs/design.md#who-may-call-what), so end-user input
 * must never reach it.
 */
import { fail, invalid, ok } from '../domain/result.js';
import { hashToken, newSessionId, newToken } from '../domain/tokens.js';
import { formatDateTime, formatOptionalDateTime, LIMITS, parseDateTime } from '../protocol/index.js';
import type { ActionOutput } from '../protocol/index.js';
import type { sessionActions } from '../protocol/actions/session.js';
import { ANONYMOUS_ID } from '../domain/fixed-accounts.js';
import type { SessionWithUser } from '../services/store/index.js';
import { isBoundedDict, mergeDict } from '../domain/json-dict.js';
import { CAS_ATTEMPTS, casBackoff } from './cas-retry.js';
import { defineAction } from './define.js';
import type { FamilyHandlers } from './define.js';
import { normaliseIp } from '../protocol/addresses.js';

const DAY_MS = 86_400_000;

/**
 * session-exists writes a session's last_seen at most this often (docs/design.md#devices): the frontend calls it on
 * every page, and a read must stay a read.
 */
export const SESSION_SEEN_EVERY_MS = 5 * 60_000;

type SessionInfo = NonNullable<ActionOutput<'session-exists'>['session_info']>;

function sessionInfo({ user, session }: SessionWithUser, token: string): SessionInfo {
  return {
    user_id: user.userId,
    system_id: user.systemId,
    full_name: user.fullName,
    email: user.email,
    extra_info: user.extraInfo,
    email_verified: user.emailVerified,
    emailverify_sent_datetime: formatOptionalDateTime(user.emailverifySentDatetime),
    is_active: user.isActive,
    last_login_try: formatOptionalDateTime(user.lastLoginTry),
    last_login_success: formatOptionalDateTime(user.lastLoginSuccess),
    created_on: formatDateTime(user.createdOn),
    user_role: user.userRole,
    // Only the hash is stored; the token presented is the token.
    session_token: token,
    ip_address: session.ipAddress,
    user_agent: session.userAgent,
    created: formatDateTime(session.created),
    expires: formatDateTime(session.expires),
    extra_info_json: session.extraInfo,
    session_id: session.sessionId,
    last_seen: formatDateTime(session.lastSeen),
  };
}

const sessionNew = defineAction('session-new', {
  messages: {
    ok: 'Generated session_token successfully. Session initiated.',
    failures: { user_not_found: 'Could not create a new session.' },
  },
  async handle(deps, input, meta) {
    const now = deps.clock.now();
    const none = { session_token: null, expires: null, session_id: null };
    let expires: number;
    if (input.expires === undefined) {
      expires = now + deps.settings.sessionExpiryDays * DAY_MS;
    } else if (typeof input.expires === 'number') {
      expires = now + input.expires * DAY_MS;
    } else {
      const at = parseDateTime(input.expires);
      if (at === null || at <= now || at > now + LIMITS.sessionDays * DAY_MS) {
        return invalid([{ param: 'expires', problem: 'invalid value', required_type: ['int', 'str'] }], none);
      }
      expires = at;
    }
    const token = newToken(deps.random);
    const sessionId = newSessionId(deps.random);
    const userId = input.user_id ?? ANONYMOUS_ID;
    const created = await deps.store.sessions.create({
      tokenHash: hashToken(token),
      sessionId,
      lastSeen: now,
      userId,
      ipAddress: normaliseIp(input.ip_address),
      userAgent: input.user_agent,
      created: now,
      expires,
      extraInfo: input.extra_info_json ?? {},
    });
    if (!created) return fail('user_not_found', none);
    deps.audit.record({ event: 'session.created', reqid: meta.reqid, subject: { userId, ip: input.ip_address } });
    return ok({ session_token: token, expires: formatDateTime(expires), session_id: sessionId });
  },
});

const sessionExists = defineAction('session-exists', {
  messages: {
    ok: 'Session look up successful.',
    failures: { session_not_found: 'Session look up failed.' },
  },
  async handle(deps, input) {
    const tokenHash = hashToken(input.session_token);
    const now = deps.clock.now();
    const found = await deps.store.sessions.findWithUser(tokenHash, now);
    if (found === null) return fail('session_not_found', { session_info: null });
    // One write per session per interval (the statement re-checks, so two workers write it once).
    const staleBefore = now - SESSION_SEEN_EVERY_MS;
    if (found.session.lastSeen < staleBefore) await deps.store.sessions.touch(tokenHash, now, staleBefore);
    return ok({ session_info: sessionInfo(found, input.session_token) });
  },
});

const sessionDelete = defineAction('session-delete', {
  messages: {
    ok: 'Session delete processed, success: True.',
    failures: { session_not_found: 'Session delete processed, success: False.' },
  },
  async handle(deps, input, meta) {
    if (!(await deps.store.sessions.delete(hashToken(input.session_token)))) return fail('session_not_found');
    deps.audit.record({ event: 'session.ended', reqid: meta.reqid, detail: { action: 'session-delete', sessions: 1 } });
    return ok({});
  },
});

const sessionDeleteUserid = defineAction('session-delete-userid', {
  messages: {
    ok: 'Sessions delete processed. Success: True.',
    failures: { no_sessions: 'Sessions delete processed. Success: False.' },
  },
  async handle(deps, input, meta) {
    const keep = input.keep_current_session ? hashToken(input.session_token) : null;
    const deleted = await deps.store.sessions.deleteForUser(input.user_id, keep);
    if (deleted === 0) return fail('no_sessions', { deleted_sessions: 0 });
    deps.audit.record({
      event: 'session.ended',
      reqid: meta.reqid,
      subject: { userId: input.user_id },
      detail: { action: 'session-delete-userid', sessions: deleted, kept_current: keep !== null },
    });
    return ok({ deleted_sessions: deleted });
  },
});

const internalSessionEdit = defineAction('internal-session-edit', {
  messages: {
    ok: 'Session extra_info update successful.',
    failures: {
      session_not_found: 'Session extra_info update failed.',
      extra_info_too_large: 'Session extra_info update failed.',
      edit_conflict: 'Session extra_info update failed.',
    },
  },
  async handle(deps, input) {
    const tokenHash = hashToken(input.target_session_token);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const now = deps.clock.now();
      const session = await deps.store.sessions.find(tokenHash, now);
      if (session === null) return fail('session_not_found', { session_info: null });
      const merged = mergeDict(session.extraInfo, input.update_dict);
      if (!isBoundedDict(merged)) return fail('extra_info_too_large', { session_info: null });
      if (await deps.store.sessions.swapExtraInfo(tokenHash, session.extraInfo, merged, now)) {
        return ok({
          session_info: {
            user_id: session.userId,
            session_token: input.target_session_token,
            ip_address: session.ipAddress,
            user_agent: session.userAgent,
            created: formatDateTime(session.created),
            expires: formatDateTime(session.expires),
            extra_info_json: merged,
          },
        });
      }
      await casBackoff(attempt, deps.random);
    }
    return fail('edit_conflict', { session_info: null });
  },
});

export const sessionHandlers = {
  'session-new': sessionNew,
  'session-exists': sessionExists,
  'session-delete': sessionDelete,
  'session-delete-userid': sessionDeleteUserid,
  'internal-session-edit': internalSessionEdit,
} satisfies FamilyHandlers<typeof sessionActions>;
