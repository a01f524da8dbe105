import { createHmac } from 'node:crypto';

/**
 * Personal data in logs appears only as a keyed digest: HMAC-SHA256 with the PII salt, 128 bits in
 * hex. Equal values give equal digests (so one user's requests can be followed), and without the
 * salt nobody can test a guess against the logs.
 */
export type Pii = (value: string | number) => string;

/**
 * Digests are remembered, because the same few client addresses and users come back on every
 * request and an HMAC costs twenty times a map lookup. The map is bounded (the oldest entry goes
 * first), so a flood of distinct addresses costs memory once, never without end. It holds values the
 * process already has in memory anyway; the logs still see only digests.
 */
export const PII_MEMO_ENTRIES = 4096;

/** One memoised hasher per salt, shared by every part of the process that logs (request log, audit…). */
const shared = new Map<string, Pii>();

export function piiHasher(salt: string): Pii {
  let hasher = shared.get(salt);
  if (hasher === undefined) {
    hasher = memoisedHasher(salt, PII_MEMO_ENTRIES);
    shared.set(salt, hasher);
  }
  return hasher;
}

export function memoisedHasher(salt: string, entries: number): Pii {
  const memo = new Map<string | number, string>();
  return (value) => {
    const known = memo.get(value);
    if (known !== undefined) return known;
    const digest = createHmac('sha256', salt).update(String(value)).digest('hex').slice(0, 32);
    if (memo.size >= entries) memo.delete(memo.keys().next().value as string | number);
    memo.set(value, digest);
    return digest;
  };
}
