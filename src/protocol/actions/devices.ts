/**
 * The devices family (docs/design.md#devices): a user's sessions named by their public ids, listed and ended one by
 * one, never by their tokens.
 */
import { Type } from '@sinclair/typebox';
import { DateTimeOut, Id, LIMITS, NullOnFailure, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { SESSION_RATE } from '../rate-class.js';
import { SessionToken } from './session.js';

const SessionId = Text(LIMITS.sessionId, { description: "a session's public id, from session-list or session_info" });

/** One of a user's sessions as session-list shows it: the device, never the token. */
export const DeviceSession = Type.Object({
  session_id: Type.String(),
  ip_address: Type.String(),
  user_agent: Type.String(),
  created: DateTimeOut(),
  last_seen: DateTimeOut(),
  expires: DateTimeOut(),
  current: Type.Boolean({ description: 'true for the session that asked' }),
});

/** Who asks: a live session of this user (a superuser may name another user's sessions). */
const Asker = {
  user_id: Id({ description: 'the user asking (the session must be theirs)' }),
  session_token: SessionToken,
};

export const deviceActions = {
  'session-list': {
    summary:
      "Lists a user's live sessions, one per device, the most recently seen first (at most 100): where and when, " +
      'never a token. A superuser may name another user with target_userid. Not for the system accounts (2, 3).',
    changesState: false,
    rate: SESSION_RATE,
    failures: ['session_not_found', 'session_user_mismatch', 'not_superuser', 'system_account'],
    input: Type.Object({
      ...Asker,
      target_userid: Type.Optional(Id({ description: "a superuser only: whose sessions (default: the asker's)" })),
    }),
    output: Type.Object({ sessions: NullOnFailure(Type.Array(DeviceSession)) }),
  },
  'session-revoke': {
    summary:
      "Ends one of the user's sessions by its session_id (a device logged out); a superuser may end anyone's. " +
      "The session's session-tied API keys go with it.",
    changesState: true,
    rate: SESSION_RATE,
    failures: ['session_not_found', 'session_user_mismatch', 'system_account', 'session_id_not_found'],
    input: Type.Object({ ...Asker, target_session_id: SessionId }),
    output: Type.Object({}),
  },
} as const satisfies Record<string, ActionSpec>;
