/** A checked policy document → the compiled policy (compiled-policy.ts): Maps, Sets, abilities, limits. */
import type { PolicyDoc } from './document.js';
import { entriesOf, pointer } from './document.js';
import { newAbility, roleRules } from './ability.js';
import type { CompiledLimit, CompiledPolicy, ItemRules, PolicyAbility, RoleRules } from './compiled-policy.js';
import { dslRules } from './compile-rules.js';
import type { CompiledRule } from './compile-rules.js';
import { jsonLogic } from './logic/json-logic.js';

export function compilePolicy(doc: PolicyDoc, sha256: string): CompiledPolicy {
  const itemPolicy = new Map<string, ItemRules>(
    entriesOf(doc.item_policy).map(([item, p]) => [
      item,
      {
        validActions: new Set(p.valid_role_actions),
        validVisibilities: new Set(p.valid_visibilities),
        invalidRoles: new Set(p.invalid_roles),
      },
    ]),
  );
  const rolePolicy = new Map<string, RoleRules>(
    entriesOf(doc.role_policy).map(([role, p]) => [
      role,
      {
        canOwn: new Set(p.can_own_items),
        owned: new Set(p.allowed_actions_for_owned),
        other: new Map(entriesOf(p.allowed_actions_for_other).map(([v, actions]) => [v, new Set(actions)])),
      },
    ]),
  );
  const rules: CompiledRule[] = (doc.rules ?? []).map((rule, index) => ({
    doc: rule,
    rule: { effect: rule.effect, pointer: pointer('rules', index), reason: rule.reason },
    when: rule.when === undefined ? null : jsonLogic.compile(rule.when),
  }));
  const abilities = new Map<string, PolicyAbility>();
  for (const [role, tables] of rolePolicy) {
    const { allows, denies } = dslRules(role, rules, itemPolicy, doc.visibilities);
    // Later CASL rules take priority (ability.ts): denies first of all, then the tables, then allows.
    const base = roleRules(role, tables, itemPolicy, doc.visibilities);
    abilities.set(role, newAbility([...allows.reverse(), ...base, ...denies.reverse()]));
  }
  const limitTypes = new Map(entriesOf(doc.limits));
  const limits = new Map<string, ReadonlyMap<string, CompiledLimit>>();
  for (const [role, p] of entriesOf(doc.role_policy)) {
    const byName = new Map<string, CompiledLimit>();
    for (const [name, limit] of entriesOf(p.limits)) {
      const at = pointer('role_policy', role, 'limits', name);
      if ('rule' in limit) {
        byName.set(name, { kind: 'rule', name, passes: jsonLogic.compile(limit.rule), policy: [`${at}/rule`] });
        continue;
      }
      const kind = limitTypes.get(limit.type);
      if (kind === undefined) continue; // refused by the semantic checks before compilation
      byName.set(name, {
        kind: 'compare',
        name,
        limitType: limit.type,
        numeric: kind.type,
        operator: kind.operator,
        limit: limit.limit,
        policy: [at, pointer('limits', limit.type)],
      });
    }
    limits.set(role, byName);
  }
  return {
    sha256,
    roles: new Set(doc.roles),
    items: new Set(doc.items),
    actions: new Set(doc.actions),
    visibilities: new Set(doc.visibilities),
    itemPolicy,
    rolePolicy,
    abilities,
    limits,
    rules: rules.map((r) => r.rule),
  };
}
