/**
 * The checks of the rule DSL (DESIGN decision 17) beyond the schema: the names a rule uses are
 * declared; its condition and every limit rule pass the condition language's check (operators,
 * variables, size, depth); and a rule can match at all — the item_policy restrictions apply to rules
 * too, so a rule whose every item excludes its roles, actions or visibilities never decides anything,
 * and neither does one whose condition is always false.
 */
import { pointer } from '../engine/document.js';
import { jsonLogic } from '../engine/logic/json-logic.js';
import type { Scope } from '../engine/logic/language.js';
import type { Problem } from './problems.js';
import { isRecord, recordOf, referrer, stringsOf } from './shape.js';
import type { Declared } from './shape.js';

function conditionProblems(condition: unknown, scope: Scope, at: string): Problem[] {
  return jsonLogic.check(condition, scope).map((p) => ({ ...p, pointer: `${at}${p.pointer}` }));
}

/** Why one item leaves nothing for the rule, or null when the rule can apply to it. */
function itemExcludes(
  item: string,
  policy: unknown,
  roles: readonly string[],
  actions: readonly string[],
  visibilities: readonly string[],
): string | null {
  if (!isRecord(policy)) return null; // reported by the schema; assume it could match
  const invalid = new Set(stringsOf(policy['invalid_roles']));
  const validActions = new Set(stringsOf(policy['valid_role_actions']));
  const validVisibilities = new Set(stringsOf(policy['valid_visibilities']));
  const list = (xs: readonly string[]): string => xs.map((x) => `"${x}"`).join(', ');
  if (roles.every((r) => invalid.has(r))) return `"${item}" lists ${list(roles)} in its invalid_roles`;
  if (!actions.some((a) => validActions.has(a)))
    return `"${item}" allows none of ${list(actions)} (valid_role_actions)`;
  if (!visibilities.some((v) => validVisibilities.has(v))) {
    return `"${item}" can have none of the visibilities ${list(visibilities)} (valid_visibilities)`;
  }
  return null;
}

export function ruleProblems(
  doc: Record<string, unknown>,
  declared: Declared,
  itemPolicy: Record<string, unknown> | null,
): Problem[] {
  const problems: Problem[] = [];
  const { referAll } = referrer(declared, problems);
  const rules = doc['rules'];
  if (Array.isArray(rules)) {
    rules.forEach((rule: unknown, index) => {
      if (!isRecord(rule)) return;
      const at = `/rules/${index}`;
      const before = problems.length;
      referAll('role', rule['roles'], `${at}/roles`);
      referAll('item', rule['items'], `${at}/items`);
      referAll('action', rule['actions'], `${at}/actions`);
      referAll('visibility', rule['visibilities'], `${at}/visibilities`);
      const referencesOk = problems.length === before;
      let condition: boolean | undefined;
      if (Object.hasOwn(rule, 'when')) {
        const found = conditionProblems(rule['when'], 'access', `${at}/when`);
        problems.push(...found);
        condition = found.length === 0 ? jsonLogic.constant(rule['when']) : undefined;
      }
      if (condition === false) {
        problems.push({
          pointer: `${at}/when`,
          kind: 'never-matches',
          message: 'the rule can never match: its condition is always false',
        });
        return;
      }
      const roles = stringsOf(rule['roles']);
      const items = stringsOf(rule['items']);
      const actions = stringsOf(rule['actions']);
      const visibilities = Object.hasOwn(rule, 'visibilities')
        ? stringsOf(rule['visibilities'])
        : [...(declared.visibility ?? [])];
      if (!referencesOk || itemPolicy === null || roles.length === 0 || items.length === 0 || actions.length === 0) {
        return;
      }
      const reasons = items.map((item) =>
        itemExcludes(item, Object.hasOwn(itemPolicy, item) ? itemPolicy[item] : null, roles, actions, visibilities),
      );
      if (reasons.every((r) => r !== null)) {
        problems.push({
          pointer: at,
          kind: 'never-matches',
          message: `the rule can never match (the item_policy restrictions apply to rules): ${reasons.join('; ')}`,
        });
      }
    });
  }
  const rolePolicy = recordOf(doc['role_policy']);
  for (const [role, policy] of Object.entries(rolePolicy ?? {})) {
    if (!isRecord(policy)) continue;
    for (const [name, limit] of Object.entries(recordOf(policy['limits']) ?? {})) {
      if (!isRecord(limit) || !Object.hasOwn(limit, 'rule')) continue;
      problems.push(
        ...conditionProblems(limit['rule'], 'limit', `${pointer('role_policy', role, 'limits', name)}/rule`),
      );
    }
  }
  return problems;
}
