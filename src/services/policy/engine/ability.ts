/**
 * One CASL ability per role, from the reference's tables (§4.3):
 * - owned: for each item the role can own (and is not an invalid role of), the owned actions that the
 *   item allows, when the caller is the owner and the visibility is one the item may have and the
 *   relationship gate lets owners through (not a visibility unknown to the gate);
 * - other: for each visibility the item may have, the role's actions for other users' items of that
 *   visibility that the item allows, when the relationship gate opens to the caller's relation.
 * An owner whose role cannot own the item matches no rule, so gets nothing.
 * Rules of the DSL (compile-rules.ts) come around these: CASL gives later rules priority, so the order
 * [allow rules, reversed] [base rules] [deny rules, reversed] makes the first matching deny rule of
 * the document win over everything, then the tables, then the first matching allow rule.
 *
 * `anyAction`/`anySubjectType` are set to names no policy can contain (the name pattern refuses NUL),
 * so neither `manage` nor `all` means anything to CASL here (docs/design.md#casl-reserved-words).
 */
import { Ability } from '@casl/ability';
import type { RawRuleOf } from '@casl/ability';
import { pointer } from './document.js';
import type { AccessCondition, AccessSubject, ItemRules, PolicyAbility, RoleRules } from './compiled-policy.js';
import { gateOpensTo } from './relation.js';
import type { Relation } from './relation.js';

export const ANY_ACTION = '\u0000any-action';
export const ANY_SUBJECT = '\u0000any-subject';

type Rule = RawRuleOf<PolicyAbility>;

// CASL types the matched object loosely; checks always pass an AccessSubject (check-access.ts).
const matchConditions =
  (condition: AccessCondition) =>
  (object: object): boolean => {
    const subject = object as AccessSubject;
    if (!condition.visibilities.has(subject.visibility)) return false;
    if (condition.kind === 'base') return condition.relations.has(subject.relation);
    return condition.when === null || condition.when(subject.facts);
  };

export function newAbility(rules: Rule[]): PolicyAbility {
  return new Ability<[string, string | AccessSubject], AccessCondition>(rules, {
    anyAction: ANY_ACTION,
    anySubjectType: ANY_SUBJECT,
    detectSubjectType: (subject: AccessSubject) => subject.item,
    conditionsMatcher: matchConditions,
  });
}

const intersect = (a: ReadonlySet<string>, b: ReadonlySet<string>): string[] => [...a].filter((x) => b.has(x));

export function roleRules(
  role: string,
  rules: RoleRules,
  items: ReadonlyMap<string, ItemRules>,
  visibilities: readonly string[],
): Rule[] {
  const out: Rule[] = [];
  const at = (...path: string[]): string => pointer('role_policy', role, ...path);
  for (const [item, itemRules] of items) {
    if (itemRules.invalidRoles.has(role)) continue;
    const itemAt = pointer('item_policy', item, 'valid_role_actions');
    if (rules.canOwn.has(item)) {
      const actions = intersect(rules.owned, itemRules.validActions);
      const ownedVisibilities = new Set(
        [...itemRules.validVisibilities].filter((v) => gateOpensTo(role, v).has('owner')),
      );
      if (actions.length > 0 && ownedVisibilities.size > 0) {
        out.push({
          action: actions,
          subject: item,
          conditions: {
            kind: 'base',
            relations: new Set<Relation>(['owner']),
            visibilities: ownedVisibilities,
            grant: {
              check: 'allowed-for-owned',
              policy: [at('can_own_items'), at('allowed_actions_for_owned'), itemAt],
              reason: `the role "${role}" can own "${item}" items, and both its allowed_actions_for_owned and the item's valid_role_actions include the action`,
            },
          },
        });
      }
    }
    // Document order of the visibilities, so explanations are stable.
    for (const visibility of visibilities) {
      if (!itemRules.validVisibilities.has(visibility)) continue;
      const actions = intersect(rules.other.get(visibility) ?? new Set(), itemRules.validActions);
      // The owner's case is the owned rule above: an owner never falls back on the "other" actions.
      const relations = new Set([...gateOpensTo(role, visibility)].filter((r) => r !== 'owner'));
      if (actions.length === 0 || relations.size === 0) continue;
      out.push({
        action: actions,
        subject: item,
        conditions: {
          kind: 'base',
          relations,
          visibilities: new Set([visibility]),
          grant: {
            check: 'allowed-for-other',
            policy: [at('allowed_actions_for_other', visibility), itemAt],
            reason: `both the role's allowed_actions_for_other.${visibility} and the valid_role_actions of "${item}" include the action`,
          },
        },
      });
    }
  }
  return out;
}
