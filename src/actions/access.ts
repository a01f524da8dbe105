/**
 * user-check-access and user-check-limit (docs/design.md#access-and-limit-checks): the pure policy decision first; on
 * an allow, one query reads the caller, the owner and the shared-with users, which must exist and be
 * active (the caller with the role it claims). Nothing is cached, so a lock, an unlock or a role
 * change shows in the very next check. Every answer carries its explanation; end users only ever see
 * "granted: True/False".
 */
import { fail, invalid, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import { checkAccess } from '../services/policy/engine/check-access.js';
import { checkLimit } from '../services/policy/engine/check-limit.js';
import type { AccessCheck, Explanation } from '../services/policy/engine/decision.js';
import { parseSharedWith } from '../services/policy/engine/shared-with.js';
import type { UserStanding } from '../services/store/index.js';
import { defineAction } from './define.js';
import type { FamilyHandlers } from './define.js';
import type { accessActions } from '../protocol/actions/access.js';
import type { ActionInput, ActionOutput } from '../protocol/index.js';
import type { Deps } from './define.js';

const ACCESS_DENIED = 'Access request check successful. Access granted: False.';
const LIMIT_FAILED = 'Limit check successful. Limit check passed: False.';

const explain = (stage: 'request' | 'database', check: string, reason: string): Explanation => ({
  stage,
  check,
  reason,
  policy: [],
});

/** A deny rule of the DSL refuses as the tables do: "action not permitted". */
function denialCode(check: AccessCheck): AccessFailure {
  if (check === 'unknown-role') return 'role_not_in_policy';
  if (check === 'unknown-item' || check === 'unknown-action' || check === 'unknown-visibility') {
    return 'name_not_in_policy';
  }
  return 'access_denied';
}

/** Why the caller is refused, or null when it exists with the role it claims and is active. */
function callerProblem(userId: number, role: string, standing: UserStanding | undefined): string | null {
  if (standing === undefined) return `user ${userId} does not exist`;
  if (standing.userRole !== role) return `user ${userId} holds the role "${standing.userRole}", not "${role}"`;
  if (!standing.isActive) return `user ${userId} is not active`;
  return null;
}

const listed = (ids: readonly number[]): string =>
  ids.length <= 10 ? ids.join(', ') : `${ids.slice(0, 10).join(', ')} and ${ids.length - 10} more`;

type AccessFailure =
  'access_denied' | 'role_not_in_policy' | 'name_not_in_policy' | 'caller_not_valid' | 'target_users_not_valid';

type CheckAccessInput = ActionInput<'user-check-access'>;
const NONE_READ: ReadonlyMap<number, UserStanding> = new Map();
type CheckAccessResult = Result<ActionOutput<'user-check-access'>, AccessFailure | 'invalid_params'>;

/**
 * user-check-access's decision, and the standings it read (none when the policy alone refused): an API
 * key's issuance records the owner's credential generation from this very read (docs/design.md#revocation-fence).
 */
export async function decideAccess(
  deps: Deps,
  input: CheckAccessInput,
): Promise<{ readonly result: CheckAccessResult; readonly standings: ReadonlyMap<number, UserStanding> }> {
  const shared = parseSharedWith(input.target_sharedwith);
  if (!shared.ok) {
    const result = invalid([{ param: 'target_sharedwith', problem: 'invalid value', required_type: 'str' }], {
      relation: null,
      explanation: explain('request', 'invalid-shared-with', `target_sharedwith: ${shared.problem}`),
    });
    return { result, standings: NONE_READ };
  }
  const decision = checkAccess(deps.policy.current(), {
    userId: input.user_id,
    role: input.user_role,
    action: input.action,
    item: input.target_name,
    owner: input.target_owner,
    visibility: input.target_visibility,
    sharedWith: shared.ids,
  });
  const { relation } = decision;
  if (!decision.allowed) {
    const result = fail(denialCode(decision.explanation.check), { relation, explanation: decision.explanation });
    return { result, standings: NONE_READ };
  }

  const standings = await deps.store.users.standings([input.user_id, input.target_owner, ...shared.ids]);
  const caller = callerProblem(input.user_id, input.user_role, standings.get(input.user_id));
  if (caller !== null) {
    const result = fail('caller_not_valid', { relation, explanation: explain('database', 'caller', caller) });
    return { result, standings };
  }
  const absent = [input.target_owner, ...shared.ids].filter((id) => standings.get(id)?.isActive !== true);
  if (absent.length > 0) {
    const result = fail('target_users_not_valid', {
      relation,
      explanation: explain(
        'database',
        'owner-and-shared-with',
        `the owner and the shared-with users must exist and be active; user ${listed(absent)} ${absent.length === 1 ? 'does' : 'do'} not or ${absent.length === 1 ? 'is' : 'are'} inactive`,
      ),
    });
    return { result, standings };
  }
  return { result: ok({ relation, explanation: decision.explanation }), standings };
}

const userCheckAccess = defineAction('user-check-access', {
  messages: {
    ok: 'Access request check successful. Access granted: True.',
    failures: {
      access_denied: ACCESS_DENIED,
      role_not_in_policy: ACCESS_DENIED,
      name_not_in_policy: ACCESS_DENIED,
      caller_not_valid: ACCESS_DENIED,
      target_users_not_valid: ACCESS_DENIED,
    },
  },
  handle: async (deps, input) => (await decideAccess(deps, input)).result,
});

const userCheckLimit = defineAction('user-check-limit', {
  messages: {
    ok: 'Limit check successful. Limit check passed: True.',
    failures: { over_limit: LIMIT_FAILED, role_not_in_policy: LIMIT_FAILED, caller_not_found: LIMIT_FAILED },
  },
  async handle(deps, input) {
    const decision = checkLimit(deps.policy.current(), {
      userId: input.user_id,
      role: input.user_role,
      name: input.limit_name,
      value: input.value_to_check,
    });
    const { explanation } = decision;
    if (!decision.passed) {
      return fail(explanation.check === 'unknown-role' ? 'role_not_in_policy' : 'over_limit', { explanation });
    }
    const standings = await deps.store.users.standings([input.user_id]);
    const caller = callerProblem(input.user_id, input.user_role, standings.get(input.user_id));
    if (caller !== null) return fail('caller_not_found', { explanation: explain('database', 'caller', caller) });
    return ok({ explanation });
  },
});

export const accessHandlers = {
  'user-check-access': userCheckAccess,
  'user-check-limit': userCheckLimit,
} satisfies FamilyHandlers<typeof accessActions>;
