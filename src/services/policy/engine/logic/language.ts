/**
 * The condition language behind the rule DSL (docs/design.md#rules-and-conditions), as a small interface: a language
 * checks a condition statically (every problem, with JSON pointers relative to the condition) and
 * compiles a checked one into a predicate over facts. The engine knows only this interface, so another
 * language could be plugged in beside JSON-Logic (json-logic.ts).
 *
 * Facts are the only data a condition sees: a flat, null-prototype record of the allow-listed
 * variables (facts.ts), so no condition can reach Object.prototype or anything the policy did not name.
 */

/** What a condition may be about: an access rule's `when`, or a limit's `rule`. */
export type Scope = 'access' | 'limit';

export type FactType = 'number' | 'string' | 'boolean' | 'number[]';

/** The variables a condition may read, by scope, with their types (the policy author's vocabulary). */
export const VARIABLES: Readonly<Record<Scope, ReadonlyMap<string, FactType>>> = {
  access: new Map<string, FactType>([
    ['user.id', 'number'],
    ['user.role', 'string'],
    ['action', 'string'],
    ['target.name', 'string'],
    ['target.owner', 'number'],
    ['target.visibility', 'string'],
    ['target.sharedwith', 'number[]'],
    ['target.is_owner', 'boolean'],
    ['target.is_shared_with', 'boolean'],
  ]),
  limit: new Map<string, FactType>([
    ['user.id', 'number'],
    ['user.role', 'string'],
    ['limit_name', 'string'],
    ['value', 'number'],
  ]),
};

export type FactValue = number | string | boolean | readonly number[];

/** A null-prototype record from variable name to value (facts.ts builds them). */
export type Facts = Readonly<Record<string, FactValue>>;

export type Predicate = (facts: Facts) => boolean;

/** A problem of one condition; `pointer` is relative to the condition ('' = the condition itself). */
export interface ConditionProblem {
  readonly pointer: string;
  readonly message: string;
  readonly kind: 'condition-size' | 'condition-depth' | 'operator' | 'variable' | 'condition' | 'never-matches';
}

export interface ConditionLanguage {
  /** Every problem of a condition. Size and depth are checked first, without recursion. */
  check(condition: unknown, scope: Scope): ConditionProblem[];
  /** A condition that `check` accepted → its predicate. */
  compile(condition: unknown): Predicate;
  /** The value of a condition that reads no variable, or undefined when it reads some (lint: never matches). */
  constant(condition: unknown): boolean | undefined;
}
