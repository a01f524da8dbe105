/**
 * Why a request is denied, for the explanation: the first failing check of the reference algorithm
 * (§4.3), in a fixed order — the item's own restrictions, the relationship gate, then the owner's
 * case or the role's actions on other users' items. The decision itself is CASL's; this only names the cause.
 */
import { pointer } from './document.js';
import type { CompiledPolicy } from './compiled-policy.js';
import type { AccessCheck, AccessRequest, Explanation } from './decision.js';
import { policyExplanation } from './decision.js';
import { gateOpensTo } from './relation.js';
import type { Relation } from './relation.js';

export function diagnoseDenial(
  policy: CompiledPolicy,
  request: AccessRequest,
  relation: Relation,
): Explanation<AccessCheck> | null {
  const { role, item, action, visibility } = request;
  const itemRules = policy.itemPolicy.get(item);
  const roleRules = policy.rolePolicy.get(role);
  if (itemRules === undefined || roleRules === undefined) return null;
  const itemAt = (key: string): string => pointer('item_policy', item, key);
  const roleAt = (...path: string[]): string => pointer('role_policy', role, ...path);

  if (itemRules.invalidRoles.has(role)) {
    return policyExplanation(
      'role-invalid-for-item',
      `the role "${role}" may never act on "${item}" items (listed in its invalid_roles)`,
      [itemAt('invalid_roles')],
    );
  }
  if (!itemRules.validVisibilities.has(visibility)) {
    return policyExplanation(
      'visibility-invalid-for-item',
      `"${item}" items cannot have the visibility "${visibility}" (not in its valid_visibilities)`,
      [itemAt('valid_visibilities')],
    );
  }
  if (!itemRules.validActions.has(action)) {
    return policyExplanation(
      'action-invalid-for-item',
      `the action "${action}" is never taken on "${item}" items (not in its valid_role_actions)`,
      [itemAt('valid_role_actions')],
    );
  }
  if (!gateOpensTo(role, visibility).has(relation)) {
    const why =
      visibility === 'private'
        ? `the item is private and user ${request.userId} does not own it`
        : visibility === 'shared'
          ? `the item is shared and user ${request.userId} neither owns it nor is listed in target_sharedwith`
          : `the relationship gate knows no visibility "${visibility}", so only superuser and staff pass it`;
    return policyExplanation('relationship-gate', why);
  }
  if (relation === 'owner') {
    if (!roleRules.canOwn.has(item)) {
      return policyExplanation(
        'role-cannot-own-item',
        `user ${request.userId} owns the item, but the role "${role}" cannot own "${item}" items, so the owner may do nothing with it`,
        [roleAt('can_own_items')],
      );
    }
    if (!roleRules.owned.has(action)) {
      return policyExplanation(
        'not-allowed-for-owned',
        `the role "${role}" may not "${action}" items it owns (not in its allowed_actions_for_owned)`,
        [roleAt('allowed_actions_for_owned')],
      );
    }
    return null;
  }
  if (!(roleRules.other.get(visibility)?.has(action) ?? false)) {
    return policyExplanation(
      'not-allowed-for-other',
      `the role "${role}" may not "${action}" other users' ${visibility} items (not in its allowed_actions_for_other.${visibility})`,
      [roleAt('allowed_actions_for_other', visibility)],
    );
  }
  return null;
}
