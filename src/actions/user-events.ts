/**
 * user-events (docs/design.md#security-history): the asker's own security history, or, for a superuser, anyone's.
 * The same asking rules as session-list: a live session of the named user, never a system account.
 */
import { fail, ok } from '../domain/result.js';
import { formatDateTime } from '../protocol/index.js';
import type { userEventActions } from '../protocol/actions/user-events.js';
import { defineAction } from './define.js';
import type { FamilyHandlers } from './define.js';
import { asker, isSystemAccount } from './devices.js';
import { NO_SESSION, NOT_YOURS } from './factors.js';

const DEFAULT_PAGE = 50;

const userEvents = defineAction('user-events', {
  messages: {
    ok: 'Your security history.',
    failures: {
      session_not_found: NO_SESSION,
      session_user_mismatch: NOT_YOURS,
      not_superuser: "You don't have the privileges to see other users' history.",
      system_account: "The system accounts' history is not shown.",
    },
  },
  async handle(deps, input) {
    const none = { events: null, next_before: null };
    const who = await asker(deps, input.session_token, input.user_id);
    if (!who.ok) return fail(who.code, none);
    const target = input.target_userid ?? input.user_id;
    if (target !== input.user_id && !who.superuser) return fail('not_superuser', none);
    if (isSystemAccount(target)) return fail('system_account', none);
    const limit = input.limit ?? DEFAULT_PAGE;
    // One more than the page tells whether another page follows.
    const rows = await deps.store.userEvents.list(target, deps.clock.now(), input.before ?? null, limit + 1);
    const page = rows.slice(0, limit);
    return ok({
      events: page.map((e) => ({
        event_id: e.eventId,
        event: e.event,
        time: formatDateTime(e.time),
        ip_address: e.ipAddress,
        user_agent: e.userAgent,
        detail: { ...e.detail },
      })),
      next_before: rows.length > limit ? (page.at(-1)?.eventId ?? null) : null,
    });
  },
});

export const userEventHandlers = {
  'user-events': userEvents,
} satisfies FamilyHandlers<typeof userEventActions>;
