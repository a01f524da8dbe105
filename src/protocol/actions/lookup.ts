import { Type } from '@sinclair/typebox';
import { Id, JsonDict, LIMITS, Nullable, NullOnFailure, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { USER_RATE } from '../rate-class.js';
import { UserInfo } from '../user-info.js';

/** At most this many user info dicts in one answer of user-list or user-lookup-match. */
export const USER_PAGE_SIZE = 1000;
/**
 * A page of user-list or user-lookup-match also ends before its user info dicts pass this many bytes
 * of JSON (docs/design.md#stored-dicts-and-replies-are-bounded): with dicts of up to 64 KiB, 1000 users could not be
 * sealed in one reply.
 */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

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

const AfterUserId = Type.Optional(
  Id({ description: 'paging: only users with a larger user_id (pass the last user_id of the previous page)' }),
);
const HasMore = Type.Boolean({
  description: `true when more users follow this page (at most ${USER_PAGE_SIZE} users and 4 MiB per page)`,
});

const UserInfoList = NullOnFailure(Type.Array(UserInfo));

export const lookupActions = {
  'user-list': {
    summary:
      `Lists one user (user_id), or all users ordered by user_id (user_id null), ${USER_PAGE_SIZE} per page ` +
      '(fewer when their user info would pass 4 MiB); after_user_id pages on.',
    changesState: false,
    rate: USER_RATE,
    failures: ['user_not_found'],
    input: Type.Object({
      user_id: Nullable(Id({ description: 'the user to list; null lists all users' })),
      after_user_id: AfterUserId,
    }),
    output: Type.Object({ user_info: UserInfoList, has_more: HasMore }),
  },
  'user-lookup-email': {
    summary: 'Looks up a user by email (normalised: case-insensitive).',
    changesState: false,
    rate: USER_RATE,
    failures: ['user_not_found'],
    input: Type.Object({ email: Text(LIMITS.email, { description: 'the email to look up' }) }),
    output: Type.Object({ user_info: NullOnFailure(UserInfo) }),
  },
  'user-lookup-match': {
    summary:
      'Lists the users whose field `by` equals `match` (compared by the field’s type), ordered by user_id, ' +
      `${USER_PAGE_SIZE} per page (fewer past 4 MiB). For extra_info, match is a dict: every given top-level key must hold a ` +
      'deep-equal value (1, "1" and true differ); such a search that runs past 2 s answers busy (503).',
    changesState: false,
    rate: USER_RATE,
    failures: [],
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
} as const satisfies Record<string, ActionSpec>;
