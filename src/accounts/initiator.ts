/**
 * The initiator of user-edit and user-lock (spec: user_id, user_role, session_token "initiator"). The
 * frontend says who is asking; we believe it only when the session exists, is unexpired and belongs
 * to that user, and the user's stored role is the one claimed (a forged `superuser` is refused), is
 * a role of the policy in force (docs/design.md#roles-the-policy-lacks) and the user is active.
 */
import { ANONYMOUS_ID, DUMMY_ID } from '../domain/fixed-accounts.js';
import type { Clock } from '../domain/ports.js';
import { INITIATOR_FAILURES } from '../protocol/index.js';
import { hashToken } from '../domain/tokens.js';
import type { Store } from '../services/store/index.js';
import type { UserRecord } from '../services/store/index.js';

/** What the check reads: the sessions with their users, the clock, and the roles of the policy in force. */
export interface InitiatorDeps {
  readonly clock: Clock;
  readonly store: Pick<Store, 'sessions'>;
  /** Only the role names are read, so any source of the compiled policy fits. */
  readonly policy: { current(): { readonly roles: ReadonlySet<string> } };
}

export type InitiatorFailure = (typeof INITIATOR_FAILURES)[number];

/** One end-user message for every failure of the initiator check: none says more than that it failed. */
export const initiatorMessages = (message: string): Readonly<Record<InitiatorFailure, string>> =>
  Object.fromEntries(INITIATOR_FAILURES.map((code) => [code, message])) as Record<InitiatorFailure, string>;

export interface InitiatorClaim {
  readonly user_id: number;
  readonly user_role: string;
  readonly session_token: string;
}

export type InitiatorCheck =
  { readonly ok: true; readonly user: UserRecord } | { readonly ok: false; readonly code: InitiatorFailure };

export async function checkInitiator(deps: InitiatorDeps, claim: InitiatorClaim): Promise<InitiatorCheck> {
  const found = await deps.store.sessions.findWithUser(hashToken(claim.session_token), deps.clock.now());
  if (found === null) return { ok: false, code: 'session_not_found' };
  const { user } = found;
  if (user.userId !== claim.user_id) return { ok: false, code: 'session_mismatch' };
  if (user.userRole !== claim.user_role) return { ok: false, code: 'role_mismatch' };
  if (!deps.policy.current().roles.has(user.userRole)) return { ok: false, code: 'role_not_in_policy' };
  if (!user.isActive) return { ok: false, code: 'caller_not_valid' };
  return { ok: true, user };
}

/** Whether `token` is an unexpired session of an active superuser (user-delete without a password). */
export async function isSuperuserSession(deps: InitiatorDeps, token: string): Promise<boolean> {
  const found = await deps.store.sessions.findWithUser(hashToken(token), deps.clock.now());
  return found !== null && found.user.userRole === 'superuser' && found.user.isActive;
}

/** Why a superuser's action on another user is refused before it starts. */
export type SuperuserFailure = 'not_superuser' | 'self_lock' | 'system_account' | InitiatorFailure;

/**
 * The checks of a superuser acting on another user (user-lock, user-factors-reset): the claimed role is
 * superuser, the target is neither oneself nor a system account (2, 3), and the initiator is who they claim.
 */
export async function checkSuperuserOver(
  deps: InitiatorDeps,
  claim: InitiatorClaim,
  target: number,
): Promise<{ readonly ok: true } | { readonly ok: false; readonly code: SuperuserFailure }> {
  if (claim.user_role !== 'superuser') return { ok: false, code: 'not_superuser' };
  if (target === claim.user_id) return { ok: false, code: 'self_lock' };
  if (target === ANONYMOUS_ID || target === DUMMY_ID) return { ok: false, code: 'system_account' };
  const initiator = await checkInitiator(deps, claim);
  return initiator.ok ? { ok: true } : initiator;
}
