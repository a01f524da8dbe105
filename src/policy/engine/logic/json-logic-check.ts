/**
 * The static check of a JSON-Logic condition: only the safe operators (trap P4: no `==`, no `method`,
 * nothing added with `add_operation`), only the allow-listed variables, each named by a literal
 * string, the right number of arguments, and comparisons that can be true at all. Size and depth
 * are measured first (condition-bounds.ts); the recursion below is then bounded by them.
 */
import { pointer } from '../document.js';
import type { ConditionProblem, FactType, Scope } from './language.js';
import { VARIABLES } from './language.js';
import { MAX_CONDITION_DEPTH, MAX_CONDITION_NODES, measureCondition } from './condition-bounds.js';

export const OPERATORS = [
  'and',
  'or',
  '!',
  '!!',
  'if',
  '===',
  '!==',
  '<',
  '<=',
  '>',
  '>=',
  'in',
  'some',
  'all',
  'none',
  'var',
  'missing',
] as const;
export type Operator = (typeof OPERATORS)[number];
const OPERATOR_SET: ReadonlySet<string> = new Set(OPERATORS);

/** Operators of JSON-Logic (and of json-logic-js) we refuse, with the reason an author needs. */
const REFUSED: Readonly<Record<string, string>> = {
  '==': 'loose equality ("1" == 1) is refused: use ===',
  '!=': 'loose inequality is refused: use !==',
  method: 'calling methods is refused',
};

/** Arguments of an operation, with JSON-Logic's shorthand: `{"!": x}` means `{"!": [x]}`. */
export const argumentsOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

export const operationOf = (value: unknown): [string, unknown] | null => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const entries = Object.entries(value);
  return entries.length === 1 ? (entries[0] ?? null) : null;
};

type Kind = ConditionProblem['kind'];
/** The type a literal or a variable has, when known without evaluating. */
type StaticType = FactType | 'null' | 'array' | 'unknown';

const literalType = (value: unknown): StaticType => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    default:
      return 'unknown';
  }
};

const ARITY: Readonly<Record<Operator, readonly [number, number, string]>> = {
  and: [1, Infinity, 'at least one argument'],
  or: [1, Infinity, 'at least one argument'],
  '!': [1, 1, 'one argument'],
  '!!': [1, 1, 'one argument'],
  if: [2, Infinity, 'a condition and a result, then optionally more condition-result pairs and an else result'],
  '===': [2, 2, 'two arguments'],
  '!==': [2, 2, 'two arguments'],
  '<': [2, 3, 'two arguments (or three: a < b < c)'],
  '<=': [2, 3, 'two arguments (or three: a <= b <= c)'],
  '>': [2, 2, 'two arguments'],
  '>=': [2, 2, 'two arguments'],
  in: [2, 2, 'two arguments: a value and a list or a string'],
  some: [2, 2, 'two arguments: a list and a condition on each element'],
  all: [2, 2, 'two arguments: a list and a condition on each element'],
  none: [2, 2, 'two arguments: a list and a condition on each element'],
  var: [1, 1, 'one variable name (every variable always has a value, so a default would never be used)'],
  missing: [1, Infinity, 'at least one variable name'],
};

export function checkJsonLogic(condition: unknown, scope: Scope): ConditionProblem[] {
  const size = measureCondition(condition);
  const problems: ConditionProblem[] = [];
  const add = (at: string, kind: Kind, message: string): void => {
    problems.push({ pointer: at, kind, message });
  };
  if (size.nodes > MAX_CONDITION_NODES) {
    add('', 'condition-size', `the condition has more than ${MAX_CONDITION_NODES} nodes`);
  }
  if (size.tooDeepAt !== null) {
    add(size.tooDeepAt, 'condition-depth', `the condition nests operations more than ${MAX_CONDITION_DEPTH} deep`);
  }
  if (problems.length > 0) return problems;

  const variables = VARIABLES[scope];
  const known = [...variables.keys()].join(', ');

  /** The type of an argument when it is a literal or a variable; 'unknown' for other operations. */
  const staticType = (value: unknown): StaticType => {
    const op = operationOf(value);
    if (op === null) return literalType(value);
    const [name, args] = op;
    if (name !== 'var') return name === '!' || name === '!!' ? 'boolean' : 'unknown';
    const variable = argumentsOf(args)[0];
    return typeof variable === 'string' ? (variables.get(variable) ?? 'unknown') : 'unknown';
  };
  const described = (value: unknown): string => {
    const op = operationOf(value);
    return op?.[0] === 'var' ? `the variable ${JSON.stringify(argumentsOf(op[1])[0])}` : JSON.stringify(value);
  };

  const checkVariable = (name: unknown, at: string, inElement: boolean): void => {
    if (typeof name !== 'string') {
      add(at, 'variable', 'a variable is named by a literal string');
    } else if (name === '') {
      if (!inElement) add(at, 'variable', 'var "" (the current element) is only meaningful inside some, all or none');
    } else if (inElement) {
      add(at, 'variable', `inside some, all or none, var reads the current element: only var "" is allowed there`);
    } else if (!variables.has(name)) {
      add(at, 'variable', `"${name.slice(0, 64)}" is not a variable of ${scope} rules (they are: ${known})`);
    }
  };

  const visit = (value: unknown, at: string, inElement: boolean): void => {
    if (Array.isArray(value)) {
      value.forEach((element, i) => visit(element, `${at}/${i}`, inElement));
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const keys = Object.keys(value);
    if (keys.length !== 1) {
      add(
        at,
        'condition',
        `an operation is an object with exactly one key, the operator (this one has ${keys.length})`,
      );
      return;
    }
    const [name = ''] = keys;
    const raw = (value as Record<string, unknown>)[name];
    const opAt = `${at}${pointer(name)}`;
    if (!OPERATOR_SET.has(name)) {
      const why = Object.hasOwn(REFUSED, name) ? `: ${REFUSED[name]}` : '';
      add(
        opAt,
        'operator',
        `"${name.slice(0, 64)}" is not an operator of the rule language${why} (they are: ${OPERATORS.join(' ')})`,
      );
      return;
    }
    const op = name as Operator;
    const args = argumentsOf(raw);
    const argAt = (i: number): string => (Array.isArray(raw) ? `${opAt}/${i}` : opAt);
    const [min, max, wants] = ARITY[op];
    if (args.length < min || args.length > max) {
      add(opAt, 'condition', `${op} takes ${wants}, not ${args.length}`);
      return;
    }
    switch (op) {
      case 'var':
        checkVariable(args[0], argAt(0), inElement);
        return;
      case 'missing': {
        const names = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
        const base = args.length === 1 && Array.isArray(args[0]) ? argAt(0) : null;
        names.forEach((n, i) => checkVariable(n, base === null ? argAt(i) : `${base}/${i}`, false));
        return;
      }
      case 'some':
      case 'all':
      case 'none':
        visit(args[0], argAt(0), inElement);
        visit(args[1], argAt(1), true);
        return;
      case '<':
      case '<=':
      case '>':
      case '>=':
        args.forEach((arg, i) => {
          const type = staticType(arg);
          if (type !== 'number' && type !== 'unknown') {
            add(
              argAt(i),
              'never-matches',
              `${op} compares numbers only, and ${described(arg)} is ${type === 'array' || type === 'number[]' ? 'a list' : `a ${type}`}`,
            );
          }
          visit(arg, argAt(i), inElement);
        });
        return;
      case '===':
      case '!==': {
        const [a, b] = [staticType(args[0]), staticType(args[1])];
        if (a !== 'unknown' && b !== 'unknown' && (a !== b || a === 'number[]' || a === 'array')) {
          const never = op === '===' ? 'is never true' : 'is always true';
          add(
            opAt,
            op === '===' ? 'never-matches' : 'condition',
            `${op} ${never}: ${described(args[0])} and ${described(args[1])} are compared strictly, and ${a === b ? 'lists are never equal' : `a ${a} never equals a ${b}`}`,
          );
        }
        args.forEach((arg, i) => visit(arg, argAt(i), inElement));
        return;
      }
      default:
        args.forEach((arg, i) => visit(arg, argAt(i), inElement));
    }
  };
  visit(condition, '', false);
  return problems;
}
