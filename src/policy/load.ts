/**
 * Loading the permissions policy named by `--permissions` (the one enforced, DESIGN decision 15):
 * bounded parse (size and depth before anything recursive), the schema, the semantic checks, then
 * compilation. Any problem is reported, and start-up refuses with the list.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { compilePolicy } from './compile.js';
import type { CompiledPolicy } from './compiled.js';
import { MAX_POLICY_BYTES, MAX_POLICY_DEPTH, parseJsonBounded } from './parse.js';
import { checkSchema } from './schema.js';
import { semanticProblems } from './semantics.js';

export { REQUIRED_ROLES } from './document.js';

export interface LoadedPolicy {
  readonly path: string;
  readonly roles: ReadonlySet<string>;
  readonly compiled: CompiledPolicy;
}

export type PolicyCompilation = { ok: true; compiled: CompiledPolicy } | { ok: false; problems: string[] };
export type PolicyLoad = { ok: true; policy: LoadedPolicy } | { ok: false; problems: string[] };

/** Bytes of a policy file → the compiled policy, or every problem found. */
export function compilePolicyBytes(bytes: Uint8Array): PolicyCompilation {
  const parsed = parseJsonBounded(bytes, MAX_POLICY_BYTES, MAX_POLICY_DEPTH);
  if (!parsed.ok) return { ok: false, problems: [`the policy ${parsed.problem}`] };
  const checked = checkSchema(parsed.value);
  if (!checked.ok) return { ok: false, problems: checked.problems };
  const problems = semanticProblems(checked.document);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, compiled: compilePolicy(checked.document, createHash('sha256').update(bytes).digest('hex')) };
}

export function loadPolicyFile(path: string): PolicyLoad {
  let bytes: Buffer;
  try {
    // Refuse a huge file without reading it all (a stray log or dump named by mistake).
    const size = statSync(path).size;
    if (size > MAX_POLICY_BYTES) {
      return {
        ok: false,
        problems: [`${path}: the policy is ${size} bytes, more than the ${MAX_POLICY_BYTES} allowed`],
      };
    }
    bytes = readFileSync(path);
  } catch (error) {
    return { ok: false, problems: [`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`] };
  }
  const compiled = compilePolicyBytes(bytes);
  if (!compiled.ok) return { ok: false, problems: compiled.problems.map((p) => `${path}: ${p}`) };
  return { ok: true, policy: { path, roles: compiled.compiled.roles, compiled: compiled.compiled } };
}
