/**
 * A policy file from bytes to a compiled policy: read (a huge file is refused unread), lint (every
 * problem, positioned), compile. Start-up, reload and the policy CLIs all go through here, so what
 * the server refuses and what `policy:lint` reports can never disagree.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { compilePolicy } from '../engine/compile.js';
import type { CompiledPolicy } from '../engine/compiled-policy.js';
import type { PolicyDoc } from '../engine/document.js';
import { MAX_POLICY_BYTES } from './bounded-json.js';
import { lintPolicyBytes } from './lint.js';
import type { PositionedProblem } from './problems.js';
import { formatProblem } from './problems.js';

export type PolicyCompilation =
  { ok: true; compiled: CompiledPolicy; document: PolicyDoc } | { ok: false; problems: PositionedProblem[] };
export type PolicyRead = { ok: true; bytes: Buffer } | { ok: false; problem: string };
export type PolicyFileCompilation =
  { ok: true; bytes: Buffer; compiled: CompiledPolicy; document: PolicyDoc } | { ok: false; problems: string[] };

/** Bytes of a policy file → the compiled policy, or every problem found. */
export function compilePolicyBytes(bytes: Uint8Array): PolicyCompilation {
  const linted = lintPolicyBytes(bytes);
  if (linted.document === null) return { ok: false, problems: linted.problems };
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return { ok: true, compiled: compilePolicy(linted.document, sha256), document: linted.document };
}

/** The file's bytes; a huge file is refused without reading it all (a stray log or dump named by mistake). */
export function readPolicyFile(path: string): PolicyRead {
  try {
    const size = statSync(path).size;
    if (size > MAX_POLICY_BYTES) {
      return { ok: false, problem: `${path}: the policy is ${size} bytes, more than the ${MAX_POLICY_BYTES} allowed` };
    }
    return { ok: true, bytes: readFileSync(path) };
  } catch (error) {
    return { ok: false, problem: `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

/** `path:12:5: /roles/3: "manage" is a reserved name …`, one string per problem. */
export const problemLines = (path: string, problems: readonly PositionedProblem[]): string[] =>
  problems.map((p) => `${path}:${formatProblem(p)}`);

/** Reads and compiles a policy file; the problems are report lines (problemLines). */
export function compilePolicyFile(path: string): PolicyFileCompilation {
  const read = readPolicyFile(path);
  if (!read.ok) return { ok: false, problems: [read.problem] };
  const compiled = compilePolicyBytes(read.bytes);
  if (!compiled.ok) return { ok: false, problems: problemLines(path, compiled.problems) };
  return { ok: true, bytes: read.bytes, compiled: compiled.compiled, document: compiled.document };
}
