/**
 * The pure access decision (no database): the reference algorithm of §4.3 as compiled CASL rules.
 * The relation is computed first; unknown names are denied with their own reason (never an exception);
 * the deciding CASL rule explains the decision — a deny rule or an allow rule of the DSL by its own
 * reason, a table rule by the lists that grant — and diagnose.ts a denial no rule made.
 */
import type { CompiledPolicy } from './compiled-policy.js';
import type { AccessCheck, AccessDecision, AccessRequest } from './decision.js';
import { policyExplanation } from './decision.js';
import { diagnoseDenial } from './diagnose.js';
import { NO_FACTS, accessFacts } from './logic/facts.js';
import { ANONYMOUS_ID } from '../../../domain/fixed-accounts.js';
import { GATE_FREE_ROLES, relationOf } from './relation.js';
import type { Relation } from './relation.js';

function unknownName(policy: CompiledPolicy, request: AccessRequest): AccessDecision['explanation'] | null {
  const names: ReadonlyArray<readonly [AccessCheck, string, string, ReadonlySet<string>]> = [
    ['unknown-role', 'role', request.role, policy.roles],
    ['unknown-item', 'item', request.item, policy.items],
    ['unknown-action', 'action', request.action, policy.actions],
    ['unknown-visibility', 'visibility', request.visibility, policy.visibilities],
  ];
  for (const [check, kind, name, declared] of names) {
    if (!declared.has(name)) {
      return policyExplanation(check, `the ${kind} "${name.slice(0, 100)}" is not in the policy`);
    }
  }
  return null;
}

function howRelated(request: AccessRequest, relation: Relation): string {
  if (relation === 'owner') return `user ${request.userId} owns the item`;
  if (GATE_FREE_ROLES.has(request.role)) return `the role "${request.role}" skips the relationship gate`;
  if (relation === 'shared') {
    return request.sharedWith.includes(request.userId)
      ? `user ${request.userId} is listed in target_sharedwith`
      : `the anonymous user ${ANONYMOUS_ID} is listed in target_sharedwith, which shares the item with everyone`;
  }
  return `the item is ${request.visibility}`;
}

export function checkAccess(policy: CompiledPolicy, request: AccessRequest): AccessDecision {
  const relation = relationOf(request.userId, request.owner, request.sharedWith);
  const unknown = unknownName(policy, request);
  if (unknown !== null) return { allowed: false, relation, explanation: unknown };
  const ability = policy.abilities.get(request.role);
  // Facts serve only the DSL's conditions: a policy without rules skips building them.
  const facts = policy.rules.length > 0 ? accessFacts(request, relation) : NO_FACTS;
  const subject = { item: request.item, visibility: request.visibility, relation, facts };
  const rule = ability?.relevantRuleFor(request.action, subject) ?? null;
  const conditions = rule?.conditions;
  if (conditions?.kind === 'rule') {
    const { effect, pointer, reason } = conditions.rule;
    return {
      allowed: effect === 'allow',
      relation,
      explanation: policyExplanation(effect === 'allow' ? 'allowed-by-rule' : 'denied-by-rule', reason, [pointer]),
    };
  }
  if (conditions !== undefined && rule?.inverted === false) {
    const { grant } = conditions;
    return {
      allowed: true,
      relation,
      explanation: policyExplanation(
        grant.check,
        `"${request.action}" is allowed: ${howRelated(request, relation)}; ${grant.reason}`,
        grant.policy,
      ),
    };
  }
  const explanation =
    diagnoseDenial(policy, request, relation) ?? policyExplanation('no-rule', 'no rule of the policy allows it');
  return { allowed: false, relation, explanation };
}
