/**
 * session-list and session-revoke (docs/design.md#devices): a user sees their live sessions by public id, where and
 * when each was opened and last seen, and ends one. A superuser may do both for any user. The sessions of the system
 * accounts (2, 3) are every anonymous visitor's, so nobody lists them through their own: that would show strangers'
 * addresses. A session_id of somebody else's session reads, to a user, exactly like one that does not exist.
 */
import { ANONYMOUS_ID, DUMMY_ID } from '../domain/fixed-accounts.js';
import { fail, ok } from '../domain/result.js';
import { formatDateTime, LIMITS } from '../protocol/index.js';
import type { deviceActions } from '../protocol/actions/devices.js';
import { defineAction } from './define.js';
import type { Deps, FamilyHandlers } from './define.js';
import { NO_SESSION, NOT_YOURS, ownSession } from './factors.js';

export const isSystemAccount = (userId: number): boolean => userId === ANONYMOUS_ID || userId === DUMMY_ID;

/** The asking session, which must be `userId`'s (ownSession) and not a system account's. */
export async function asker(
  deps: Deps,
  sessionToken: string,
  userId: number,
): Promise<
  | { readonly ok: true; readonly tokenHash: string; readonly superuser: boolean }
  | { readonly ok: false; readonly code: 'session_not_found' | 'session_user_mismatch' | 'system_account' }
> {
  const own = await ownSession(deps, sessionToken, userId);
  if (!own.ok) return own;
  if (isSystemAccount(userId)) return { ok: false, code: 'system_account' };
  return { ok: true, tokenHash: own.tokenHash, superuser: own.user.userRole === 'superuser' && own.user.isActive };
}

const SYSTEM = "The system accounts' sessions are not listed or ended one by one.";

const sessionList = defineAction('session-list', {
  messages: {
    ok: 'Your sessions.',
    failures: {
      session_not_found: NO_SESSION,
      session_user_mismatch: NOT_YOURS,
      not_superuser: "You don't have the privileges to see other users' sessions.",
      system_account: SYSTEM,
    },
  },
  async handle(deps, input) {
    const none = { sessions: null };
    const who = await asker(deps, input.session_token, input.user_id);
    if (!who.ok) return fail(who.code, none);
    const target = input.target_userid ?? input.user_id;
    if (target !== input.user_id && !who.superuser) return fail('not_superuser', none);
    if (isSystemAccount(target)) return fail('system_account', none);
    const sessions = await deps.store.sessions.listForUser(target, deps.clock.now(), LIMITS.sessionList);
    return ok({
      sessions: sessions.map((s) => ({
        session_id: s.sessionId,
        ip_address: s.ipAddress,
        user_agent: s.userAgent,
        created: formatDateTime(s.created),
        last_seen: formatDateTime(s.lastSeen),
        expires: formatDateTime(s.expires),
        current: s.tokenHash === who.tokenHash,
      })),
    });
  },
});

const sessionRevoke = defineAction('session-revoke', {
  messages: {
    ok: 'That session has ended.',
    failures: {
      session_not_found: NO_SESSION,
      session_user_mismatch: NOT_YOURS,
      system_account: SYSTEM,
      session_id_not_found: 'That session has already ended.',
    },
  },
  async handle(deps, input, meta) {
    const who = await asker(deps, input.session_token, input.user_id);
    if (!who.ok) return fail(who.code);
    const target = await deps.store.sessions.findById(input.target_session_id, deps.clock.now());
    if (target === null || (target.userId !== input.user_id && !who.superuser)) return fail('session_id_not_found');
    // The statement names the owner too, so it ends only the session that was checked.
    if (!(await deps.store.sessions.deleteById(target.sessionId, target.userId))) return fail('session_id_not_found');
    deps.audit.record({
      event: 'session.ended',
      reqid: meta.reqid,
      subject: { userId: target.userId },
      detail: { action: 'session-revoke', sessions: 1, by_superuser: target.userId !== input.user_id },
    });
    return ok({});
  },
});

export const deviceHandlers = {
  'session-list': sessionList,
  'session-revoke': sessionRevoke,
} satisfies FamilyHandlers<typeof deviceActions>;
