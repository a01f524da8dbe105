/**
 * The policy's `rules` (docs/design.md#rules-and-conditions) as CASL rules of one role. The item_policy restrictions
 * apply to rules as to the tables: a rule never reaches a role in the item's invalid_roles, an action
 * outside its valid_role_actions or a visibility outside its valid_visibilities. The relationship gate
 * does not apply: a rule's `visibilities` and `when` say whom it concerns (`target.is_owner`, …).
 */
import type { RawRuleOf } from '@casl/ability';
import type { AccessCondition, ItemRules, PolicyAbility, PolicyRule } from './compiled-policy.js';
import type { RuleDoc } from './document.js';
import type { Predicate } from './logic/language.js';

type Rule = RawRuleOf<PolicyAbility>;

export interface CompiledRule {
  readonly doc: RuleDoc;
  readonly rule: PolicyRule;
  readonly when: Predicate | null;
}

/** The CASL rules one role gets from the DSL, allows and denies apart, each in document order. */
export function dslRules(
  role: string,
  rules: readonly CompiledRule[],
  items: ReadonlyMap<string, ItemRules>,
  visibilities: readonly string[],
): { allows: Rule[]; denies: Rule[] } {
  const allows: Rule[] = [];
  const denies: Rule[] = [];
  for (const { doc, rule, when } of rules) {
    if (!doc.roles.includes(role)) continue;
    for (const item of doc.items) {
      const itemRules = items.get(item);
      if (itemRules === undefined || itemRules.invalidRoles.has(role)) continue;
      const actions = doc.actions.filter((a) => itemRules.validActions.has(a));
      const ruleVisibilities = (doc.visibilities ?? visibilities).filter((v) => itemRules.validVisibilities.has(v));
      if (actions.length === 0 || ruleVisibilities.length === 0) continue;
      const conditions: AccessCondition = { kind: 'rule', visibilities: new Set(ruleVisibilities), when, rule };
      const casl: Rule = { action: actions, subject: item, conditions };
      if (rule.effect === 'deny') denies.push({ ...casl, inverted: true });
      else allows.push(casl);
    }
  }
  return { allows, denies };
}
