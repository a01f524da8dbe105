/**
 * The data a condition sees (docs/design.md#rules-and-conditions): flat, null-prototype records holding only the
 * allow-listed variables, so `var` can reach neither Object.prototype (docs/design.md#json-logic-our-own-evaluator) nor
 * anything else.
 */
import type { AccessRequest, LimitRequest } from '../decision.js';
import { ANONYMOUS_ID } from '../../../../domain/fixed-accounts.js';
import type { Relation } from '../relation.js';
import type { Facts, FactValue } from './language.js';

/** The facts of no request (a policy without rules needs none). */
export const NO_FACTS: Facts = Object.freeze(Object.create(null) as Facts);

function record(entries: ReadonlyArray<readonly [string, FactValue]>): Facts {
  const facts = Object.create(null) as Record<string, FactValue>;
  for (const [name, value] of entries) facts[name] = value;
  return Object.freeze(facts);
}

/**
 * `target.is_owner`: the caller owns the item. `target.is_shared_with`: the caller is listed in
 * target_sharedwith, or the anonymous user 2 is (which shares the item with everyone), whoever owns it.
 */
export function accessFacts(request: AccessRequest, relation: Relation): Facts {
  return record([
    ['user.id', request.userId],
    ['user.role', request.role],
    ['action', request.action],
    ['target.name', request.item],
    ['target.owner', request.owner],
    ['target.visibility', request.visibility],
    ['target.sharedwith', Object.freeze([...request.sharedWith])],
    ['target.is_owner', relation === 'owner'],
    ['target.is_shared_with', request.sharedWith.includes(request.userId) || request.sharedWith.includes(ANONYMOUS_ID)],
  ]);
}

export function limitFacts(request: LimitRequest): Facts {
  return record([
    ['user.id', request.userId],
    ['user.role', request.role],
    ['limit_name', request.name],
    ['value', request.value],
  ]);
}
