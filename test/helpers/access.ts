/**
 * One access check with a default request (user 10 viewing a public dataset owned by user 20); a test
 * gives only the fields it is about.
 */
import { checkAccess } from '../../src/services/policy/engine/check-access.js';
import type { CompiledPolicy } from '../../src/services/policy/engine/compiled-policy.js';
import type { AccessRequest } from '../../src/services/policy/engine/decision.js';

export const ask = (policy: CompiledPolicy, request: Partial<AccessRequest>) =>
  checkAccess(policy, {
    userId: 10,
    owner: 20,
    role: 'authenticated',
    action: 'view',
    item: 'dataset',
    visibility: 'public',
    sharedWith: [],
    ...request,
  });
