/**
 * The second factor's half of the one credential check (docs/design.md#second-factors): the login ticket between a
 * login's two steps, the proof of a factor (a TOTP code, each time step once; or a recovery code, spent), and the
 * step-up a session needs for what matters. A wrong code counts toward the account's temporary lock and slows the
 * next try exactly like a wrong password (countFailedCheck, the back-off); a locked account refuses even the right
 * code; only a proved factor resets the counter.
 */
import { hashToken, newToken } from '../domain/tokens.js';
import type { Random } from '../domain/ports.js';
import type { FactorMethods, TicketRecord, UserRecord } from '../services/store/index.js';
import { countFailedCheck } from './credentials.js';
import type { CredentialDeps, CredentialRequest } from './credentials.js';
import { verifyAssertion } from './passkeys.js';
import type { PasskeyConfig } from './passkeys.js';
import { recoveryCodeHash, totpStepOf } from './second-factor.js';
import type { SecretBox } from './secret-box.js';

/** The end-user message of `step_up_required`. */
export const STEP_UP = 'Please confirm it is you with your authenticator app, a recovery code or a passkey first.';

/** A login ticket lasts 5 minutes and dies at its 5th wrong code. */
export const TICKET_TTL_MS = 5 * 60_000;
export const TICKET_MAX_TRIES = 5;

export interface SecondStepDeps extends CredentialDeps {
  readonly random: Random;
  /** Opens the sealed TOTP secrets. */
  readonly secrets: SecretBox;
  readonly settings: CredentialDeps['settings'] & { readonly stepUpWindowSeconds: number };
  /** Null: passkeys are off. */
  readonly passkeys: PasskeyConfig | null;
}

/** What a second step presents: a code, or a passkey's answer to a challenge this session asked for. */
export type Proof =
  | { readonly method: 'totp' | 'recovery'; readonly code: string }
  | {
      readonly method: 'passkey';
      readonly response: Readonly<Record<string, unknown>>;
      readonly sessionHash: string;
      readonly purpose: 'secondfactor' | 'stepup';
    };

export type SecondFactorFailure = 'second_factor_wrong' | 'temporarily_locked';

/** The methods a user with these factors may use for a second step, as the first step names them. */
export function methodsOf(factors: FactorMethods): string[] {
  return [
    ...(factors.totp ? ['totp'] : []),
    ...(factors.passkey ? ['passkey'] : []),
    ...(factors.recoveryCodes > 0 ? ['recovery'] : []),
  ];
}

/** Issues the ticket of a first step that found a second factor: random, stored hashed, bound, single use. */
export async function issueTicket(
  deps: SecondStepDeps,
  user: UserRecord,
  sessionHash: string | null,
  origin: string,
): Promise<string> {
  const ticket = newToken(deps.random);
  const now = deps.clock.now();
  const standing = (await deps.store.users.standings([user.userId])).get(user.userId);
  await deps.store.factors.createTicket({
    ticketHash: hashToken(ticket),
    userId: user.userId,
    sessionHash,
    origin,
    // The generation read now: a revocation that commits later kills the ticket (docs/design.md#revocation-fence).
    generation: standing?.credentialGeneration ?? -1,
    wrongTries: 0,
    created: now,
    expires: now + TICKET_TTL_MS,
  });
  return ticket;
}

type Proved = { readonly ok: true; readonly recoveryLeft: number | null } | { readonly ok: false };

/**
 * Whether the proof is of one of the user's active factors; spends what it uses (a TOTP step, a recovery code, a
 * passkey challenge).
 */
async function prove(
  deps: SecondStepDeps,
  userId: number,
  proof: Proof,
  now: number,
  meta: CredentialRequest,
): Promise<Proved> {
  const { factors } = deps.store;
  if (proof.method === 'passkey') {
    if (deps.passkeys === null) return { ok: false };
    const asker = { sessionHash: proof.sessionHash, userId };
    const proved = await verifyAssertion(deps, deps.passkeys, proof.response, [proof.purpose], asker, meta);
    return proved.ok ? { ok: true, recoveryLeft: null } : { ok: false };
  }
  if (proof.method === 'recovery') {
    const hash = recoveryCodeHash(proof.code);
    if (hash === null || !(await factors.useRecoveryCode(userId, hash))) return { ok: false };
    return { ok: true, recoveryLeft: (await factors.methods(userId)).recoveryCodes };
  }
  for (const factor of await factors.list(userId)) {
    if (factor.kind !== 'totp' || !factor.active || factor.secret === null) continue;
    const secret = deps.secrets.open(factor.secret);
    if (secret === null) continue;
    const step = totpStepOf(secret, proof.code, now);
    // A step at or before the last one accepted is a replay; the compare-and-swap settles two at once.
    if (step !== null && step > (factor.lastStep ?? -1) && (await factors.acceptStep(factor.factorId, step, now)))
      return { ok: true, recoveryLeft: null };
  }
  return { ok: false };
}

/**
 * Verifies a second factor of `user` like a password: refused while the account is locked, counted when wrong,
 * and only a right one resets the counter and the back-off.
 */
export async function verifySecondFactor(
  deps: SecondStepDeps,
  user: UserRecord,
  proof: Proof,
  meta: CredentialRequest,
): Promise<{ readonly ok: true } | { readonly ok: false; readonly code: SecondFactorFailure }> {
  const now = deps.clock.now();
  const identities = [user.email, `#${user.userId}`];
  const failed = async (code: SecondFactorFailure) => {
    const locked = await countFailedCheck(deps, user.userId, meta);
    for (const identity of identities) await deps.loginBackoff.failed(identity);
    const reason = locked ? 'temporarily_locked' : code;
    deps.audit.record({
      event: 'second-factor.failed',
      reqid: meta.reqid,
      subject: { userId: user.userId, ip: meta.clientIp },
      detail: { action: meta.action, reason, method: proof.method },
    });
    return { ok: false as const, code: reason };
  };
  if (user.lockedUntil !== null && user.lockedUntil > now) return failed('temporarily_locked');
  const proved = await prove(deps, user.userId, proof, now, meta);
  if (!proved.ok) return failed('second_factor_wrong');
  await deps.store.users.recordSuccess(user.userId, now);
  for (const identity of identities) await deps.loginBackoff.succeeded(identity);
  deps.audit.record({
    event: 'second-factor.used',
    reqid: meta.reqid,
    subject: { userId: user.userId, ip: meta.clientIp },
    detail: {
      action: meta.action,
      method: proof.method,
      ...(proved.recoveryLeft === null ? {} : { recovery_codes_left: proved.recoveryLeft }),
    },
  });
  return { ok: true };
}

export type SecondStep =
  | { readonly ok: true; readonly user: UserRecord; readonly origin: string }
  | { readonly ok: false; readonly code: SecondFactorFailure | 'login_ticket_invalid' };

/** The second step of a login: the ticket (its session, its generation, its tries), then the factor. */
export async function checkSecondStep(
  deps: SecondStepDeps,
  ticket: string,
  sessionHash: string,
  proof: Proof,
  meta: CredentialRequest,
): Promise<SecondStep> {
  const now = deps.clock.now();
  const { factors, users } = deps.store;
  const ticketHash = hashToken(ticket);
  const invalid = (): SecondStep => {
    deps.audit.record({
      event: 'second-factor.failed',
      reqid: meta.reqid,
      subject: { ip: meta.clientIp },
      detail: { action: meta.action, reason: 'login_ticket_invalid', method: proof.method },
    });
    return { ok: false, code: 'login_ticket_invalid' };
  };
  const found = await factors.findTicket(ticketHash, now);
  if (found === null || found.wrongTries >= TICKET_MAX_TRIES) return invalid();
  if (found.sessionHash !== null && found.sessionHash !== sessionHash) return invalid();
  const credentials = await users.credentialsById(found.userId);
  const standing = (await users.standings([found.userId])).get(found.userId);
  const user = credentials?.user;
  // Revoked since (a lock, a password change, a factor removed…), or no longer able to log in.
  if (user === undefined || standing === undefined || standing.credentialGeneration !== found.generation) {
    await factors.spendTicket(ticketHash);
    return invalid();
  }
  if (!standing.isActive || standing.userRole === 'locked') {
    await factors.spendTicket(ticketHash);
    return invalid();
  }
  const verified = await verifySecondFactor(deps, user, proof, meta);
  if (!verified.ok) {
    await factors.countWrongTry(ticketHash, TICKET_MAX_TRIES);
    return verified;
  }
  // Exactly one second step spends the ticket; another one that proved a factor at the same moment loses here.
  if (!(await factors.spendTicket(ticketHash))) return invalid();
  return { ok: true, user, origin: found.origin };
}

/**
 * A ticket as its next step will find it: unexpired, tries left, for this session, of the user's current generation
 * (no revocation since), the account usable. Not spent. Null when that step would refuse it.
 */
async function liveTicket(deps: SecondStepDeps, ticketHash: string, sessionHash: string): Promise<TicketRecord | null> {
  const found = await deps.store.factors.findTicket(ticketHash, deps.clock.now());
  if (found === null || found.wrongTries >= TICKET_MAX_TRIES) return null;
  if (found.sessionHash !== null && found.sessionHash !== sessionHash) return null;
  const standing = (await deps.store.users.standings([found.userId])).get(found.userId);
  if (standing === undefined || standing.credentialGeneration !== found.generation) return null;
  if (!standing.isActive || standing.userRole === 'locked') return null;
  return found;
}

/** The user of a ticket awaiting its second step on this session (user-passkey-options makes a challenge for it). */
export async function awaitingTicket(
  deps: SecondStepDeps,
  ticket: string,
  sessionHash: string,
): Promise<number | null> {
  return (await liveTicket(deps, hashToken(ticket), sessionHash))?.userId ?? null;
}

export interface EnrolmentTicket {
  readonly user: UserRecord;
  readonly ticketHash: string;
  readonly origin: string;
}

/**
 * The ticket of a login that answered second_factor_enrollment_required: unexpired, for this session, of the user's
 * current generation, the account usable, and the user still without an active factor (a ticket of a user who has one
 * is for the second step, never for adding a factor). Not spent here.
 */
export async function enrolmentTicket(
  deps: SecondStepDeps,
  ticket: string,
  sessionHash: string,
): Promise<EnrolmentTicket | null> {
  const ticketHash = hashToken(ticket);
  const found = await liveTicket(deps, ticketHash, sessionHash);
  if (found === null) return null;
  const user = (await deps.store.users.credentialsById(found.userId))?.user;
  const methods = await deps.store.factors.methods(found.userId);
  if (user === undefined || methods.totp || methods.passkey) return null;
  return { user, ticketHash, origin: found.origin };
}

/**
 * Whether the session may do what needs a fresh second factor: always for a user without one; else only within
 * `stepupwindow` of a factor proved on this very session (docs/design.md#step-up).
 */
export async function steppedUp(deps: SecondStepDeps, userId: number, sessionHash: string | null): Promise<boolean> {
  const methods = await deps.store.factors.methods(userId);
  if (!methods.totp && !methods.passkey) return true;
  return stepUpFresh(deps, userId, sessionHash);
}

/** Whether `sessionHash` is a live session of `userId` that proved a second factor within `stepupwindow`. */
export async function stepUpFresh(deps: SecondStepDeps, userId: number, sessionHash: string | null): Promise<boolean> {
  if (sessionHash === null) return false;
  const now = deps.clock.now();
  const at = await deps.store.factors.stepUpAt(sessionHash, userId, now);
  return at !== null && now - at <= deps.settings.stepUpWindowSeconds * 1000;
}
