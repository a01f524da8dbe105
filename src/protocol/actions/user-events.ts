/**
 * user-events (docs/design.md#security-history): a user's own security history, newest first, a page at a time.
 */
import { Type } from '@sinclair/typebox';
import { DateTimeOut, Id, LIMITS, NullOnFailure, Nullable } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { USER_RATE } from '../rate-class.js';
import { SessionToken } from './session.js';

/** One event as the user sees it: what, when, from where; the details carry counts and codes, never a secret. */
export const UserEvent = Type.Object({
  event_id: Type.Integer({ description: 'increasing; pass the last one seen as `before` for the next page' }),
  event: Type.String({ description: 'the audit event’s name (docs/events.md), e.g. login.failed, password.changed' }),
  time: DateTimeOut(),
  ip_address: Nullable(Type.String({ description: "the end user's IP address, when the event has one" })),
  user_agent: Nullable(Type.String({ description: "the end user's user agent, when the event has one" })),
  detail: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
    description: 'the event’s detail fields (docs/events.md)',
  }),
});

export const userEventActions = {
  'user-events': {
    summary:
      "Lists a user's security events newest first (logins and failed ones, lock-outs, password, email, factor, " +
      'API key and session changes), kept for `eventretention` days. A superuser may name another user with ' +
      'target_userid. Not for the system accounts (2, 3).',
    changesState: false,
    rate: USER_RATE,
    failures: ['session_not_found', 'session_user_mismatch', 'not_superuser', 'system_account'],
    input: Type.Object({
      user_id: Id({ description: 'the user asking (the session must be theirs)' }),
      session_token: SessionToken,
      target_userid: Type.Optional(Id({ description: "a superuser only: whose events (default: the asker's)" })),
      before: Type.Optional(Id({ description: 'only events older than this event_id (the next page)' })),
      limit: Type.Optional(
        Type.Integer({ minimum: 1, maximum: LIMITS.eventsPage, description: `at most this many (default 50)` }),
      ),
    }),
    output: Type.Object({
      events: NullOnFailure(Type.Array(UserEvent)),
      next_before: Nullable(Type.Integer({ description: 'the `before` of the next page; null: this was the last' })),
    }),
  },
} as const satisfies Record<string, ActionSpec>;
