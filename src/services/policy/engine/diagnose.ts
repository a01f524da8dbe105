/**
 * Why a request is denied, for the explanation: the first failing check of the reference algorithm
 * (§4.3), in a fixed order — the item's own restrictions, the relationship gate, then the owner's
 * case or the role's actions on other users' items. The decision itself is CASL's; this only names the cause.
 */
import { pointer } from './document.js';
import type { CompiledPolicy, ItemRules, RoleRules } from './compiled-policy.js';
import type { AccessCheck, AccessRequest, Explanation } from './decision.js';
import { policyExplanation } from './decision.js';
import { gateOpensTo } from './relation.js';
import type { Relation } from './relation.js';

/** One request's denial being explained: the request, the caller's relation, and the tables that apply. */
interface Denial {
  readonly request: AccessRequest;
  readonly relation: Relation;
  readonly itemRules: ItemRules;
  readonly roleRules: RoleRules;
}

type Cause = (denial: Denial) => Explanation<AccessCheck> | null;

const itemAt = ({ request }: Denial, key: string): string => pointer('item_policy', request.item, key);
const roleAt = ({ request }: Denial, ...path: string[]): string => pointer('role_policy', request.role, ...path);

const roleInvalidForItem: Cause = (d) => {
  const { role, item } = d.request;
  if (!d.itemRules.invalidRoles.has(role)) return null;
  const reason = `the role "${role}" may never act on "${item}" items (listed in its invalid_roles)`;
  return policyExplanation('role-invalid-for-item', reason, [itemAt(d, 'invalid_roles')]);
};

const visibilityInvalidForItem: Cause = (d) => {
  const { item, visibility } = d.request;
  if (d.itemRules.validVisibilities.has(visibility)) return null;
  const reason = `"${item}" items cannot have the visibility "${visibility}" (not in its valid_visibilities)`;
  return policyExplanation('visibility-invalid-for-item', reason, [itemAt(d, 'valid_visibilities')]);
};

const actionInvalidForItem: Cause = (d) => {
  const { item, action } = d.request;
  if (d.itemRules.validActions.has(action)) return null;
  const reason = `the action "${action}" is never taken on "${item}" items (not in its valid_role_actions)`;
  return policyExplanation('action-invalid-for-item', reason, [itemAt(d, 'valid_role_actions')]);
};

const GATE_REASONS: Readonly<Record<string, (userId: number) => string>> = {
  private: (userId) => `the item is private and user ${userId} does not own it`,
  shared: (userId) => `the item is shared and user ${userId} neither owns it nor is listed in target_sharedwith`,
};

const relationshipGate: Cause = ({ request, relation }) => {
  const { role, visibility, userId } = request;
  if (gateOpensTo(role, visibility).has(relation)) return null;
  const why = Object.hasOwn(GATE_REASONS, visibility) ? GATE_REASONS[visibility] : undefined;
  const reason =
    why?.(userId) ?? `the relationship gate knows no visibility "${visibility}", so only superuser and staff pass it`;
  return policyExplanation('relationship-gate', reason);
};

const roleCannotOwnItem: Cause = (d) => {
  const { role, item, userId } = d.request;
  if (d.relation !== 'owner' || d.roleRules.canOwn.has(item)) return null;
  const reason = `user ${userId} owns the item, but the role "${role}" cannot own "${item}" items, so the owner may do nothing with it`;
  return policyExplanation('role-cannot-own-item', reason, [roleAt(d, 'can_own_items')]);
};

const notAllowedForOwned: Cause = (d) => {
  const { role, action } = d.request;
  if (d.relation !== 'owner' || d.roleRules.owned.has(action)) return null;
  const reason = `the role "${role}" may not "${action}" items it owns (not in its allowed_actions_for_owned)`;
  return policyExplanation('not-allowed-for-owned', reason, [roleAt(d, 'allowed_actions_for_owned')]);
};

const notAllowedForOther: Cause = (d) => {
  const { role, action, visibility } = d.request;
  if (d.relation === 'owner' || (d.roleRules.other.get(visibility)?.has(action) ?? false)) return null;
  const reason = `the role "${role}" may not "${action}" other users' ${visibility} items (not in its allowed_actions_for_other.${visibility})`;
  return policyExplanation('not-allowed-for-other', reason, [roleAt(d, 'allowed_actions_for_other', visibility)]);
};

/** The checks of §4.3 in the reference's order: the first that fails names the cause. */
const CAUSES: readonly Cause[] = [
  roleInvalidForItem,
  visibilityInvalidForItem,
  actionInvalidForItem,
  relationshipGate,
  roleCannotOwnItem,
  notAllowedForOwned,
  notAllowedForOther,
];

export function diagnoseDenial(
  policy: CompiledPolicy,
  request: AccessRequest,
  relation: Relation,
): Explanation<AccessCheck> | null {
  const itemRules = policy.itemPolicy.get(request.item);
  const roleRules = policy.rolePolicy.get(request.role);
  if (itemRules === undefined || roleRules === undefined) return null;
  const denial: Denial = { request, relation, itemRules, roleRules };
  for (const cause of CAUSES) {
    const explanation = cause(denial);
    if (explanation !== null) return explanation;
  }
  return null;
}
