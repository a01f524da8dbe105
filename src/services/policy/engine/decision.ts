/** The questions the engine answers, and its answers: each carries which check decided, and why. */
import type { Relation } from './relation.js';

export interface AccessRequest {
  readonly userId: number;
  readonly role: string;
  readonly action: string;
  readonly item: string;
  readonly owner: number;
  readonly visibility: string;
  /** Parsed target_sharedwith (shared-with.ts). */
  readonly sharedWith: readonly number[];
}

export interface LimitRequest {
  readonly userId: number;
  readonly role: string;
  readonly name: string;
  /** A finite number. */
  readonly value: number;
}

export type AccessCheck =
  | 'unknown-role'
  | 'unknown-item'
  | 'unknown-action'
  | 'unknown-visibility'
  | 'role-invalid-for-item'
  | 'visibility-invalid-for-item'
  | 'action-invalid-for-item'
  | 'role-cannot-own-item'
  | 'not-allowed-for-owned'
  | 'relationship-gate'
  | 'not-allowed-for-other'
  | 'allowed-for-owned'
  | 'allowed-for-other'
  /** A rule of the policy's `rules` decided; the explanation's reason is the rule's. */
  | 'allowed-by-rule'
  | 'denied-by-rule'
  /** A denial no check names: a bug of diagnose.ts (tests assert it never happens). */
  | 'no-rule';

export type LimitCheck = 'unknown-role' | 'no-such-limit' | 'limit-passed' | 'limit-failed';

export interface Explanation<C extends string = string> {
  /**
   * `policy` for the policy engine; the actions add `request` (an item they refused) and `database`
   * (the checks on the users that follow an allow).
   */
  readonly stage: 'request' | 'policy' | 'database';
  readonly check: C;
  /** One sentence for an operator or a policy author (never for end users). */
  readonly reason: string;
  /** JSON pointers of the policy parts that decided (a fresh array per decision). */
  readonly policy: string[];
}

export interface AccessDecision {
  readonly allowed: boolean;
  readonly relation: Relation;
  readonly explanation: Explanation<AccessCheck>;
}

export interface LimitDecision {
  readonly passed: boolean;
  readonly explanation: Explanation<LimitCheck>;
}

export function policyExplanation<C extends string>(
  check: C,
  reason: string,
  policy: readonly string[] = [],
): Explanation<C> {
  return { stage: 'policy', check, reason, policy: [...policy] };
}
