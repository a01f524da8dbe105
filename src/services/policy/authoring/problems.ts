/**
 * A problem of a policy, as start-up, reload and `policy:lint` report it: where (a JSON pointer, and
 * a line and column once positioned), what kind, and a sentence for the policy author.
 */

export type ProblemKind =
  | 'file' // size, encoding, empty
  | 'syntax' // not JSON
  | 'nesting' // too deep to read safely
  | 'schema' // structure: types, required and unknown keys, names
  | 'reserved-name' // manage, all
  | 'duplicate' // a name listed twice, a key written twice
  | 'reference' // a name used but not declared
  | 'required-role'
  | 'missing-entry' // a role or item without its policy entry
  | 'limit' // a fractional limit of an int kind
  | 'never-matches' // a rule or comparison that can never hold
  | 'operator' // outside the safe set
  | 'variable' // outside the allow-list
  | 'condition' // a malformed condition
  | 'condition-size'
  | 'condition-depth';

export interface Problem {
  /** JSON pointer of the part at fault ('' = the whole policy). */
  readonly pointer: string;
  readonly kind: ProblemKind;
  readonly message: string;
}

export interface PositionedProblem extends Problem {
  /** 1-based line and column (in characters) of the part at fault. */
  readonly line: number;
  readonly column: number;
}

/** `/roles/3: "manage" is a reserved name …`; a problem of the whole policy says so in its message. */
export const describeProblem = (p: Problem): string => (p.pointer === '' ? p.message : `${p.pointer}: ${p.message}`);

/** `12:5: /roles/3: "manage" is a reserved name …` */
export const formatProblem = (p: PositionedProblem): string => `${p.line}:${p.column}: ${describeProblem(p)}`;
