/**
 * Password hashing (docs/design.md#passwords). New hashes use the configured kind: argon2id by default
 * (m=7 MiB, t=5, p=1, of equal strength in OWASP's table to its first choice m=19 MiB, t=2, with less memory) or scrypt (scrypt-kdf format). Both kinds
 * always verify, whatever is configured, and so do the reference's argon2 hashes (argon2-cffi PHC
 * strings), so users can be imported. A verification says when the stored hash should be replaced.
 * The server runs them through the hash queue (below), which bounds how many run at once.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { hash as argon2Hash, needsRehash as argon2NeedsRehash, verify as argon2Verify } from 'argon2';
import * as scryptModule from 'scrypt-kdf';
import { UnavailableError } from '../domain/errors.js';
import type { PasswordHasher as HashPort } from '../domain/ports.js';

/**
 * The hash queue: admission of hashing work (docs/design.md#passwords,
 * docs/design.md#hashing-on-the-thread-pool). Password hashes run on libuv's thread pool, off the event loop; this
 * bounds how many run at once in this process (about the core count divided among the workers) and how many may wait. When the queue is full the request is answered at once
 * with 503 and Retry-After instead of queueing without limit: under a login flood latency stays
 * bounded and the machine keeps serving everything else.
 */

export interface HashQueue {
  run<T>(task: () => Promise<T>): Promise<T>;
  readonly running: number;
  readonly waiting: number;
}

export interface HashQueueOptions {
  readonly concurrency: number;
  readonly maxWaiting: number;
}

/** The budget of one process when `workers` processes share the machine. */
export function defaultHashQueueOptions(workers: number): HashQueueOptions {
  const concurrency = Math.max(1, Math.floor(availableParallelism() / Math.max(1, workers)));
  return { concurrency, maxWaiting: 32 * concurrency };
}

export function createHashQueue(options: HashQueueOptions): HashQueue {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = (): void => {
    running--;
    const next = waiting.shift();
    if (next !== undefined) {
      running++;
      next();
    }
  };
  return {
    async run(task) {
      if (running >= options.concurrency) {
        if (waiting.length >= options.maxWaiting) throw new UnavailableError('busy');
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        running++;
      }
      try {
        return await task();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiting.length;
    },
  };
}

/** The kind and parameters of new hashes (`--passhash`). */
export type PassHashSpec =
  | { readonly kind: 'argon2id'; readonly memoryCost: number; readonly timeCost: number; readonly parallelism: number }
  | { readonly kind: 'scrypt'; readonly logN: number; readonly r: number; readonly p: number };

export interface VerifyResult {
  readonly ok: boolean;
  /** The hash matched but was made with other parameters (or another kind): store a new one. */
  readonly needsRehash: boolean;
}

/** The port the seed uses (hashing only), plus what logins and password changes need. */
export interface PasswordHasher extends HashPort {
  verify(stored: string, password: string): Promise<VerifyResult>;
  /**
   * Spends the time of one verification with the current parameters, against a throwaway hash: run
   * on every failing path that has no real hash (unknown user, locked account…), so response time
   * does not tell whether an account exists.
   */
  verifyDummy(password: string): Promise<void>;
}

export const DEFAULT_PASSHASH: PassHashSpec = { kind: 'argon2id', memoryCost: 7168, timeCost: 5, parallelism: 1 };

// scrypt-kdf's types declare named exports, but its module has only a default export holding them.
const scrypt = (scryptModule as unknown as { default: typeof scryptModule }).default;

/** scrypt-kdf keys are binary; we store them as text with a prefix of our own. */
const SCRYPT_PREFIX = '$scrypt-kdf$';
/** The reference hashed `password[:256]` (code points): imported hashes may need that prefix. */
const REFERENCE_TRUNCATION = 256;

const noQueue: Pick<HashQueue, 'run'> = { run: (task) => task() };

export function createHasher(
  spec: PassHashSpec = DEFAULT_PASSHASH,
  queue: Pick<HashQueue, 'run'> = noQueue,
): PasswordHasher {
  const make = (password: string): Promise<string> =>
    spec.kind === 'argon2id'
      ? argon2Hash(password, {
          type: 2,
          memoryCost: spec.memoryCost,
          timeCost: spec.timeCost,
          parallelism: spec.parallelism,
        })
      : scrypt
          .kdf(password, { logN: spec.logN, r: spec.r, p: spec.p })
          .then((key) => SCRYPT_PREFIX + Buffer.from(key).toString('base64'));

  const isCurrent = (stored: string): boolean => {
    if (stored.startsWith('$argon2')) {
      return (
        spec.kind === 'argon2id' &&
        stored.startsWith('$argon2id$') &&
        !argon2NeedsRehash(stored, {
          memoryCost: spec.memoryCost,
          timeCost: spec.timeCost,
          parallelism: spec.parallelism,
        })
      );
    }
    if (stored.startsWith(SCRYPT_PREFIX) && spec.kind === 'scrypt') {
      const params = scrypt.viewParams(Buffer.from(stored.slice(SCRYPT_PREFIX.length), 'base64'));
      return params.logN === spec.logN && params.r === spec.r && params.p === spec.p;
    }
    return false;
  };

  const matches = async (stored: string, password: string): Promise<boolean> => {
    try {
      if (stored.startsWith('$argon2')) return await argon2Verify(stored, password);
      if (stored.startsWith(SCRYPT_PREFIX))
        return await scrypt.verify(Buffer.from(stored.slice(SCRYPT_PREFIX.length), 'base64'), password);
    } catch {
      // a malformed stored hash matches nothing
    }
    return false;
  };

  let dummy: Promise<string> | null = null;

  return {
    hash: (password) => queue.run(() => make(password)),

    verify: (stored, password) =>
      queue.run(async () => {
        const current = isCurrent(stored);
        if (await matches(stored, password)) return { ok: true, needsRehash: !current };
        // Only hashes made elsewhere (other parameters) can be the reference's truncated ones; our
        // own are never retried, so a failing check stays exactly one verification.
        const codePoints = Array.from(password);
        if (!current && stored.startsWith('$argon2') && codePoints.length > REFERENCE_TRUNCATION) {
          if (await matches(stored, codePoints.slice(0, REFERENCE_TRUNCATION).join('')))
            return { ok: true, needsRehash: true };
        }
        return { ok: false, needsRehash: false };
      }),

    async verifyDummy(password) {
      dummy ??= make(randomBytes(16).toString('hex'));
      const stored = await dummy;
      await queue.run(() => matches(stored, password));
    },
  };
}
