/**
 * Loading the permissions policy named by `--permissions`. This first version checks what start-up
 * needs (a JSON object whose `roles` hold the required roles); the full schema and compilation come
 * with the policy engine.
 */
import { readFileSync } from 'node:fs';

export const REQUIRED_ROLES = ['superuser', 'authenticated', 'anonymous', 'locked'] as const;

/** Largest policy file read, so a stray huge file cannot exhaust memory at start-up. */
const MAX_POLICY_BYTES = 4 * 1024 * 1024;

export interface LoadedPolicy {
  readonly path: string;
  readonly roles: ReadonlySet<string>;
  readonly document: Readonly<Record<string, unknown>>;
}

export type PolicyLoad = { ok: true; policy: LoadedPolicy } | { ok: false; problems: string[] };

export function loadPolicyFile(path: string): PolicyLoad {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_POLICY_BYTES) return { ok: false, problems: [`${path} is larger than 4 MiB`] };
    text = bytes.toString('utf8');
  } catch (error) {
    return { ok: false, problems: [`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`] };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`${path} is not JSON: ${(error as Error).message}`] };
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    return { ok: false, problems: [`${path} is not a JSON object`] };
  }
  const roles = (document as Record<string, unknown>)['roles'];
  if (!Array.isArray(roles) || !roles.every((r) => typeof r === 'string')) {
    return { ok: false, problems: [`${path} has no "roles" list of names`] };
  }
  const missing = REQUIRED_ROLES.filter((r) => !roles.includes(r));
  if (missing.length > 0) {
    return { ok: false, problems: [`${path} lacks the required roles: ${missing.join(', ')}`] };
  }
  return { ok: true, policy: { path, roles: new Set(roles), document: document as Record<string, unknown> } };
}
