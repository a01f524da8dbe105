/**
 * Loading the permissions policy named by `--permissions` (the one enforced, docs/design.md#the-policy-in-force):
 * the authoring side finds every problem (size and depth before anything recursive, the schema, the
 * semantic checks, the rules), then the engine compiles it. Start-up refuses with the list; a reload
 * keeps the policy in force (reload.ts).
 */
import type { CompiledPolicy } from './engine/compiled-policy.js';
import { compilePolicyBytes, problemLines, readPolicyFile } from './authoring/policy-file.js';

export { REQUIRED_ROLES } from './engine/document.js';

export interface LoadedPolicy {
  readonly path: string;
  /** The bytes compiled: what a cluster primary hands its workers. */
  readonly bytes: Buffer;
  readonly roles: ReadonlySet<string>;
  readonly compiled: CompiledPolicy;
}

export type PolicyLoad = { ok: true; policy: LoadedPolicy } | { ok: false; problems: string[] };

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
