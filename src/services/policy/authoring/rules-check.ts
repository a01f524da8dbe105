/**
 * The checks of the rule DSL (docs/design.md#rules-and-conditions) beyond the schema: the names a rule uses are
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
import type { Declared, Referrer } from './shape.js';

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

/** What the checks of one rule read: the declared names, the item policy, and the problems so far. */
interface Context {
  readonly declared: Declared;
  readonly itemPolicy: Record<string, unknown> | null;
  readonly problems: Problem[];
  readonly referAll: Referrer['referAll'];
}

/** Reports undeclared names the rule uses; true when it uses none. */
function referencesDeclared(ctx: Context, rule: Record<string, unknown>, at: string): boolean {
  const before = ctx.problems.length;
  ctx.referAll('role', rule['roles'], `${at}/roles`);
  ctx.referAll('item', rule['items'], `${at}/items`);
  ctx.referAll('action', rule['actions'], `${at}/actions`);
  ctx.referAll('visibility', rule['visibilities'], `${at}/visibilities`);
  return ctx.problems.length === before;
}

/** Reports the problems of the rule's condition; true when the condition is always false. */
function conditionNeverHolds(ctx: Context, rule: Record<string, unknown>, at: string): boolean {
  if (!Object.hasOwn(rule, 'when')) return false;
  const found = conditionProblems(rule['when'], 'access', `${at}/when`);
  ctx.problems.push(...found);
  return found.length === 0 && jsonLogic.constant(rule['when']) === false;
}

/** Why every item of the rule excludes it, or null when it can apply to some item. */
function excludedByEveryItem(ctx: Context, rule: Record<string, unknown>): string[] | null {
  const { itemPolicy } = ctx;
  const roles = stringsOf(rule['roles']);
  const items = stringsOf(rule['items']);
  const actions = stringsOf(rule['actions']);
  const visibilities = Object.hasOwn(rule, 'visibilities')
    ? stringsOf(rule['visibilities'])
    : [...(ctx.declared.visibility ?? [])];
  if (itemPolicy === null || roles.length === 0 || items.length === 0 || actions.length === 0) return null;
  const reasons = items.map((item) =>
    itemExcludes(item, Object.hasOwn(itemPolicy, item) ? itemPolicy[item] : null, roles, actions, visibilities),
  );
  return reasons.every((r) => r !== null) ? reasons : null;
}

function checkRule(ctx: Context, rule: unknown, index: number): void {
  if (!isRecord(rule)) return;
  const at = `/rules/${index}`;
  const referencesOk = referencesDeclared(ctx, rule, at);
  if (conditionNeverHolds(ctx, rule, at)) {
    const message = 'the rule can never match: its condition is always false';
    ctx.problems.push({ pointer: `${at}/when`, kind: 'never-matches', message });
    return;
  }
  const reasons = referencesOk ? excludedByEveryItem(ctx, rule) : null;
  if (reasons !== null) {
    const message = `the rule can never match (the item_policy restrictions apply to rules): ${reasons.join('; ')}`;
    ctx.problems.push({ pointer: at, kind: 'never-matches', message });
  }
}

/** Every limit that is a JSON-Logic rule passes the condition language's check. */
function limitRuleProblems(doc: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  for (const [role, policy] of Object.entries(recordOf(doc['role_policy']) ?? {})) {
    if (!isRecord(policy)) continue;
    for (const [name, limit] of Object.entries(recordOf(policy['limits']) ?? {})) {
      if (!isRecord(limit) || !Object.hasOwn(limit, 'rule')) continue;
      const at = `${pointer('role_policy', role, 'limits', name)}/rule`;
      problems.push(...conditionProblems(limit['rule'], 'limit', at));
    }
  }
  return problems;
}

export function ruleProblems(
  doc: Record<string, unknown>,
  declared: Declared,
  itemPolicy: Record<string, unknown> | null,
): Problem[] {
  const problems: Problem[] = [];
  const ctx: Context = { declared, itemPolicy, problems, referAll: referrer(declared, problems).referAll };
  const rules = doc['rules'];
  if (Array.isArray(rules)) rules.forEach((rule: unknown, index) => checkRule(ctx, rule, index));
  problems.push(...limitRuleProblems(doc));
  return problems;
}
