/** Parsers of the items whose values have a structure of their own. Each returns the value or a problem. */

import type { PassHashSpec } from '../accounts/password-hashing.js';
import { DEFAULT_PASS_POLICY } from '../accounts/password-policy.js';
import type { PassPolicy } from '../accounts/password-policy.js';

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = <T>(problem: string): Parsed<T> => ({ ok: false, problem });

/** `key:value;key:value`, keys unique. */
function pairs(text: string): Parsed<Map<string, string>> {
  const map = new Map<string, string>();
  for (const part of text.split(';').map((p) => p.trim())) {
    if (part === '') continue;
    const colon = part.indexOf(':');
    if (colon <= 0) return bad(`"${part}" is not key:value`);
    const key = part.slice(0, colon).trim().toLowerCase();
    if (map.has(key)) return bad(`"${key}" is given twice`);
    map.set(key, part.slice(colon + 1).trim());
  }
  return ok(map);
}

function intIn(text: string, min: number, max: number): number | null {
  if (!/^\d{1,12}$/.test(text)) return null;
  const n = Number(text);
  return n >= min && n <= max ? n : null;
}

/** `--passpolicy`: any subset of the spec's keys, in any order; the rest keep their defaults. */
export function parsePassPolicy(text: string): Parsed<PassPolicy> {
  const parsed = pairs(text);
  if (!parsed.ok) return parsed;
  const policy = { ...DEFAULT_PASS_POLICY };
  for (const [key, value] of parsed.value) {
    switch (key) {
      case 'min_pass_length': {
        const n = intIn(value, 1, 1024);
        if (n === null) return bad(`min_pass_length must be an integer from 1 to 1024, not "${value}"`);
        policy.minPassLength = n;
        break;
      }
      case 'max_unsafe_similarity': {
        const n = intIn(value, 0, 100);
        if (n === null) return bad(`max_unsafe_similarity must be an integer from 0 to 100, not "${value}"`);
        policy.maxUnsafeSimilarity = n;
        break;
      }
      case 'max_char_frequency': {
        const f = /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(value) ? Number(value) : NaN;
        if (!(f > 0 && f <= 1)) return bad(`max_char_frequency must be a number above 0 and at most 1, not "${value}"`);
        policy.maxCharFrequency = f;
        break;
      }
      case 'min_pwned_matches': {
        const n = intIn(value, 1, 1_000_000_000);
        if (n === null) return bad(`min_pwned_matches must be a positive integer, not "${value}"`);
        policy.minPwnedMatches = n;
        break;
      }
      default:
        return bad(
          `unknown key "${key}" (min_pass_length, max_unsafe_similarity, max_char_frequency, min_pwned_matches)`,
        );
    }
  }
  return ok(policy);
}

/** `--passhash`: `argon2id:m=19456,t=2,p=1` or `scrypt:logN=17,r=8,p=1`. */
export function parsePassHash(text: string): Parsed<PassHashSpec> {
  const match = /^(argon2id|scrypt):(.*)$/.exec(text.trim());
  if (match === null) return bad(`"${text}" is not argon2id:m=…,t=…,p=… nor scrypt:logN=…,r=…,p=…`);
  const params = new Map<string, string>();
  for (const part of (match[2] ?? '').split(',').map((p) => p.trim())) {
    const [k, v] = part.split('=');
    if (k === undefined || v === undefined || k === '') return bad(`"${part}" is not name=value`);
    params.set(k, v);
  }
  const need = (name: string, min: number, max: number): number | string => {
    const value = params.get(name);
    const n = value === undefined ? null : intIn(value, min, max);
    return n ?? `${name} must be an integer from ${min} to ${max}`;
  };
  if (match[1] === 'argon2id') {
    const [m, t, p] = [need('m', 8, 4_194_304), need('t', 1, 100), need('p', 1, 16)];
    for (const v of [m, t, p]) if (typeof v === 'string') return bad(v);
    if (params.size !== 3) return bad('argon2id takes exactly m, t and p');
    return ok({ kind: 'argon2id', memoryCost: m as number, timeCost: t as number, parallelism: p as number });
  }
  const [logN, r, p] = [need('logN', 10, 22), need('r', 1, 32), need('p', 1, 16)];
  for (const v of [logN, r, p]) if (typeof v === 'string') return bad(v);
  if (params.size !== 3) return bad('scrypt takes exactly logN, r and p');
  return ok({ kind: 'scrypt', logN: logN as number, r: r as number, p: p as number });
}
