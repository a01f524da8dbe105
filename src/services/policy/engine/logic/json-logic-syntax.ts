/**
 * The syntax of our JSON-Logic (docs/design.md#rules-and-conditions), shared by the static check and the evaluator:
 * the safe operators, how many arguments each takes, and how an operation is read.
 */

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

export const isOperator = (name: string): name is Operator => OPERATOR_SET.has(name);

/** Operators of JSON-Logic (and of json-logic-js) we refuse, with the reason an author needs. */
export const REFUSED: Readonly<Record<string, string>> = {
  '==': 'loose equality ("1" == 1) is refused: use ===',
  '!=': 'loose inequality is refused: use !==',
  method: 'calling methods is refused',
};

/** Fewest and most arguments of each operator, and how to say so to the author. */
export const ARITY: Readonly<Record<Operator, readonly [number, number, string]>> = {
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

/** Arguments of an operation, with JSON-Logic's shorthand: `{"!": x}` means `{"!": [x]}`. */
export const argumentsOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** `{"op": args}` → [op, args]; null for a literal (anything but an object with exactly one key). */
export const operationOf = (value: unknown): [string, unknown] | null => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const entries = Object.entries(value);
  return entries.length === 1 ? (entries[0] ?? null) : null;
};

/** The names `missing` lists: its arguments, or the one list given as its only argument. */
export const missingNames = (args: readonly unknown[]): readonly unknown[] =>
  args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
