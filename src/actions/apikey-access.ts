/**
 * The access check of the API key actions (reference §2.5: `user-check-access` on item `apikey`,
 * visibility `private`, the key's user as owner): the policy in force decides, then the caller must
 * exist, be active and hold the role it claims, and the owner must exist and be active.
 */
import { invalid } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import type { ActionInput, Problem } from '../protocol/index.js';
import type { KeyRecord } from '../services/store/api-keys.js';
import { decideAccess } from './access.js';
import type { Deps } from './define.js';

export type KeyAccess = 'ok' | 'denied' | 'caller_not_valid';

/** Access granted, with the owner's credential generation as the check read it (what an issued key records). */
export interface Granted {
  readonly generation: number;
}

/**
 * The check, and on a grant the owner's credential generation, read in the same statement as the
 * standings the grant rests on (docs/design.md#revocation-fence): a revocation committed after that
 * read bumps the generation, so a key recording it never verifies; one committed before it refuses here.
 */
export async function grantedKeyAccess(
  deps: Deps,
  caller: { readonly userId: number; readonly role: string },
  action: 'create' | 'view' | 'delete',
  owner: number,
): Promise<Granted | Exclude<KeyAccess, 'ok'>> {
  // The owner id of a presented dict may be anything: out of range, it is nobody's key.
  if (!Number.isInteger(owner) || owner < 1 || owner > 2_147_483_647) return 'denied';
  const { result, standings } = await decideAccess(deps, {
    user_id: caller.userId,
    user_role: caller.role,
    action,
    target_name: 'apikey',
    target_owner: owner,
    target_visibility: 'private',
    target_sharedwith: '',
  });
  const standing = standings.get(owner);
  if (result.ok && standing !== undefined) return { generation: standing.credentialGeneration };
  return !result.ok && result.code === 'caller_not_valid' ? 'caller_not_valid' : 'denied';
}

export async function keyAccess(
  deps: Deps,
  caller: { readonly userId: number; readonly role: string },
  action: 'create' | 'view' | 'delete',
  owner: number,
): Promise<KeyAccess> {
  const access = await grantedKeyAccess(deps, caller, action, owner);
  return typeof access === 'string' ? access : 'ok';
}

const SECOND = 1000;

/** Lifetimes in ms from the request's seconds; not-valid-before must come before expiry. */
export function lifetime(
  now: number,
  expiresSeconds: number,
  nbfSeconds: number,
  nbfParam: string,
): { readonly nbf: number; readonly expires: number } | Problem {
  const expires = now + expiresSeconds * SECOND;
  const nbf = now + Math.round(nbfSeconds * SECOND);
  if (nbf >= expires) return { param: nbfParam, problem: 'invalid value', required_type: ['int', 'float'] };
  return { nbf, expires };
}

export const isProblem = (value: object): value is Problem => 'problem' in value;

/** A refusal of lifetimes that passed the schema but not together (not-valid-before after expiry). */
export function badLifetime<T>(problem: Problem, items: Partial<T>): Result<T, 'invalid_params'> {
  return invalid([problem], items);
}

/** The fields a new key of either kind records from its request, and the IP address it is bound to. */
export const requestedFields = (
  input: Pick<ActionInput<'apikey-new'>, 'user_id' | 'user_role' | 'issuer' | 'audience' | 'subject' | 'apiversion'>,
  ipAddress: string,
): Pick<KeyRecord, 'userId' | 'userRole' | 'issuer' | 'audience' | 'subject' | 'apiversion' | 'ipAddress'> => ({
  userId: input.user_id,
  userRole: input.user_role,
  issuer: input.issuer,
  audience: input.audience,
  subject: input.subject,
  // As stored: the reference's clients may send the digits as a string.
  apiversion: typeof input.apiversion === 'number' ? input.apiversion : Number(input.apiversion),
  ipAddress,
});
