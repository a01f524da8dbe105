/**
 * The checks a schema cannot make, run even when the structure has problems (so one run reports
 * everything): every name a part refers to must be declared, every role and item must have its
 * entry, the required roles must be there, an int limit must be whole; then the rules (rules-check.ts).
 * Parts whose structure is wrong are skipped here: the schema has already reported them, and a list of
 * declarations that is not a list declares nothing we could check against.
 */
import { REQUIRED_ROLES, pointer } from '../engine/document.js';
import type { Problem } from './problems.js';
import { ruleProblems } from './rules-check.js';
import { isRecord, names, recordOf, referrer } from './shape.js';
import type { Declared } from './shape.js';

export function semanticProblems(doc: unknown): Problem[] {
  if (!isRecord(doc)) return [];
  const problems: Problem[] = [];
  const limitKinds = recordOf(doc['limits']);
  const declared: Declared = {
    role: names(doc['roles']),
    item: names(doc['items']),
    action: names(doc['actions']),
    visibility: names(doc['visibilities']),
    'limit kind': limitKinds === null ? null : new Set(Object.keys(limitKinds)),
  };
  const { refer, referAll } = referrer(declared, problems);

  if (declared.role !== null) {
    const roles = declared.role;
    const missing = REQUIRED_ROLES.filter((role) => !roles.has(role));
    if (missing.length > 0) {
      problems.push({
        pointer: '/roles',
        kind: 'required-role',
        message: `lacks the required roles: ${missing.join(', ')} (the fixed accounts and new users hold them)`,
      });
    }
  }

  const itemPolicy = recordOf(doc['item_policy']);
  if (itemPolicy !== null) {
    for (const [item, policy] of Object.entries(itemPolicy)) {
      const at = pointer('item_policy', item);
      refer('item', item, at);
      if (!isRecord(policy)) continue;
      referAll('action', policy['valid_role_actions'], `${at}/valid_role_actions`);
      referAll('visibility', policy['valid_visibilities'], `${at}/valid_visibilities`);
      referAll('role', policy['invalid_roles'], `${at}/invalid_roles`);
    }
    for (const item of declared.item ?? []) {
      if (!Object.hasOwn(itemPolicy, item)) {
        problems.push({
          pointer: '/item_policy',
          kind: 'missing-entry',
          message: `has no entry for the item "${item}"`,
        });
      }
    }
  }

  const rolePolicy = recordOf(doc['role_policy']);
  if (rolePolicy !== null) {
    for (const [role, policy] of Object.entries(rolePolicy)) {
      const at = pointer('role_policy', role);
      refer('role', role, at);
      if (!isRecord(policy)) continue;
      referAll('item', policy['can_own_items'], `${at}/can_own_items`);
      referAll('action', policy['allowed_actions_for_owned'], `${at}/allowed_actions_for_owned`);
      for (const [visibility, actions] of Object.entries(recordOf(policy['allowed_actions_for_other']) ?? {})) {
        const vat = `${at}/allowed_actions_for_other${pointer(visibility)}`;
        refer('visibility', visibility, vat);
        referAll('action', actions, vat);
      }
      for (const [name, limit] of Object.entries(recordOf(policy['limits']) ?? {})) {
        if (!isRecord(limit) || Object.hasOwn(limit, 'rule')) continue; // rules: rules-check.ts
        const lat = `${at}/limits${pointer(name)}`;
        refer('limit kind', limit['type'], `${lat}/type`);
        const type = limit['type'];
        const kind =
          typeof type === 'string' && limitKinds !== null && Object.hasOwn(limitKinds, type)
            ? recordOf(limitKinds[type])
            : null;
        const value = limit['limit'];
        if (kind?.['type'] === 'int' && typeof value === 'number' && !Number.isSafeInteger(value)) {
          problems.push({
            pointer: `${lat}/limit`,
            kind: 'limit',
            message: `${value} is not a whole number, but the kind "${String(limit['type'])}" is int`,
          });
        }
      }
    }
    for (const role of declared.role ?? []) {
      if (!Object.hasOwn(rolePolicy, role)) {
        problems.push({
          pointer: '/role_policy',
          kind: 'missing-entry',
          message: `has no entry for the role "${role}"`,
        });
      }
    }
  }
  problems.push(...ruleProblems(doc, declared, itemPolicy));
  return problems;
}
