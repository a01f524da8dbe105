/**
 * The caller's relation to the target, computed once before the check (docs/design.md#casl-one-ability-per-role):
 * conditions that named the caller's id would need an ability per user per request. With the relation in the subject,
 * one ability per role, compiled at start-up, answers every request.
 */
import { ANONYMOUS_ID } from '../../../domain/fixed-accounts.js';

/** owner: the caller owns the item; shared: listed in target_sharedwith (or everyone is); other: neither. */
export type Relation = 'owner' | 'shared' | 'other';

/**
 * Roles that skip the relationship gate, as in the reference (§4.3): by name, whatever the policy.
 * They remain limited by their allowed_actions_for_other.
 */
export const GATE_FREE_ROLES: ReadonlySet<string> = new Set(['superuser', 'staff']);

export function relationOf(userId: number, owner: number, sharedWith: readonly number[]): Relation {
  if (userId === owner) return 'owner';
  if (sharedWith.includes(userId) || sharedWith.includes(ANONYMOUS_ID)) return 'shared';
  return 'other';
}

const EVERYONE: ReadonlySet<Relation> = new Set<Relation>(['owner', 'shared', 'other']);
const OWNER_AND_SHARED: ReadonlySet<Relation> = new Set<Relation>(['owner', 'shared']);
const OWNER_ONLY: ReadonlySet<Relation> = new Set<Relation>(['owner']);
const NOBODY: ReadonlySet<Relation> = new Set<Relation>();

/**
 * The relations the relationship gate lets through for one role and visibility (reference §4.3,
 * step A): public and unlisted let everyone through, shared the owner and those it is shared with,
 * private the owner only, and a visibility the gate does not know nobody, not even the owner.
 * Superuser and staff pass whatever the visibility.
 */
export function gateOpensTo(role: string, visibility: string): ReadonlySet<Relation> {
  if (GATE_FREE_ROLES.has(role)) return EVERYONE;
  switch (visibility) {
    case 'public':
    case 'unlisted':
      return EVERYONE;
    case 'shared':
      return OWNER_AND_SHARED;
    case 'private':
      return OWNER_ONLY;
    default:
      return NOBODY;
  }
}
