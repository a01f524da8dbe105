/**
 * Password hashing: argon2id (m=19 MiB, t=2, p=1 by default, OWASP's first choice). The hashing
 * runs on libuv's thread pool, off the event loop.
 */
import { hash, verify } from 'argon2';

export interface Argon2Params {
  readonly memoryCost: number; // KiB
  readonly timeCost: number;
  readonly parallelism: number;
}

export const DEFAULT_ARGON2: Argon2Params = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(stored: string, password: string): Promise<boolean>;
}

export function argon2Hasher(params: Argon2Params = DEFAULT_ARGON2): PasswordHasher {
  return {
    hash: (password) => hash(password, { type: 2, ...params }),
    async verify(stored, password) {
      try {
        return await verify(stored, password);
      } catch {
        return false; // not an argon2 hash: it cannot match
      }
    },
  };
}
