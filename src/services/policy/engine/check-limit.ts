/**
 * The pure limit decision (reference §4.4): a role without a limit of that name passes; otherwise the
 * value and the limit are read as the limit kind says (int truncates toward zero, as Python's int())
 * and compared: `lt` passes when value < limit, `gt` when value > limit. A limit given as a rule
 * (docs/design.md#rules-and-conditions) passes when its JSON-Logic condition holds for the request.
 */
import type { CompiledPolicy } from './compiled-policy.js';
import type { LimitDecision, LimitRequest } from './decision.js';
import { policyExplanation } from './decision.js';
import { pointer } from './document.js';
import { limitFacts } from './logic/facts.js';

export function checkLimit(policy: CompiledPolicy, request: LimitRequest): LimitDecision {
  const { role, name } = request;
  const limits = policy.limits.get(role);
  if (!policy.roles.has(role) || limits === undefined) {
    return {
      passed: false,
      explanation: policyExplanation('unknown-role', `the role "${role.slice(0, 100)}" is not in the policy`),
    };
  }
  const limit = limits.get(name);
  if (limit === undefined) {
    return {
      passed: true,
      explanation: policyExplanation(
        'no-such-limit',
        `the role "${role}" has no limit named "${name.slice(0, 100)}", so every value passes`,
        [pointer('role_policy', role, 'limits')],
      ),
    };
  }
  if (limit.kind === 'rule') {
    const passed = limit.passes(limitFacts(request));
    return {
      passed,
      explanation: policyExplanation(
        passed ? 'limit-passed' : 'limit-failed',
        `the role "${role}" has ${name} as a rule, which the value ${request.value} ${passed ? 'satisfies' : 'does not satisfy'}`,
        limit.policy,
      ),
    };
  }
  const read = limit.numeric === 'int' ? Math.trunc : (x: number): number => x;
  // `+ 0` turns the -0 of Math.trunc(-0.5) into 0 for the explanation.
  const value = read(request.value) + 0;
  const bound = read(limit.limit) + 0;
  const passed = limit.operator === 'lt' ? value < bound : value > bound;
  const sign = limit.operator === 'lt' ? '<' : '>';
  const statement = `${value} ${sign} ${bound}`;
  return {
    passed,
    explanation: policyExplanation(
      passed ? 'limit-passed' : 'limit-failed',
      `the role "${role}" has ${name} = ${bound} of kind "${limit.limitType}" (${limit.numeric}, passes when value ${sign} limit): ${passed ? statement : `not ${statement}`}`,
      limit.policy,
    ),
  };
}
