/** What the actions use of passwords: the hasher (behind the hash queue) and the policy check. */
import type { PasswordHasher } from './password-hashing.js';
import { checkPassword } from './password-policy.js';
import type { PassPolicy, PasswordContext, PolicyDeps, PolicyVerdict } from './password-policy.js';

export interface PasswordService {
  readonly hasher: PasswordHasher;
  /** The server's policy (`--passpolicy`). */
  readonly policy: PassPolicy;
  /** Checks a password against the server's policy, or against `thresholds` when given. */
  check(password: string, context: PasswordContext, thresholds?: PassPolicy): Promise<PolicyVerdict>;
}

export function passwordService(hasher: PasswordHasher, policy: PassPolicy, deps: PolicyDeps): PasswordService {
  return {
    hasher,
    policy,
    check: (password, context, thresholds = policy) => checkPassword(password, context, thresholds, deps),
  };
}
