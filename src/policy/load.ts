/**
 * Loading the permissions policy named by `--permissions` (the one enforced, DESIGN decision 15):
 * lint.ts finds every problem (size and depth before anything recursive, the schema, the semantic
 * checks, the rules), then the policy is compiled. Start-up refuses with the list; a reload keeps
 * the policy in force.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { compilePolicy } from './compile.js';
import type { CompiledPolicy } from './compiled.js';
import type { PolicyDoc } from './document.js';
import { lintPolicyBytes } from './lint.js';
import { MAX_POLICY_BYTES } from './parse.js';
import type { PositionedProblem } from './problems.js';
import { formatProblem } from './problems.js';

export { REQUIRED_ROLES } from './document.js';

export interface LoadedPolicy {
  readonly path: string;
  /** The bytes compiled: what a cluster primary hands its workers. */
  readonly bytes: Buffer;
  readonly roles: ReadonlySet<string>;
  readonly compiled: CompiledPolicy;
}

export type PolicyCompilation =
  { ok: true; compiled: CompiledPolicy; document: PolicyDoc } | { ok: false; problems: PositionedProblem[] };
export type PolicyLoad = { ok: true; policy: LoadedPolicy } | { ok: false; problems: string[] };
export type PolicyRead = { ok: true; bytes: Buffer } | { ok: false; problem: string };

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

/** A policy from given bytes (a cluster worker gets them from its primary), reported as from `path`. */
export function loadPolicyBytes(path: string, bytes: Uint8Array): PolicyLoad {
  const compiled = compilePolicyBytes(bytes);
  if (!compiled.ok) return { ok: false, problems: problemLines(path, compiled.problems) };
  return {
    ok: true,
    policy: { path, bytes: Buffer.from(bytes), roles: compiled.compiled.roles, compiled: compiled.compiled },
  };
}

export function loadPolicyFile(path: string): PolicyLoad {
  const read = readPolicyFile(path);
  if (!read.ok) return { ok: false, problems: [read.problem] };
  return loadPolicyBytes(path, read.bytes);
}
