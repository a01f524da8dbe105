/**
 * Our JSON-Logic: exactly the operators of DESIGN decision 17, compiled once into closures.
 *
 * Why not json-logic-js at run time (trap P4): its `var` walks inherited properties, `add_operation`
 * is process-global, deep rules overflow its recursion, and its `<`/`>` coerce (`"10" > 9`,
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
import type { ConditionLanguage, Facts, Predicate } from './language.js';
import { argumentsOf, checkJsonLogic, operationOf } from './json-logic-check.js';
import type { Operator } from './json-logic-check.js';

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
const lessThan = numeric((a, b) => a < b);
const atMost = numeric((a, b) => a <= b);
const greaterThan = numeric((a, b) => a > b);
const atLeast = numeric((a, b) => a >= b);

const listOf = (value: Value): readonly Value[] => (Array.isArray(value) ? (value as readonly Value[]) : []);

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
  const op = name as Operator;
  if (op === 'var') {
    const variable = args[0] as string;
    if (variable === '') return (scope) => scope.element;
    // Facts are a null-prototype record of the allow-listed variables only (facts.ts).
    return (scope) => scope.facts[variable] ?? null;
  }
  if (op === 'missing') {
    const names = (args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args) as string[];
    return (scope) =>
      names.filter((n) => {
        const value = scope.facts[n];
        return value === undefined || value === '';
      });
  }
  const parts = args.map(compileNode);
  // The check guarantees the arity of each operator; a missing argument reads as null.
  const part = (i: number): Evaluate => parts[i] ?? (() => null);
  const first = part(0);
  const second = part(1);
  switch (op) {
    case 'and':
      return (scope) => {
        let value: Value = null;
        for (const part of parts) {
          value = part(scope);
          if (!truthy(value)) return value;
        }
        return value;
      };
    case 'or':
      return (scope) => {
        let value: Value = null;
        for (const part of parts) {
          value = part(scope);
          if (truthy(value)) return value;
        }
        return value;
      };
    case '!':
      return (scope) => !truthy(first(scope));
    case '!!':
      return (scope) => truthy(first(scope));
    case 'if':
      return (scope) => {
        let i = 0;
        for (; i + 1 < parts.length; i += 2) {
          if (truthy(part(i)(scope))) return part(i + 1)(scope);
        }
        return part(i)(scope);
      };
    case '===':
      return (scope) => first(scope) === second(scope);
    case '!==':
      return (scope) => first(scope) !== second(scope);
    case '<':
      return (scope) => lessThan(parts.map((p) => p(scope)));
    case '<=':
      return (scope) => atMost(parts.map((p) => p(scope)));
    case '>':
      return (scope) => greaterThan(parts.map((p) => p(scope)));
    case '>=':
      return (scope) => atLeast(parts.map((p) => p(scope)));
    case 'in':
      return (scope) => {
        const needle = first(scope);
        const haystack = second(scope);
        if (Array.isArray(haystack)) return (haystack as readonly Value[]).includes(needle);
        // As json-logic-js: an empty string contains nothing.
        return (
          typeof haystack === 'string' && haystack !== '' && typeof needle === 'string' && haystack.includes(needle)
        );
      };
    case 'some':
    case 'all':
    case 'none': {
      const test = second;
      const holds = (scope: Scope, element: Value): boolean => truthy(test({ facts: scope.facts, element }));
      if (op === 'some') return (scope) => listOf(first(scope)).some((e) => holds(scope, e));
      if (op === 'none') return (scope) => !listOf(first(scope)).some((e) => holds(scope, e));
      return (scope) => {
        const list = listOf(first(scope));
        return list.length > 0 && list.every((e) => holds(scope, e));
      };
    }
    default:
      // Unreachable for a checked condition.
      throw new Error(`unchecked JSON-Logic operator ${name}`);
  }
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
