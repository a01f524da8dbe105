/**
 * The checks a schema cannot make: every name a part refers to must be declared, every role and item
 * must have its entry, the required roles must be there, an int limit must be whole. The schema has
 * already refused `manage`/`all` and malformed names. Problems are listed in document order.
 */
import type { PolicyDoc } from './document.js';
import { REQUIRED_ROLES, entriesOf, pointer } from './document.js';

export function semanticProblems(doc: PolicyDoc): string[] {
  const problems: string[] = [];
  const declared = {
    role: new Set(doc.roles),
    item: new Set(doc.items),
    action: new Set(doc.actions),
    visibility: new Set(doc.visibilities),
    'limit kind': new Set(Object.keys(doc.limits)),
  };
  type Kind = keyof typeof declared;
  const plural: Record<Kind, string> = {
    role: 'roles',
    item: 'items',
    action: 'actions',
    visibility: 'visibilities',
    'limit kind': 'limits',
  };
  const refer = (kind: Kind, name: string, at: string): void => {
    const a = /^[aeiou]/.test(kind) ? 'an' : 'a';
    if (!declared[kind].has(name)) problems.push(`${at}: "${name}" is not ${a} ${kind} declared in ${plural[kind]}`);
  };
  const referAll = (kind: Kind, names: readonly string[], at: string): void =>
    names.forEach((name, i) => refer(kind, name, `${at}/${i}`));

  const missing = REQUIRED_ROLES.filter((role) => !declared.role.has(role));
  if (missing.length > 0) problems.push(`/roles: lacks the required roles: ${missing.join(', ')}`);

  for (const [item, policy] of entriesOf(doc.item_policy)) {
    const at = pointer('item_policy', item);
    refer('item', item, at);
    referAll('action', policy.valid_role_actions, `${at}/valid_role_actions`);
    referAll('visibility', policy.valid_visibilities, `${at}/valid_visibilities`);
    referAll('role', policy.invalid_roles, `${at}/invalid_roles`);
  }
  for (const item of doc.items) {
    if (!Object.hasOwn(doc.item_policy, item)) problems.push(`/item_policy: has no entry for the item "${item}"`);
  }

  for (const [role, policy] of entriesOf(doc.role_policy)) {
    const at = pointer('role_policy', role);
    refer('role', role, at);
    referAll('item', policy.can_own_items, `${at}/can_own_items`);
    referAll('action', policy.allowed_actions_for_owned, `${at}/allowed_actions_for_owned`);
    for (const [visibility, actions] of entriesOf(policy.allowed_actions_for_other)) {
      const vat = `${at}/allowed_actions_for_other${pointer(visibility)}`;
      refer('visibility', visibility, vat);
      referAll('action', actions, vat);
    }
    for (const [name, limit] of entriesOf(policy.limits)) {
      const lat = `${at}/limits${pointer(name)}`;
      refer('limit kind', limit.type, `${lat}/type`);
      const kind = Object.hasOwn(doc.limits, limit.type) ? doc.limits[limit.type] : undefined;
      if (kind?.type === 'int' && !Number.isSafeInteger(limit.limit)) {
        problems.push(`${lat}/limit: ${limit.limit} is not a whole number, but the kind "${limit.type}" is int`);
      }
    }
  }
  for (const role of doc.roles) {
    if (!Object.hasOwn(doc.role_policy, role)) problems.push(`/role_policy: has no entry for the role "${role}"`);
  }
  return problems;
}
