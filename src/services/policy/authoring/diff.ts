/**
 * Every decision that differs between two policies (`policy:diff`): access over the union of their
 * roles, items, actions and visibilities, for a set of callers, and limits over the union of their
 * role limits, for the values where a decision can change. Both policies decide with the engine the
 * server uses.
 *
 * Callers: the owner (user 10 owns the item), shared (user 10 is listed on user 20's item),
 * everyone (user 2 is listed, which shares with everyone), other (user 20's item, shared with user 30
 * only); and, for every user id a rule's condition names as a number, that user as the caller, as the
 * owner and as the one the item is shared with. Rules that depend on other particular ids are only
 * covered for the ids they name.
 */
import { checkAccess } from '../engine/check-access.js';
import { checkLimit } from '../engine/check-limit.js';
import type { CompiledLimit, CompiledPolicy } from '../engine/compiled-policy.js';
import type { AccessDecision, LimitDecision } from '../engine/decision.js';
import type { PolicyDoc } from '../engine/document.js';
import { entriesOf } from '../engine/document.js';
import { MAX_ID } from '../../../protocol/index.js';

export interface Caller {
  readonly label: string;
  readonly userId: number;
  readonly owner: number;
  readonly sharedWith: readonly number[];
}

export interface AccessChange {
  readonly role: string;
  readonly item: string;
  readonly action: string;
  readonly visibility: string;
  readonly caller: string;
  readonly before: AccessDecision;
  readonly after: AccessDecision;
}

export interface LimitChange {
  readonly role: string;
  readonly limit: string;
  readonly value: number;
  readonly before: LimitDecision;
  readonly after: LimitDecision;
}

export interface PolicyDiff {
  readonly access: AccessChange[];
  readonly limits: LimitChange[];
  /** How many decisions were compared. */
  readonly compared: { readonly access: number; readonly limits: number };
}

export interface DiffSide {
  readonly doc: PolicyDoc;
  readonly compiled: CompiledPolicy;
}

const STANDARD_CALLERS: readonly Caller[] = [
  { label: 'owner', userId: 10, owner: 10, sharedWith: [] },
  { label: 'shared', userId: 10, owner: 20, sharedWith: [10] },
  { label: 'everyone', userId: 10, owner: 20, sharedWith: [2] },
  { label: 'other', userId: 10, owner: 20, sharedWith: [30] },
];
/** At most this many ids named by conditions get callers of their own (3 callers each). */
const MAX_NAMED_IDS = 16;

/** Numbers written in a condition (bounded: a checked condition has at most 256 nodes). */
function numbersIn(value: unknown, into: Set<number>): void {
  if (typeof value === 'number') into.add(value);
  else if (Array.isArray(value)) value.forEach((v) => numbersIn(v, into));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((v) => numbersIn(v, into));
}

const union = (a: readonly string[], b: readonly string[]): string[] => [...new Set([...a, ...b])];

export function callersFor(docs: readonly PolicyDoc[]): Caller[] {
  const numbers = new Set<number>();
  for (const doc of docs) for (const rule of doc.rules ?? []) numbersIn(rule.when, numbers);
  const ids = [...numbers]
    .filter((n) => Number.isInteger(n) && n >= 1 && n <= MAX_ID && ![2, 10, 20, 30].includes(n))
    .sort((a, b) => a - b)
    .slice(0, MAX_NAMED_IDS);
  return [
    ...STANDARD_CALLERS,
    ...ids.flatMap((id): Caller[] => [
      { label: `user ${id}`, userId: id, owner: 20, sharedWith: [] },
      { label: `owner ${id}`, userId: 10, owner: id, sharedWith: [] },
      { label: `shared with ${id}`, userId: 10, owner: 20, sharedWith: [id] },
    ]),
  ];
}

/** Values around each bound where a limit's decision can change. */
function limitValues(limits: ReadonlyArray<CompiledLimit | undefined>, docs: ReadonlyArray<unknown>): number[] {
  const anchors = new Set<number>([0]);
  for (const limit of limits) if (limit?.kind === 'compare') anchors.add(limit.limit);
  for (const rule of docs) numbersIn(rule, anchors);
  const values = new Set<number>();
  for (const a of anchors) for (const d of [-1, -0.5, 0, 0.5, 1]) values.add(a + d);
  return [...values].filter(Number.isFinite).sort((a, b) => a - b);
}

export function diffPolicies(before: DiffSide, after: DiffSide): PolicyDiff {
  const [a, b] = [before.doc, after.doc];
  const access: AccessChange[] = [];
  let comparedAccess = 0;
  const callers = callersFor([a, b]);
  for (const role of union(a.roles, b.roles)) {
    for (const item of union(a.items, b.items)) {
      for (const visibility of union(a.visibilities, b.visibilities)) {
        for (const caller of callers) {
          for (const action of union(a.actions, b.actions)) {
            const request = { ...caller, role, item, action, visibility };
            const old = checkAccess(before.compiled, request);
            const now = checkAccess(after.compiled, request);
            comparedAccess++;
            if (old.allowed !== now.allowed) {
              access.push({ role, item, action, visibility, caller: caller.label, before: old, after: now });
            }
          }
        }
      }
    }
  }

  const limits: LimitChange[] = [];
  let comparedLimits = 0;
  for (const role of union(a.roles, b.roles)) {
    const limitDocs = (doc: PolicyDoc) =>
      Object.hasOwn(doc.role_policy, role) ? doc.role_policy[role]?.limits : undefined;
    const names = union(
      entriesOf(limitDocs(a)).map(([n]) => n),
      entriesOf(limitDocs(b)).map(([n]) => n),
    );
    for (const name of names) {
      const compiled = [before.compiled.limits.get(role)?.get(name), after.compiled.limits.get(role)?.get(name)];
      const rules = [limitDocs(a), limitDocs(b)].map((l) => {
        const limit = l !== undefined && Object.hasOwn(l, name) ? l[name] : undefined;
        return limit !== undefined && 'rule' in limit ? limit.rule : undefined;
      });
      for (const value of limitValues(compiled, rules)) {
        const request = { userId: 10, role, name, value };
        const old = checkLimit(before.compiled, request);
        const now = checkLimit(after.compiled, request);
        comparedLimits++;
        if (old.passed !== now.passed) limits.push({ role, limit: name, value, before: old, after: now });
      }
    }
  }
  return { access, limits, compared: { access: comparedAccess, limits: comparedLimits } };
}
