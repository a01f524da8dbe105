/** The narrow ports the composition root (src/app.ts) injects; tests pass their own. */

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface Random {
  bytes(length: number): Buffer;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Makes the stored hash of a new password (the seed's view of passwords/hashing.ts). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
}
