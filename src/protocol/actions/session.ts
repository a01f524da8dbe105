import { Type } from '@sinclair/typebox';
import { DateTimeOut, Id, IpAddress, JsonDict, LIMITS, Nullable, NullOnFailure, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { INTERNAL_RATE, SESSION_RATE } from '../rate-class.js';

export const SessionToken = Text(LIMITS.token, { description: 'the session token (a cookie value)' });

/** The session itself, as internal-session-edit returns it. */
export const SessionRecord = Type.Object({
  user_id: Type.Integer(),
  session_token: Type.String(),
  ip_address: Type.String(),
  user_agent: Type.String(),
  created: DateTimeOut(),
  expires: DateTimeOut(),
  extra_info_json: Type.Record(Type.String(), Type.Unknown()),
});

/** `session_info` of session-exists: the reference's keys, the session's and its user's, and the session's public id. */
export const SessionInfo = Type.Object({
  ...SessionRecord.properties,
  session_id: Type.String({ description: "the session's public id (never its token): session-list, session-revoke" }),
  last_seen: DateTimeOut({ description: 'when session-exists last saw it (to within 5 minutes)' }),
  system_id: Type.String(),
  full_name: Nullable(Type.String()),
  email: Type.String(),
  extra_info: Nullable(Type.Record(Type.String(), Type.Unknown())),
  email_verified: Type.Boolean(),
  emailverify_sent_datetime: Nullable(DateTimeOut()),
  is_active: Type.Boolean(),
  last_login_try: Nullable(DateTimeOut()),
  last_login_success: Nullable(DateTimeOut()),
  created_on: DateTimeOut(),
  user_role: Type.String(),
});

export const sessionActions = {
  'session-new': {
    summary: 'Opens a session for a user (or the anonymous user) and returns its token.',
    changesState: true,
    rate: SESSION_RATE,
    failures: ['user_not_found'],
    input: Type.Object({
      ip_address: IpAddress({ description: "the end user's IP address" }),
      user_agent: Text(LIMITS.userAgent, { description: "the end user's user agent" }),
      user_id: Nullable(Id({ description: 'the user the session belongs to; null means the anonymous user (2)' })),
      expires: Type.Optional(
        Type.Union([
          Type.Integer({ minimum: 1, maximum: LIMITS.sessionDays, description: 'lifetime in days' }),
          Text(64, { description: 'an ISO 8601 datetime in the future (UTC when no offset)' }),
        ]),
      ),
      extra_info_json: Nullable(JsonDict({ description: 'arbitrary session information' })),
    }),
    output: Type.Object({
      session_token: NullOnFailure(Type.String()),
      expires: NullOnFailure(DateTimeOut()),
      session_id: NullOnFailure(Type.String({ description: "the session's public id (never its token)" })),
    }),
  },
  'session-exists': {
    summary: 'Looks up an unexpired session and its user.',
    changesState: false,
    rate: SESSION_RATE,
    failures: ['session_not_found'],
    input: Type.Object({ session_token: SessionToken }),
    output: Type.Object({ session_info: NullOnFailure(SessionInfo) }),
  },
  'session-delete': {
    summary: 'Deletes one session.',
    changesState: true,
    rate: SESSION_RATE,
    failures: ['session_not_found'],
    input: Type.Object({ session_token: SessionToken }),
    output: Type.Object({}),
  },
  'session-delete-userid': {
    summary: 'Deletes every session of a user, keeping the given one when keep_current_session is true.',
    changesState: true,
    rate: SESSION_RATE,
    failures: ['no_sessions'],
    input: Type.Object({
      session_token: SessionToken,
      user_id: Id(),
      keep_current_session: Type.Boolean(),
    }),
    output: Type.Object({ deleted_sessions: Type.Integer() }),
  },
  'internal-session-edit': {
    summary:
      "Adds, edits or deletes items of a session's extra_info_json (`__delete__` removes an item). " +
      'Internal: checks no permissions, so end-user input must never reach it.',
    changesState: true,
    rate: INTERNAL_RATE,
    failures: ['session_not_found', 'extra_info_too_large', 'edit_conflict'],
    input: Type.Object({
      target_session_token: SessionToken,
      update_dict: JsonDict({ minProperties: 1 }),
    }),
    output: Type.Object({ session_info: NullOnFailure(SessionRecord) }),
  },
} as const satisfies Record<string, ActionSpec>;
