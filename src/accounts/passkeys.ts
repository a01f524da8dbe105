/**
 * Passkeys (docs/design.md#passkeys): WebAuthn ceremonies through @simplewebauthn/server. The server makes each
 * ceremony's challenge, stores it hashed and bound to the session that asked (and to the user, but for a passwordless
 * login), and takes it back exactly once, in any process: a response is checked against the challenge it carries,
 * then against the stored credential. The library is loaded by the first ceremony, not at start.
 */
import { createHmac } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { AuditSink } from '../log/audit.js';
import type { Clock, Random } from '../domain/ports.js';
import { hashToken } from '../domain/tokens.js';
import type { ChallengePurpose, FactorRecord, Store } from '../services/store/index.js';

/** A ceremony's challenge lasts as long as a login ticket. */
const CHALLENGE_TTL_MS = 5 * 60_000;
/** ES256 and RS256: what platform authenticators and security keys make. */
const ALGORITHMS = [-7, -257];

export interface PasskeyConfig {
  readonly rpId: string;
  readonly rpName: string;
  readonly origins: readonly string[];
  /** Keys the user handle, so it names no one outside this server (WebAuthn: no personal data in it). */
  readonly handleKey: string;
}

export interface PasskeyDeps {
  readonly clock: Clock;
  readonly random: Random;
  readonly store: Pick<Store, 'factors'>;
  readonly audit: AuditSink;
  /** Null: passkeys are off (no `passkeyorigins`). */
  readonly passkeys: PasskeyConfig | null;
}

/** Where a ceremony was asked from: the session, and the user when the purpose has one. */
export interface Asker {
  readonly sessionHash: string;
  readonly userId: number | null;
}

/** The user handle of a user's passkeys: the same for all of them (authenticators group by it), opaque. */
function userHandle(config: PasskeyConfig, userId: number): Uint8Array {
  return createHmac('sha256', config.handleKey)
    .update(`passkey-user:${String(userId)}`)
    .digest()
    .subarray(0, 16);
}

const lib = () => import('@simplewebauthn/server');

async function saveChallenge(
  deps: PasskeyDeps,
  purpose: ChallengePurpose,
  asker: Asker,
): Promise<Uint8Array<ArrayBuffer>> {
  const challenge = deps.random.bytes(32);
  await deps.store.factors.createChallenge({
    challengeHash: hashToken(challenge.toString('base64url')),
    purpose,
    userId: asker.userId,
    sessionHash: asker.sessionHash,
    expires: deps.clock.now() + CHALLENGE_TTL_MS,
  });
  return new Uint8Array(challenge);
}

/** Options for registering a passkey of `user`: its existing passkeys excluded, a discoverable one preferred. */
export async function registrationOptions(
  deps: PasskeyDeps,
  config: PasskeyConfig,
  user: { readonly userId: number; readonly email: string; readonly fullName: string | null },
  existing: readonly FactorRecord[],
  sessionHash: string,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const challenge = await saveChallenge(deps, 'register', { sessionHash, userId: user.userId });
  const { generateRegistrationOptions } = await lib();
  return generateRegistrationOptions({
    rpName: config.rpName,
    rpID: config.rpId,
    userID: new Uint8Array(userHandle(config, user.userId)),
    userName: user.email,
    userDisplayName: user.fullName ?? user.email,
    challenge,
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    supportedAlgorithmIDs: ALGORITHMS,
    excludeCredentials: passkeysOf(existing).map((f) => ({ id: f.id, transports: f.transports })),
    // Our own object each time: the library's default is shared and changed in place.
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
}

/**
 * Options for proving a passkey: of `factors` (a second step, a step-up), or of any discoverable passkey (a
 * passwordless login, where user verification is required: the passkey is then both factors).
 */
export async function authenticationOptions(
  deps: PasskeyDeps,
  config: PasskeyConfig,
  purpose: Exclude<ChallengePurpose, 'register'>,
  asker: Asker,
  factors: readonly FactorRecord[],
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const challenge = await saveChallenge(deps, purpose, asker);
  const { generateAuthenticationOptions } = await lib();
  return generateAuthenticationOptions({
    rpID: config.rpId,
    challenge,
    timeout: CHALLENGE_TTL_MS,
    allowCredentials:
      purpose === 'login' ? [] : passkeysOf(factors).map((f) => ({ id: f.id, transports: f.transports })),
    userVerification: purpose === 'login' ? 'required' : 'preferred',
  });
}

type AuthenticatorTransport = NonNullable<NonNullable<RegistrationResponseJSON['response']['transports']>[number]>;
const TRANSPORTS: readonly string[] = ['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'];

function passkeysOf(factors: readonly FactorRecord[]) {
  return factors
    .filter((f) => f.kind === 'passkey' && f.active && f.credentialId !== null)
    .map((f) => ({
      id: f.credentialId ?? '',
      transports: (f.transports ?? []).filter((t): t is AuthenticatorTransport => TRANSPORTS.includes(t)),
    }));
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The challenge a response answers (from its clientDataJSON), or null when the response has no such shape. */
function challengeOf(response: Readonly<Record<string, unknown>>): string | null {
  const inner = response['response'];
  if (typeof response['id'] !== 'string' || !isRecord(inner) || typeof inner['clientDataJSON'] !== 'string')
    return null;
  try {
    const client: unknown = JSON.parse(Buffer.from(inner['clientDataJSON'], 'base64url').toString('utf8'));
    return isRecord(client) && typeof client['challenge'] === 'string' ? client['challenge'] : null;
  } catch {
    return null;
  }
}

/**
 * Takes the challenge a response answers, once: it must be unexpired, made for one of `purposes`, asked by this
 * session, and for this user when the asker names one.
 */
async function takeChallenge(
  deps: PasskeyDeps,
  response: Readonly<Record<string, unknown>>,
  purposes: readonly ChallengePurpose[],
  asker: Asker,
): Promise<string | null> {
  const challenge = challengeOf(response);
  if (challenge === null || challenge.length > 128) return null;
  const taken = await deps.store.factors.takeChallenge(hashToken(challenge), deps.clock.now());
  if (taken === null || !purposes.includes(taken.purpose) || taken.sessionHash !== asker.sessionHash) return null;
  if (asker.userId !== null && taken.userId !== asker.userId) return null;
  return challenge;
}

export interface NewPasskey {
  readonly credentialId: string;
  readonly publicKey: string;
  readonly signCount: number;
  readonly transports: readonly string[];
}

/** Verifies a registration response against its challenge; what to store, or null. */
export async function verifyRegistration(
  deps: PasskeyDeps,
  config: PasskeyConfig,
  response: Readonly<Record<string, unknown>>,
  asker: Asker,
): Promise<NewPasskey | null> {
  const challenge = await takeChallenge(deps, response, ['register'], asker);
  if (challenge === null) return null;
  const { verifyRegistrationResponse } = await lib();
  try {
    const verified = await verifyRegistrationResponse({
      response: response as unknown as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: [...config.origins],
      expectedRPID: config.rpId,
      // As a second factor a passkey need not verify the user; a passwordless login asks for it each time.
      requireUserVerification: false,
      supportedAlgorithmIDs: ALGORITHMS,
    });
    if (!verified.verified) return null;
    const { credential } = verified.registrationInfo;
    return {
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      signCount: credential.counter,
      transports: credential.transports ?? [],
    };
  } catch {
    // A response the library cannot read or that fails a check (origin, RP id, flags, key): not a passkey of ours.
    return null;
  }
}

export type PasskeyProof =
  | { readonly ok: true; readonly factor: FactorRecord }
  | {
      readonly ok: false;
      /** The passkey the response names, when it is one of ours (a failure then counts against its user). */
      readonly userId: number | null;
    };

/** The signature counter in an assertion's authenticator data (bytes 33–36, big-endian), or null. */
function counterOf(response: Readonly<Record<string, unknown>>): number | null {
  const inner = response['response'];
  if (!isRecord(inner) || typeof inner['authenticatorData'] !== 'string') return null;
  const data = Buffer.from(inner['authenticatorData'], 'base64url');
  return data.length >= 37 ? data.readUInt32BE(33) : null;
}

/**
 * Verifies an assertion: the challenge (once), then a passkey of ours (of `asker.userId` when named) with its
 * signature, origin, RP id, flags and counter. A counter that did not grow (a cloned authenticator) is refused and
 * audited. The new counter is stored by compare-and-swap.
 */
export async function verifyAssertion(
  deps: PasskeyDeps,
  config: PasskeyConfig,
  response: Readonly<Record<string, unknown>>,
  purposes: readonly ChallengePurpose[],
  asker: Asker,
  context: { readonly reqid: string | number | null; readonly clientIp: string; readonly action: string },
): Promise<PasskeyProof> {
  const challenge = await takeChallenge(deps, response, purposes, asker);
  const id = response['id'];
  const factor = typeof id === 'string' && id.length <= 1400 ? await deps.store.factors.findPasskey(id) : null;
  const mine = factor !== null && (asker.userId === null || factor.userId === asker.userId) ? factor : null;
  const refused = { ok: false as const, userId: mine?.userId ?? null };
  if (challenge === null || mine === null || mine.publicKey === null || mine.credentialId === null) return refused;
  // The user is the passkey's, found by credential id; the user handle the browser sends is not signed, so it is
  // not read.
  const stored = mine.signCount ?? 0;
  const presented = counterOf(response);
  if (presented !== null && (presented > 0 || stored > 0) && presented <= stored) {
    deps.audit.record({
      event: 'passkey.counter-decreased',
      reqid: context.reqid,
      subject: { userId: mine.userId, ip: context.clientIp },
      detail: { action: context.action, factor_id: mine.factorId, stored, presented },
    });
    return refused;
  }
  const { verifyAuthenticationResponse } = await lib();
  try {
    const verified = await verifyAuthenticationResponse({
      response: response as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: [...config.origins],
      expectedRPID: config.rpId,
      credential: {
        id: mine.credentialId,
        publicKey: new Uint8Array(Buffer.from(mine.publicKey, 'base64url')),
        counter: stored,
      },
      requireUserVerification: asker.userId === null,
    });
    if (!verified.verified) return refused;
    const accepted = await deps.store.factors.acceptCounter(
      mine.factorId,
      stored,
      verified.authenticationInfo.newCounter,
      deps.clock.now(),
    );
    return accepted ? { ok: true, factor: mine } : refused;
  } catch {
    return refused;
  }
}
