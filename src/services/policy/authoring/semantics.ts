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
import type { Declared, Referrer } from './shape.js';

/** What every check below reads: the declared names, the limit kinds, and the problems found so far. */
interface Context {
  readonly declared: Declared;
  readonly limitKinds: Record<string, unknown> | null;
  readonly problems: Problem[];
  readonly refer: Referrer['refer'];
  readonly referAll: Referrer['referAll'];
}

function requiredRoleProblems({ declared, problems }: Context): void {
  const roles = declared.role;
  if (roles === null) return;
  const missing = REQUIRED_ROLES.filter((role) => !roles.has(role));
  if (missing.length > 0) {
    const message = `lacks the required roles: ${missing.join(', ')} (the fixed accounts and new users hold them)`;
    problems.push({ pointer: '/roles', kind: 'required-role', message });
  }
}

/** Every declared role (item) has its entry in role_policy (item_policy). */
function missingEntries(ctx: Context, kind: 'role' | 'item', entries: Record<string, unknown>): void {
  for (const name of ctx.declared[kind] ?? []) {
    if (!Object.hasOwn(entries, name)) {
      const message = `has no entry for the ${kind} "${name}"`;
      ctx.problems.push({ pointer: `/${kind}_policy`, kind: 'missing-entry', message });
    }
  }
}

function itemPolicyProblems(ctx: Context, itemPolicy: Record<string, unknown>): void {
  for (const [item, policy] of Object.entries(itemPolicy)) {
    const at = pointer('item_policy', item);
    ctx.refer('item', item, at);
    if (!isRecord(policy)) continue;
    ctx.referAll('action', policy['valid_role_actions'], `${at}/valid_role_actions`);
    ctx.referAll('visibility', policy['valid_visibilities'], `${at}/valid_visibilities`);
    ctx.referAll('role', policy['invalid_roles'], `${at}/invalid_roles`);
  }
  missingEntries(ctx, 'item', itemPolicy);
}

/** A comparison limit names a declared kind, and its number is whole when the kind is int. */
function limitProblems(ctx: Context, limit: Record<string, unknown>, at: string): void {
  const type = limit['type'];
  ctx.refer('limit kind', type, `${at}/type`);
  const { limitKinds } = ctx;
  const kind =
    typeof type === 'string' && limitKinds !== null && Object.hasOwn(limitKinds, type)
      ? recordOf(limitKinds[type])
      : null;
  const value = limit['limit'];
  if (kind?.['type'] === 'int' && typeof value === 'number' && !Number.isSafeInteger(value)) {
    const message = `${value} is not a whole number, but the kind "${String(type)}" is int`;
    ctx.problems.push({ pointer: `${at}/limit`, kind: 'limit', message });
  }
}

function roleEntryProblems(ctx: Context, role: string, policy: unknown): void {
  const at = pointer('role_policy', role);
  ctx.refer('role', role, at);
  if (!isRecord(policy)) return;
  ctx.referAll('item', policy['can_own_items'], `${at}/can_own_items`);
  ctx.referAll('action', policy['allowed_actions_for_owned'], `${at}/allowed_actions_for_owned`);
  for (const [visibility, actions] of Object.entries(recordOf(policy['allowed_actions_for_other']) ?? {})) {
    const vat = `${at}/allowed_actions_for_other${pointer(visibility)}`;
    ctx.refer('visibility', visibility, vat);
    ctx.referAll('action', actions, vat);
  }
  for (const [name, limit] of Object.entries(recordOf(policy['limits']) ?? {})) {
    if (!isRecord(limit) || Object.hasOwn(limit, 'rule')) continue; // rules: rules-check.ts
    limitProblems(ctx, limit, `${at}/limits${pointer(name)}`);
  }
}

function rolePolicyProblems(ctx: Context, rolePolicy: Record<string, unknown>): void {
  for (const [role, policy] of Object.entries(rolePolicy)) roleEntryProblems(ctx, role, policy);
  missingEntries(ctx, 'role', rolePolicy);
}

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
  const ctx: Context = { declared, limitKinds, problems, ...referrer(declared, problems) };
  requiredRoleProblems(ctx);
  const itemPolicy = recordOf(doc['item_policy']);
  if (itemPolicy !== null) itemPolicyProblems(ctx, itemPolicy);
  const rolePolicy = recordOf(doc['role_policy']);
  if (rolePolicy !== null) rolePolicyProblems(ctx, rolePolicy);
  problems.push(...ruleProblems(doc, declared, itemPolicy));
  return problems;
}
