/**
 * Runs decision tables against a compiled policy: every row expanded into one case per action, each
 * decided by the same pure engine the server uses, each failure kept with the explanation of the
 * decision actually taken. Also counts which cells of the policy's access matrix
 * (role × item × action × visibility × relation) the tables cover.
 */
import { checkAccess } from '../engine/check-access.js';
import { checkLimit } from '../engine/check-limit.js';
import type { CompiledPolicy } from '../engine/compiled-policy.js';
import type { AccessRequest, Explanation } from '../engine/decision.js';
import type { AccessRowDoc, FixtureDoc } from './fixture-load.js';
import type { Relation } from '../engine/relation.js';
import { parseSharedWith } from '../engine/shared-with.js';

export const RELATIONS: readonly Relation[] = ['owner', 'shared', 'other'];

/** The callers a `relation` stands for. */
const CALLERS: Readonly<Record<Relation, { userId: number; owner: number; sharedWith: number[] }>> = {
  owner: { userId: 10, owner: 10, sharedWith: [] },
  shared: { userId: 10, owner: 20, sharedWith: [10] },
  other: { userId: 10, owner: 20, sharedWith: [30] },
};

export interface CaseFailure {
  /** JSON pointer of the row. */
  readonly row: string;
  /** The case, e.g. `staff object edit private other`. */
  readonly label: string;
  readonly expected: string;
  readonly got: string;
  readonly explanation: Explanation | null;
}

export interface FixtureRun {
  readonly cases: number;
  readonly failures: CaseFailure[];
  /** Matrix cells covered (keys from matrixKey). */
  readonly covered: Set<string>;
}

export const matrixKey = (role: string, item: string, action: string, visibility: string, relation: Relation): string =>
  [role, item, action, visibility, relation].join('\u0000');

/** Every cell of the policy's access matrix. */
export function matrixSize(policy: CompiledPolicy): number {
  return policy.roles.size * policy.items.size * policy.actions.size * policy.visibilities.size * RELATIONS.length;
}

function rowCases(row: AccessRowDoc): Array<[string, 'allow' | 'deny']> {
  if (row.action !== undefined && row.expect !== undefined) return [[row.action, row.expect]];
  return [
    ...(row.allow ?? []).map((a): [string, 'allow'] => [a, 'allow']),
    ...(row.deny ?? []).map((a): [string, 'deny'] => [a, 'deny']),
  ];
}

export function runFixture(policy: CompiledPolicy, fixture: FixtureDoc): FixtureRun {
  const failures: CaseFailure[] = [];
  const covered = new Set<string>();
  let cases = 0;
  (fixture.access ?? []).forEach((row, index) => {
    const at = `/access/${index}`;
    let caller: { userId: number; owner: number; sharedWith: number[] };
    if (row.relation !== undefined) {
      caller = CALLERS[row.relation];
    } else {
      const shared = parseSharedWith(row.shared_with ?? '');
      if (!shared.ok) {
        cases++;
        failures.push({ row: at, label: 'shared_with', expected: 'a list', got: shared.problem, explanation: null });
        return;
      }
      caller = { userId: row.user_id ?? 0, owner: row.owner ?? 0, sharedWith: shared.ids };
    }
    for (const [action, expected] of rowCases(row)) {
      cases++;
      const request: AccessRequest = { ...caller, role: row.role, action, item: row.item, visibility: row.visibility };
      const decision = checkAccess(policy, request);
      const got = decision.allowed ? 'allow' : 'deny';
      const who =
        row.relation ?? `user ${caller.userId}, owner ${caller.owner}, shared with [${caller.sharedWith.join(',')}]`;
      const label = `${row.role} ${row.item} ${action} ${row.visibility} ${who}`;
      if (got !== expected || (row.check !== undefined && row.check !== decision.explanation.check)) {
        const wanted = row.check === undefined ? expected : `${expected} by ${row.check}`;
        failures.push({ row: at, label, expected: wanted, got, explanation: decision.explanation });
      }
      if (policy.roles.has(row.role) && policy.items.has(row.item) && policy.actions.has(action)) {
        if (policy.visibilities.has(row.visibility)) {
          covered.add(matrixKey(row.role, row.item, action, row.visibility, decision.relation));
        }
      }
    }
  });
  (fixture.limits ?? []).forEach((row, index) => {
    cases++;
    const decision = checkLimit(policy, {
      userId: row.user_id ?? CALLERS.other.userId,
      role: row.role,
      name: row.limit,
      value: row.value,
    });
    const got = decision.passed ? 'pass' : 'fail';
    if (got !== row.expect || (row.check !== undefined && row.check !== decision.explanation.check)) {
      failures.push({
        row: `/limits/${index}`,
        label: `${row.role} ${row.limit} ${row.value}`,
        expected: row.check === undefined ? row.expect : `${row.expect} by ${row.check}`,
        got,
        explanation: decision.explanation,
      });
    }
  });
  return { cases, failures, covered };
}
