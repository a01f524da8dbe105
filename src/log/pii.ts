import { createHmac } from 'node:crypto';

/**
 * Personal data in logs appears only as a keyed digest: HMAC-SHA256 with the PII salt, 128 bits in
 * hex. Equal values give equal digests (so one user's requests can be followed), and without the
 * salt nobody can test a guess against the logs.
 */
export type Pii = (value: string | number) => string;

export function piiHasher(salt: string): Pii {
  return (value) => createHmac('sha256', salt).update(String(value)).digest('hex').slice(0, 32);
}
