/**
 * `authsvc policy check [FILE]`: every problem of the policy with its line and column (the checks of
 * `policy:lint`), then the compilation start-up runs, so a file that passes is one the server loads.
 */
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { lintFile } from '../services/policy/authoring/lint.js';
import type { ProblemKind } from '../services/policy/authoring/problems.js';
import { loadPolicyFile } from '../services/policy/load.js';

/** A problem as printed: lint's kinds, or `compile` for what only the engine's compilation found. */
interface Checked {
  readonly line: number;
  readonly column: number;
  readonly pointer: string;
  readonly kind: ProblemKind | 'compile';
  readonly message: string;
}

export function checkPolicy(
  file: string,
  json: boolean,
  terminal: { readonly stdout: Writable; readonly stderr: Writable },
): number {
  const path = resolve(file);
  const linted = lintFile(path);
  if (!linted.ok) {
    terminal.stderr.write(`authsvc: ${linted.error}\n`);
    return 2;
  }
  const problems: Checked[] = linted.problems.map(({ line, column, pointer, kind, message }) => ({
    line,
    column,
    pointer,
    kind,
    message,
  }));
  if (problems.length === 0) {
    const loaded = loadPolicyFile(path);
    if (!loaded.ok) {
      problems.push(
        ...loaded.problems.map((message) => ({ line: 1, column: 1, pointer: '', kind: 'compile' as const, message })),
      );
    }
  }
  if (json) terminal.stdout.write(`${JSON.stringify({ file: path, problems })}\n`);
  else {
    for (const problem of problems)
      terminal.stdout.write(
        `${path}:${problem.line}:${problem.column}: ${problem.pointer === '' ? problem.message : `${problem.pointer}: ${problem.message}`}\n`,
      );
    const n = problems.length;
    terminal.stdout.write(`${path}: ${n === 0 ? 'no problems' : `${n} problem${n === 1 ? '' : 's'}`}\n`);
  }
  return problems.length === 0 ? 0 : 1;
}
