/**
 * The narrow ports the composition root (src/app.ts) injects, and the system's own clock and
 * randomness behind them; tests pass their own.
 */
import { randomBytes } from 'node:crypto';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface Random {
  bytes(length: number): Buffer;
}

export const systemClock: Clock = { now: () => Date.now() };

/** The operating system's CSPRNG (node:crypto), one call per request of bytes. */
export const randomSource: Random = { bytes: (length) => randomBytes(length) };

/** Makes the stored hash of a new password (the seed's view of accounts/password-hashing.ts). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
}

/**
 * The login back-off (docs/design.md#lock-out-and-login-back-off): a failed password check waits the growing delay its
 * run of failures owes before it is answered; a success ends the run. Identities are a normalised email, or
 * `#<user id>` for a check by session.
 */
export interface LoginBackoff {
  failed(identity: string): Promise<void>;
  succeeded(identity: string): Promise<void>;
}

/** `loginbackoff none`. */
export const noLoginBackoff: LoginBackoff = { failed: () => Promise.resolve(), succeeded: () => Promise.resolve() };

/** Waits without holding the process: a timer. Injected so tests with a frozen clock need not wait. */
export type Sleep = (ms: number) => Promise<void>;
