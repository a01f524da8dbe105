/**
 * The static check of a JSON-Logic condition: only the safe operators (docs/design.md#json-logic-our-own-evaluator: no
 * `==`, no `method`, nothing added with `add_operation`), only the allow-listed variables, each named by a literal
 * string, the right number of arguments, and comparisons that can be true at all. Size and depth
 * are measured first (condition-bounds.ts); the recursion below is then bounded by them.
 */
import { pointer } from '../document.js';
import { MAX_CONDITION_DEPTH, MAX_CONDITION_NODES, measureCondition } from './condition-bounds.js';
import { ARITY, OPERATORS, REFUSED, argumentsOf, isOperator, missingNames, operationOf } from './json-logic-syntax.js';
import type { Operator } from './json-logic-syntax.js';
import type { ConditionProblem, FactType, Scope } from './language.js';
import { VARIABLES } from './language.js';

type Kind = ConditionProblem['kind'];
/** The type a literal or a variable has, when known without evaluating. */
type StaticType = FactType | 'null' | 'array' | 'unknown';

/** What the walk over one condition carries: the scope's variables, and the problems found so far. */
interface Walk {
  readonly scope: Scope;
  readonly variables: ReadonlyMap<string, FactType>;
  readonly problems: ConditionProblem[];
}

/** One operation of the condition, its arity already checked. */
interface Operation {
  readonly op: Operator;
  readonly args: readonly unknown[];
  /** Pointer of the operator's key. */
  readonly at: string;
  /** Pointer of argument i (the operator's, for the shorthand `{"!": x}`). */
  readonly argAt: (i: number) => string;
  /** Inside the condition of some, all or none, where `var` reads the current element. */
  readonly inElement: boolean;
}

type OperationCheck = (walk: Walk, operation: Operation) => void;

const add = (walk: Walk, at: string, kind: Kind, message: string): void => {
  walk.problems.push({ pointer: at, kind, message });
};

const LITERAL_TYPES: Readonly<Record<string, StaticType>> = { number: 'number', string: 'string', boolean: 'boolean' };

const literalType = (value: unknown): StaticType => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return LITERAL_TYPES[typeof value] ?? 'unknown';
};

/** The type of an argument when it is a literal or a variable; 'unknown' for other operations. */
function staticType(walk: Walk, value: unknown): StaticType {
  const op = operationOf(value);
  if (op === null) return literalType(value);
  const [name, args] = op;
  if (name !== 'var') return name === '!' || name === '!!' ? 'boolean' : 'unknown';
  const variable = argumentsOf(args)[0];
  return typeof variable === 'string' ? (walk.variables.get(variable) ?? 'unknown') : 'unknown';
}

const described = (value: unknown): string => {
  const op = operationOf(value);
  return op?.[0] === 'var' ? `the variable ${JSON.stringify(argumentsOf(op[1])[0])}` : JSON.stringify(value);
};

function checkVariable(walk: Walk, name: unknown, at: string, inElement: boolean): void {
  if (typeof name !== 'string') {
    add(walk, at, 'variable', 'a variable is named by a literal string');
  } else if (name === '') {
    if (!inElement)
      add(walk, at, 'variable', 'var "" (the current element) is only meaningful inside some, all or none');
  } else if (inElement) {
    add(walk, at, 'variable', `inside some, all or none, var reads the current element: only var "" is allowed there`);
  } else if (!walk.variables.has(name)) {
    const known = [...walk.variables.keys()].join(', ');
    add(walk, at, 'variable', `"${name.slice(0, 64)}" is not a variable of ${walk.scope} rules (they are: ${known})`);
  }
}

const visitArguments: OperationCheck = (walk, { args, argAt, inElement }) => {
  args.forEach((arg, i) => visit(walk, arg, argAt(i), inElement));
};

const checkVar: OperationCheck = (walk, { args, argAt, inElement }) => {
  checkVariable(walk, args[0], argAt(0), inElement);
};

const checkMissing: OperationCheck = (walk, { args, argAt }) => {
  const names = missingNames(args);
  const at = (i: number): string => (names === args ? argAt(i) : `${argAt(0)}/${i}`);
  names.forEach((name, i) => checkVariable(walk, name, at(i), false));
};

/** some, all, none: a list, then a condition on each element. */
const checkQuantifier: OperationCheck = (walk, { args, argAt, inElement }) => {
  visit(walk, args[0], argAt(0), inElement);
  visit(walk, args[1], argAt(1), true);
};

const compareNumbers: OperationCheck = (walk, { op, args, argAt, inElement }) => {
  args.forEach((arg, i) => {
    const type = staticType(walk, arg);
    if (type !== 'number' && type !== 'unknown') {
      const what = type === 'array' || type === 'number[]' ? 'a list' : `a ${type}`;
      add(walk, argAt(i), 'never-matches', `${op} compares numbers only, and ${described(arg)} is ${what}`);
    }
    visit(walk, arg, argAt(i), inElement);
  });
};

const compareStrictly: OperationCheck = (walk, operation) => {
  const { op, args, at } = operation;
  const [a, b] = [staticType(walk, args[0]), staticType(walk, args[1])];
  if (a !== 'unknown' && b !== 'unknown' && (a !== b || a === 'number[]' || a === 'array')) {
    const never = op === '===' ? 'is never true' : 'is always true';
    const why = a === b ? 'lists are never equal' : `a ${a} never equals a ${b}`;
    const message = `${op} ${never}: ${described(args[0])} and ${described(args[1])} are compared strictly, and ${why}`;
    add(walk, at, op === '===' ? 'never-matches' : 'condition', message);
  }
  visitArguments(walk, operation);
};

/** What each operator checks beyond its arity. */
const OPERATION_CHECKS: Readonly<Record<Operator, OperationCheck>> = {
  and: visitArguments,
  or: visitArguments,
  '!': visitArguments,
  '!!': visitArguments,
  if: visitArguments,
  '===': compareStrictly,
  '!==': compareStrictly,
  '<': compareNumbers,
  '<=': compareNumbers,
  '>': compareNumbers,
  '>=': compareNumbers,
  in: visitArguments,
  some: checkQuantifier,
  all: checkQuantifier,
  none: checkQuantifier,
  var: checkVar,
  missing: checkMissing,
};

/** An object of the condition read as an operation, or null once the reason it is not one is reported. */
function operationAt(walk: Walk, value: object, at: string, inElement: boolean): Operation | null {
  const keys = Object.keys(value);
  if (keys.length !== 1) {
    const message = `an operation is an object with exactly one key, the operator (this one has ${keys.length})`;
    add(walk, at, 'condition', message);
    return null;
  }
  const [name = ''] = keys;
  const raw = (value as Record<string, unknown>)[name];
  const opAt = `${at}${pointer(name)}`;
  if (!isOperator(name)) {
    const why = Object.hasOwn(REFUSED, name) ? `: ${REFUSED[name]}` : '';
    const message = `"${name.slice(0, 64)}" is not an operator of the rule language${why} (they are: ${OPERATORS.join(' ')})`;
    add(walk, opAt, 'operator', message);
    return null;
  }
  const args = argumentsOf(raw);
  const [min, max, wants] = ARITY[name];
  if (args.length < min || args.length > max) {
    add(walk, opAt, 'condition', `${name} takes ${wants}, not ${args.length}`);
    return null;
  }
  const argAt = (i: number): string => (Array.isArray(raw) ? `${opAt}/${i}` : opAt);
  return { op: name, args, at: opAt, argAt, inElement };
}

function visit(walk: Walk, value: unknown, at: string, inElement: boolean): void {
  if (Array.isArray(value)) {
    value.forEach((element, i) => visit(walk, element, `${at}/${i}`, inElement));
  } else if (value !== null && typeof value === 'object') {
    const operation = operationAt(walk, value, at, inElement);
    if (operation !== null) OPERATION_CHECKS[operation.op](walk, operation);
  }
}

/** Too many nodes, or nested too deep: found by a flat scan, before anything recursive runs. */
function sizeProblems(condition: unknown): ConditionProblem[] {
  const size = measureCondition(condition);
  const problems: ConditionProblem[] = [];
  if (size.nodes > MAX_CONDITION_NODES) {
    const message = `the condition has more than ${MAX_CONDITION_NODES} nodes`;
    problems.push({ pointer: '', kind: 'condition-size', message });
  }
  if (size.tooDeepAt !== null) {
    const message = `the condition nests operations more than ${MAX_CONDITION_DEPTH} deep`;
    problems.push({ pointer: size.tooDeepAt, kind: 'condition-depth', message });
  }
  return problems;
}

export function checkJsonLogic(condition: unknown, scope: Scope): ConditionProblem[] {
  const problems = sizeProblems(condition);
  if (problems.length > 0) return problems;
  visit({ scope, variables: VARIABLES[scope], problems }, condition, '', false);
  return problems;
}
