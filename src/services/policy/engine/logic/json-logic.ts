/**
 * Our JSON-Logic: exactly the operators of docs/design.md#rules-and-conditions, compiled once into closures.
 *
 * Why not json-logic-js at run time (docs/design.md#json-logic-our-own-evaluator): its `var` walks inherited
 * properties, `add_operation` is process-global, deep rules overflow its recursion, and its `<`/`>` coerce (`"10" > 9`,
 * `null < 1`). Guarding all that from outside (allow-listing, data shaping, depth) is most of an
 * evaluator already, so we write the 17 operators with the semantics we want, and a
 * property test checks them against json-logic-js on the conditions both accept.
 *
 * Semantics are JSON-Logic's, except where noted:
 * - truthiness: JSON-Logic's (an empty list is false, as are 0, "", null and false);
 * - `and`/`or` return the deciding argument; `if` takes condition-result pairs and an optional else;
 * - `===`/`!==` are JavaScript's strict (in)equality: lists are never equal;
 * - `< <= > >=` compare numbers only: an argument that is not a number makes them false (json-logic-js
 *   would coerce strings and null);
 * - `in`: membership in a list (strict), or a substring of a non-empty string when both are strings;
 * - `some`/`all`/`none` over a value that is not a list see an empty list; `all` of nothing is false;
 * - `missing` lists the named variables whose value is null or "".
 */
import { NO_FACTS } from './facts.js';
import { checkJsonLogic } from './json-logic-check.js';
import { argumentsOf, missingNames, operationOf } from './json-logic-syntax.js';
import type { Operator } from './json-logic-syntax.js';
import type { ConditionLanguage, Facts, Predicate } from './language.js';

export type Value = null | boolean | number | string | readonly Value[];

interface Scope {
  readonly facts: Facts;
  /** The current element inside some/all/none. */
  readonly element: Value;
}

type Evaluate = (scope: Scope) => Value;

export const truthy = (value: Value): boolean => (Array.isArray(value) ? value.length > 0 : Boolean(value));

const numeric = (compare: (a: number, b: number) => boolean) => (values: readonly Value[]) => {
  for (let i = 0; i + 1 < values.length; i++) {
    const a = values[i];
    const b = values[i + 1];
    if (typeof a !== 'number' || typeof b !== 'number' || !compare(a, b)) return false;
  }
  return true;
};

const listOf = (value: Value): readonly Value[] => (Array.isArray(value) ? (value as readonly Value[]) : []);

/** The check guarantees the arity of each operator; a missing argument reads as null. */
const NULL: Evaluate = () => null;
const nth = (parts: readonly Evaluate[], i: number): Evaluate => parts[i] ?? NULL;

/** An operation over its compiled arguments. */
type Combine = (parts: readonly Evaluate[]) => Evaluate;

/** `and` returns the first falsy argument, `or` the first truthy one; either returns the last otherwise. */
const shortCircuit =
  (stopsOn: boolean): Combine =>
  (parts) =>
  (scope) => {
    let value: Value = null;
    for (const part of parts) {
      value = part(scope);
      if (truthy(value) === stopsOn) return value;
    }
    return value;
  };

/** `if`: condition-result pairs, then an optional else result. */
const ifThenElse: Combine = (parts) => (scope) => {
  let i = 0;
  for (; i + 1 < parts.length; i += 2) {
    if (truthy(nth(parts, i)(scope))) return nth(parts, i + 1)(scope);
  }
  return nth(parts, i)(scope);
};

const comparison =
  (compare: (a: number, b: number) => boolean): Combine =>
  (parts) => {
    const holds = numeric(compare);
    return (scope) => holds(parts.map((p) => p(scope)));
  };

const membership: Combine =
  ([needle = NULL, haystack = NULL]) =>
  (scope) => {
    const value = needle(scope);
    const within = haystack(scope);
    if (Array.isArray(within)) return (within as readonly Value[]).includes(value);
    // As json-logic-js: an empty string contains nothing.
    return typeof within === 'string' && within !== '' && typeof value === 'string' && within.includes(value);
  };

/** some, all, none: the second argument is a condition on each element of the first. */
const quantifier =
  (decide: (list: readonly Value[], holds: (element: Value) => boolean) => boolean): Combine =>
  ([list = NULL, test = NULL]) =>
  (scope) =>
    decide(listOf(list(scope)), (element) => truthy(test({ facts: scope.facts, element })));

const COMBINE: Readonly<Record<Exclude<Operator, 'var' | 'missing'>, Combine>> = {
  and: shortCircuit(false),
  or: shortCircuit(true),
  '!':
    ([a = NULL]) =>
    (scope) =>
      !truthy(a(scope)),
  '!!':
    ([a = NULL]) =>
    (scope) =>
      truthy(a(scope)),
  if: ifThenElse,
  '===':
    ([a = NULL, b = NULL]) =>
    (scope) =>
      a(scope) === b(scope),
  '!==':
    ([a = NULL, b = NULL]) =>
    (scope) =>
      a(scope) !== b(scope),
  '<': comparison((a, b) => a < b),
  '<=': comparison((a, b) => a <= b),
  '>': comparison((a, b) => a > b),
  '>=': comparison((a, b) => a >= b),
  in: membership,
  some: quantifier((list, holds) => list.some(holds)),
  // `all` of nothing is false (as json-logic-js).
  all: quantifier((list, holds) => list.length > 0 && list.every(holds)),
  none: quantifier((list, holds) => !list.some(holds)),
};

/** `var` and `missing` read the facts by the names written as their arguments. */
function compileRead(op: 'var' | 'missing', args: readonly unknown[]): Evaluate {
  if (op === 'missing') {
    const names = missingNames(args) as readonly string[];
    return (scope) =>
      names.filter((n) => {
        const value = scope.facts[n];
        return value === undefined || value === '';
      });
  }
  const variable = args[0] as string;
  if (variable === '') return (scope) => scope.element;
  // Facts are a null-prototype record of the allow-listed variables only (facts.ts).
  return (scope) => scope.facts[variable] ?? null;
}

function compileNode(node: unknown): Evaluate {
  if (Array.isArray(node)) {
    const elements = node.map(compileNode);
    return (scope) => elements.map((e) => e(scope));
  }
  const operation = operationOf(node);
  if (operation === null) {
    // A literal: checked to be JSON (no object but an operation).
    const literal = node as Value;
    return () => literal;
  }
  const [name, raw] = operation;
  const args = argumentsOf(raw);
  if (name === 'var' || name === 'missing') return compileRead(name, args);
  const combine = Object.hasOwn(COMBINE, name) ? COMBINE[name as keyof typeof COMBINE] : undefined;
  // Unreachable for a checked condition.
  if (combine === undefined) throw new Error(`unchecked JSON-Logic operator ${name}`);
  return combine(args.map(compileNode));
}

const UNKNOWN = Symbol('unknown');
type Folded = Value | typeof UNKNOWN;

/**
 * The value of a condition as far as it is known without facts (for lint: a rule whose condition is
 * always false never matches). `and` with a false argument is false and `or` with a true one is true
 * whatever the variables hold; any other operation is known when all its arguments are.
 */
function fold(node: unknown): Folded {
  if (Array.isArray(node)) {
    const elements = node.map(fold);
    return elements.some((e) => e === UNKNOWN) ? UNKNOWN : (elements as Value[]);
  }
  const operation = operationOf(node);
  if (operation === null) return node as Value;
  const [name, raw] = operation;
  if (name === 'var' || name === 'missing') return UNKNOWN;
  const args = argumentsOf(raw).map(fold);
  if (name === 'and' && args.some((a) => a !== UNKNOWN && !truthy(a))) return false;
  if (name === 'or' && args.some((a) => a !== UNKNOWN && truthy(a))) return true;
  if (args.some((a) => a === UNKNOWN)) return UNKNOWN;
  return compileNode(node)({ facts: NO_FACTS, element: null });
}

export const jsonLogic: ConditionLanguage = {
  check: checkJsonLogic,
  compile(condition): Predicate {
    const evaluate = compileNode(condition);
    return (facts) => truthy(evaluate({ facts, element: null }));
  },
  constant(condition) {
    const value = fold(condition);
    return value === UNKNOWN ? undefined : truthy(value);
  },
};
