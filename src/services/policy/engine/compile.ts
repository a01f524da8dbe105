/** A checked policy document → the compiled policy (compiled-policy.ts): Maps, Sets, abilities, limits. */
import type { LimitTypeDoc, PolicyDoc, RoleLimitDoc } from './document.js';
import { entriesOf, pointer } from './document.js';
import { newAbility, roleRules } from './ability.js';
import type { CompiledLimit, CompiledPolicy, ItemRules, PolicyAbility, RoleRules } from './compiled-policy.js';
import { dslRules } from './compile-rules.js';
import type { CompiledRule } from './compile-rules.js';
import { jsonLogic } from './logic/json-logic.js';

const compileItemPolicy = (doc: PolicyDoc): Map<string, ItemRules> =>
  new Map(
    entriesOf(doc.item_policy).map(([item, p]) => [
      item,
      {
        validActions: new Set(p.valid_role_actions),
        validVisibilities: new Set(p.valid_visibilities),
        invalidRoles: new Set(p.invalid_roles),
      },
    ]),
  );

const compileRolePolicy = (doc: PolicyDoc): Map<string, RoleRules> =>
  new Map(
    entriesOf(doc.role_policy).map(([role, p]) => [
      role,
      {
        canOwn: new Set(p.can_own_items),
        owned: new Set(p.allowed_actions_for_owned),
        other: new Map(entriesOf(p.allowed_actions_for_other).map(([v, actions]) => [v, new Set(actions)])),
      },
    ]),
  );

const compileRules = (doc: PolicyDoc): CompiledRule[] =>
  (doc.rules ?? []).map((rule, index) => ({
    doc: rule,
    rule: { effect: rule.effect, pointer: pointer('rules', index), reason: rule.reason },
    when: rule.when === undefined ? null : jsonLogic.compile(rule.when),
  }));

/** One CASL ability per role: its tables, with the DSL's rules around them. */
function compileAbilities(
  doc: PolicyDoc,
  tables: { itemPolicy: Map<string, ItemRules>; rolePolicy: Map<string, RoleRules> },
  rules: readonly CompiledRule[],
): Map<string, PolicyAbility> {
  const { itemPolicy, rolePolicy } = tables;
  const abilities = new Map<string, PolicyAbility>();
  for (const [role, roleTables] of rolePolicy) {
    const { allows, denies } = dslRules(role, rules, itemPolicy, doc.visibilities);
    // Later CASL rules take priority (ability.ts): denies first of all, then the tables, then allows.
    const base = roleRules(role, roleTables, itemPolicy, doc.visibilities);
    abilities.set(role, newAbility([...allows.reverse(), ...base, ...denies.reverse()]));
  }
  return abilities;
}

/** One limit of a role: a JSON-Logic rule, or a comparison with its kind's type and operator. */
function compileLimit(
  limitTypes: ReadonlyMap<string, LimitTypeDoc>,
  role: string,
  name: string,
  limit: RoleLimitDoc,
): CompiledLimit | null {
  const at = pointer('role_policy', role, 'limits', name);
  if ('rule' in limit) return { kind: 'rule', name, passes: jsonLogic.compile(limit.rule), policy: [`${at}/rule`] };
  const kind = limitTypes.get(limit.type);
  if (kind === undefined) return null; // refused by the semantic checks before compilation
  return {
    kind: 'compare',
    name,
    limitType: limit.type,
    numeric: kind.type,
    operator: kind.operator,
    limit: limit.limit,
    policy: [at, pointer('limits', limit.type)],
  };
}

function compileLimits(doc: PolicyDoc): Map<string, ReadonlyMap<string, CompiledLimit>> {
  const limitTypes = new Map(entriesOf(doc.limits));
  const limits = new Map<string, ReadonlyMap<string, CompiledLimit>>();
  for (const [role, p] of entriesOf(doc.role_policy)) {
    const byName = new Map<string, CompiledLimit>();
    for (const [name, limit] of entriesOf(p.limits)) {
      const compiled = compileLimit(limitTypes, role, name, limit);
      if (compiled !== null) byName.set(name, compiled);
    }
    limits.set(role, byName);
  }
  return limits;
}

export function compilePolicy(doc: PolicyDoc, sha256: string): CompiledPolicy {
  const itemPolicy = compileItemPolicy(doc);
  const rolePolicy = compileRolePolicy(doc);
  const rules = compileRules(doc);
  return {
    sha256,
    roles: new Set(doc.roles),
    items: new Set(doc.items),
    actions: new Set(doc.actions),
    visibilities: new Set(doc.visibilities),
    itemPolicy,
    rolePolicy,
    abilities: compileAbilities(doc, { itemPolicy, rolePolicy }, rules),
    limits: compileLimits(doc),
    rules: rules.map((r) => r.rule),
  };
}
