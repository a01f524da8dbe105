import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTimeOut, Id, JsonDict, LIMITS, Nullable, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';

/**
 * The user info dict (DESIGN decision 13): the spec's keys plus the reference's (`email_verified`,
 * `failed_login_tries`, `last_updated`, the three `*_sent_datetime`). Never the password. Exported so
 * that other families (login, sign-up, passwords) can answer with the same dict.
 */
export const UserInfo = Type.Object({
  user_id: Type.Integer(),
  system_id: Type.String(),
  full_name: Nullable(Type.String()),
  email: Type.String(),
  email_verified: Type.Boolean(),
  is_active: Type.Boolean(),
  user_role: Type.String(),
  extra_info: Nullable(Type.Record(Type.String(), Type.Unknown())),
  created_on: DateTimeOut(),
  last_updated: DateTimeOut(),
  last_login_try: Nullable(DateTimeOut()),
  last_login_success: Nullable(DateTimeOut()),
  failed_login_tries: Type.Integer(),
  emailverify_sent_datetime: Nullable(DateTimeOut()),
  emailforgotpass_sent_datetime: Nullable(DateTimeOut()),
  emailchangepass_sent_datetime: Nullable(DateTimeOut()),
});

export type UserInfoDict = Static<typeof UserInfo>;

/** At most this many user info dicts in one answer of user-list or user-lookup-match. */
export const USER_PAGE_SIZE = 1000;

/** The fields user-lookup-match may match on (anything else is refused before any SQL). */
export const MATCH_FIELDS = [
  'user_id',
  'system_id',
  'full_name',
  'email',
  'is_active',
  'created_on',
  'user_role',
  'last_login_try',
  'last_login_success',
  'extra_info',
] as const;
export type MatchField = (typeof MATCH_FIELDS)[number];

const Email = (description: string) => Text(LIMITS.email, { description });
const SessionToken = (description: string) => Text(LIMITS.token, { description });
const Role = (description: string) => Text(LIMITS.role, { description });

const AfterUserId = Type.Optional(
  Id({ description: 'paging: only users with a larger user_id (pass the last user_id of the previous page)' }),
);
const HasMore = Type.Boolean({
  description: `true when more users follow this page (at most ${USER_PAGE_SIZE} per page)`,
});

/** The initiator of user-edit and user-lock: a session of that user, holding that role. */
const Initiator = {
  user_id: Id({ description: 'the initiating user' }),
  user_role: Role("the initiating user's role (must be the stored one)"),
  session_token: SessionToken("a session of the initiating user (unexpired, of user_id's own)"),
};

const UserInfoList = Nullable(Type.Array(UserInfo));

export const userActions = {
  'user-list': {
    summary:
      `Lists one user (user_id), or all users ordered by user_id (user_id null), ${USER_PAGE_SIZE} per page; ` +
      'after_user_id pages on.',
    changesState: false,
    input: Type.Object({
      user_id: Nullable(Id({ description: 'the user to list; null lists all users' })),
      after_user_id: AfterUserId,
    }),
    output: Type.Object({ user_info: UserInfoList, has_more: HasMore }),
  },
  'user-lookup-email': {
    summary: 'Looks up a user by email (normalised: case-insensitive).',
    changesState: false,
    input: Type.Object({ email: Email('the email to look up') }),
    output: Type.Object({ user_info: Nullable(UserInfo) }),
  },
  'user-lookup-match': {
    summary:
      'Lists the users whose field `by` equals `match` (compared by the field’s type), ordered by user_id, ' +
      `${USER_PAGE_SIZE} per page. For extra_info, match is a dict: every given top-level key must hold a ` +
      'deep-equal value (1, "1" and true differ).',
    changesState: false,
    input: Type.Object({
      by: Type.Unsafe<MatchField>({
        type: 'string',
        enum: [...MATCH_FIELDS],
        description: `one of ${MATCH_FIELDS.join(', ')}`,
      }),
      match: Type.Union([Text(LIMITS.fullName), Id(), Type.Boolean(), Type.Null(), JsonDict({ minProperties: 1 })], {
        description:
          'int for user_id; bool for is_active; an ISO 8601 datetime for created_on and last_login_* (null: never); ' +
          'a non-empty dict for extra_info; a str otherwise (email and full_name normalised as stored)',
      }),
      after_user_id: AfterUserId,
    }),
    output: Type.Object({ user_info: UserInfoList, has_more: HasMore }),
  },
  'user-edit': {
    summary:
      'A user edits their own full_name and email; a superuser edits anyone’s, and also is_active and user_role ' +
      '(a role of the policy). The initiator’s session must be theirs and the role their stored one.',
    changesState: true,
    input: Type.Object({
      ...Initiator,
      target_userid: Id({ description: 'the user to edit' }),
      update_dict: JsonDict({
        minProperties: 1,
        description: 'full_name, email; for superusers also is_active, user_role',
      }),
    }),
    output: Type.Object({ user_info: Nullable(UserInfo) }),
  },
  'user-lock': {
    summary:
      'A superuser locks a user (role locked, inactive, sessions and API keys ended) or unlocks them (the previous ' +
      'role and activity back). Never on self nor on accounts 2 and 3.',
    changesState: true,
    input: Type.Object({
      ...Initiator,
      target_userid: Id({ description: 'the user to lock or unlock' }),
      action: Type.Unsafe<'lock' | 'unlock'>({
        type: 'string',
        enum: ['lock', 'unlock'],
        description: 'lock or unlock',
      }),
    }),
    output: Type.Object({
      user_info: Nullable(UserInfo),
      locked: Nullable(Type.Boolean({ description: 'whether the account is now locked by a superuser' })),
    }),
  },
  'user-delete': {
    summary:
      'Deletes a user matching both user_id and email, with their sessions and keys. The password is needed unless ' +
      'session_token is a superuser’s session; superusers and accounts 1–3 cannot be deleted.',
    changesState: true,
    input: Type.Object({
      email: Email('the email of the user to delete'),
      user_id: Id({ description: 'the user to delete' }),
      password: Type.Optional(Text(LIMITS.passwordWire, { description: "the user's password" })),
      session_token: Type.Optional(SessionToken('a superuser’s session: then the password may be omitted (extension)')),
    }),
    output: Type.Object({ user_id: Nullable(Type.Integer()), email: Nullable(Type.String()) }),
  },
  'internal-user-edit': {
    summary:
      'Edits any user’s full_name, email, email_verified, is_active, user_role or extra_info (merged; `__delete__` ' +
      'removes an item). Internal: checks no permissions, so end-user input must never reach it.',
    changesState: true,
    input: Type.Object({
      target_userid: Id({ description: 'the user to edit' }),
      update_dict: JsonDict({ minProperties: 1 }),
    }),
    output: Type.Object({ user_info: Nullable(UserInfo) }),
  },
  'user-set-emailverified': {
    summary:
      'Marks an unverified user verified, active and (when locked) authenticated; on anyone else it changes nothing ' +
      'and answers with the current values.',
    changesState: true,
    input: Type.Object({ email: Email('the verified email') }),
    output: Type.Object({
      user_id: Nullable(Type.Integer()),
      user_role: Nullable(Type.String()),
      is_active: Nullable(Type.Boolean()),
      emailverify_sent_datetime: Nullable(DateTimeOut()),
    }),
  },
  'user-set-emailsent': {
    summary: 'Records that a sign-up or forgot-password email was sent by other means (now, by the server’s clock).',
    changesState: true,
    input: Type.Object({
      email: Email('the address the email went to'),
      email_type: Type.Unsafe<'signup' | 'forgotpass'>({
        type: 'string',
        enum: ['signup', 'forgotpass'],
        description: 'signup or forgotpass',
      }),
    }),
    output: Type.Object({
      user_id: Nullable(Type.Integer()),
      email: Nullable(Type.String()),
      user_role: Nullable(Type.String()),
      is_active: Nullable(Type.Boolean()),
      emailverify_sent_datetime: Nullable(DateTimeOut()),
      emailforgotpass_sent_datetime: Nullable(DateTimeOut()),
    }),
  },
} as const satisfies Record<string, ActionSpec>;
