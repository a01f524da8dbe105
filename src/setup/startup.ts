/**
 * Start-up's first step in every process: the configuration and the policy it names, checked
 * together. Kept apart from the composition root (app.ts) so that a cluster primary, which serves no
 * requests, reads its configuration without loading the HTTP app and the actions.
 */
import type { Inputs } from '../config/inputs.js';
import { resolveConfig } from '../config/load.js';
import type { Config, PolicyLocation } from '../config/load.js';
import { loadPolicyBytes, loadPolicyFile } from '../services/policy/load.js';
import type { LoadedPolicy, PolicyLoad } from '../services/policy/load.js';

export type Startup =
  | { readonly ok: true; readonly config: Config; readonly policy: LoadedPolicy }
  | { readonly ok: false; readonly problems: string[] };

/** The policy at `at`, from the file or from the given bytes; each problem names the item. */
function loadPolicyAt(at: PolicyLocation, bytes: Uint8Array | null): PolicyLoad {
  const loaded = bytes === null ? loadPolicyFile(at.path) : loadPolicyBytes(at.path, bytes);
  return loaded.ok ? loaded : { ok: false, problems: loaded.problems.map((p) => `${at.label}: ${p}`) };
}

/**
 * The configuration and the policy it names, checked together: start-up refuses with every problem
 * of both in one message. `policyBytes` is the document a cluster worker's primary enforces, which
 * may differ from the file after a refused reload.
 */
export async function loadStartup(inputs: Inputs, policyBytes: Uint8Array | null = null): Promise<Startup> {
  const resolved = await resolveConfig(inputs);
  const policy = resolved.permissions === null ? null : loadPolicyAt(resolved.permissions, policyBytes);
  if (resolved.ok && policy?.ok === true) {
    // A misspelt role would silently require nothing of anyone (docs/design.md#second-factors).
    const roles = policy.policy.roles;
    const unknown = resolved.config.mfaRequiredRoles.filter((role) => !roles.has(role));
    if (unknown.length === 0) return { ok: true, config: resolved.config, policy: policy.policy };
    return {
      ok: false,
      problems: [
        `mfarequired names ${unknown.map((r) => `"${r}"`).join(', ')}, not a role of the policy in force ` +
          `(its roles: ${[...roles].join(', ')})`,
      ],
    };
  }
  return {
    ok: false,
    problems: [...(resolved.ok ? [] : resolved.problems), ...(policy?.ok === false ? policy.problems : [])],
  };
}
