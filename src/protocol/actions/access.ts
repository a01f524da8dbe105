import { Type } from '@sinclair/typebox';
import { Id, LIMITS, Nullable, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { USER_RATE } from '../rate-class.js';

/** A name of the policy (role, item, action, visibility, limit): as long as a stored role may be. */
const PolicyName = (description: string) => Text(LIMITS.role, { description });

/** 1,000 ids of 10 digits with separators and some blanks. */
const SHARED_WITH_MAX_LENGTH = 32_768;

/** Every decision says which check decided and why (for the frontend and its operators, never end users). */
export const Explanation = Type.Object({
  stage: Type.Union([Type.Literal('request'), Type.Literal('policy'), Type.Literal('database')], {
    description:
      'request: an item was refused; policy: the permissions policy decided; database: the checks on the users decided',
  }),
  check: Type.String({ description: 'the check that decided, e.g. allowed-for-owned, relationship-gate' }),
  reason: Type.String({ description: 'one sentence saying why' }),
  policy: Type.Array(Type.String(), { description: 'JSON pointers of the policy parts that decided' }),
});

const Relation = Type.Union([Type.Literal('owner'), Type.Literal('shared'), Type.Literal('other')], {
  description: "the caller's relation to the item: owner, shared (listed in target_sharedwith, or everyone is), other",
});

export const accessActions = {
  'user-check-access': {
    summary:
      'Checks whether a user may take an action on an item under the permissions policy, then that the caller, ' +
      'the owner and the shared-with users exist and are active. success true means access is granted.',
    changesState: false,
    rate: USER_RATE,
    failures: [
      'access_denied',
      'role_not_in_policy',
      'name_not_in_policy',
      'caller_not_valid',
      'target_users_not_valid',
    ],
    input: Type.Object({
      user_id: Id({ description: 'the user asking' }),
      user_role: PolicyName("the user's role (must be the stored one)"),
      action: PolicyName('the action, e.g. view'),
      target_name: PolicyName('the item, e.g. dataset'),
      target_owner: Id({ description: "the owner's user id" }),
      target_visibility: PolicyName("the item's visibility, e.g. private"),
      target_sharedwith: Text(SHARED_WITH_MAX_LENGTH, {
        description: 'comma-separated user ids (at most 1,000; blanks ignored); empty or "none" means nobody',
      }),
    }),
    output: Type.Object({
      relation: Nullable(Relation),
      explanation: Explanation,
    }),
  },
  'user-check-limit': {
    summary:
      "Checks a value against one of the role's limits, then that the caller exists with that role and is " +
      'active. success true means the user is under the limit.',
    changesState: false,
    rate: USER_RATE,
    failures: ['over_limit', 'role_not_in_policy', 'caller_not_found'],
    input: Type.Object({
      user_id: Id({ description: 'the user asking' }),
      user_role: PolicyName("the user's role (must be the stored one)"),
      limit_name: PolicyName('the limit, e.g. max_requests'),
      value_to_check: Type.Number({ description: 'the value to compare with the limit: a finite number' }),
    }),
    output: Type.Object({ explanation: Explanation }),
  },
} as const satisfies Record<string, ActionSpec>;
