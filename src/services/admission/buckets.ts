/**
 * The rate buckets: the generic cell rate algorithm that decides them (below), and which ones one
 * request is checked against (docs/design.md#gcra-buckets): per client IP, the group of the action's
 * rate class, the action's own per-IP limit, and per email for the email-tied actions.
 *
 * Key material is attacker-chosen (10,000-character tokens and emails), so every identity is hashed
 * into a fixed-length key: memory and Redis cost per bucket is bounded, and no email, IP or token is
 * kept in clear in Redis. The hash is domain-separated so it never equals a stored token hash.
 * Which items key which bucket is the protocol's (rate-class.ts, one declaration per action); the
 * hashing and the limits are admission's.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { emailBucketKey, groupBucketKey, normaliseEmail } from '../../protocol/index.js';
import type { RateClass } from '../../protocol/index.js';
import { normaliseIp } from '../../protocol/addresses.js';
import type { RatePolicy } from './rate-limits.js';

/**
 * The generic cell rate algorithm (docs/design.md#gcra-buckets). A bucket passes `burst` requests back to back
 * when fresh, then one per `60 / perMinute` seconds. Its whole state is one number, the theoretical
 * arrival time (TAT): a request at `now` passes iff `now ≥ TAT − τ`, and then TAT = max(TAT, now) + T,
 * with T the emission interval and τ = (burst − 1)·T. A bucket whose TAT ≤ now is the same as a fresh
 * one, so stores may forget it.
 *
 * Times are whole microseconds so that the memory store and the Redis Lua script (doubles, printed
 * with `%.0f`) compute bit-identical answers: epoch µs (≈ 1.8e15) and τ (≤ 1e7 · 6e7 µs) stay below 2^53.
 */

export interface Bucket {
  /** Bounded-length key (see digest, below); also names the bucket in a refusal. */
  readonly key: string;
  readonly perMinute: number;
  readonly burst: number;
}

export interface Cell {
  /** Emission interval T, µs (rounded up: the sustained rate never exceeds the configured one). */
  readonly intervalUs: number;
  /** Tolerance τ = (burst − 1)·T, µs. */
  readonly toleranceUs: number;
}

export function cellOf(bucket: Bucket): Cell {
  const intervalUs = Math.ceil(60_000_000 / bucket.perMinute);
  return { intervalUs, toleranceUs: (Math.max(1, bucket.burst) - 1) * intervalUs };
}

export const toMicros = (ms: number): number => Math.floor(ms * 1000);

export type Decision =
  | { readonly ok: true; readonly tats: readonly number[] }
  | { readonly ok: false; readonly waitUs: number; readonly index: number };

/**
 * All buckets at once: passes only if every bucket passes, and then returns every new TAT; otherwise
 * the longest wait and which bucket imposes it, and the caller stores nothing (a refusal consumes nothing).
 * `tats[i]` is bucket i's stored TAT, or undefined when fresh.
 */
export function decide(buckets: readonly Bucket[], tats: readonly (number | undefined)[], nowUs: number): Decision {
  const next: number[] = [];
  let waitUs = 0;
  let index = -1;
  buckets.forEach((bucket, i) => {
    const cell = cellOf(bucket);
    const tat = Math.max(tats[i] ?? nowUs, nowUs);
    const wait = tat - cell.toleranceUs - nowUs;
    if (wait > waitUs) [waitUs, index] = [wait, i];
    next.push(tat + cell.intervalUs);
  });
  return index < 0 ? { ok: true, tats: next } : { ok: false, waitUs, index };
}

/** `Retry-After`: the real wait in whole seconds, at least 1. */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}

/** 128 bits of a domain-separated SHA-256: fixed length whatever the input. */
export function digest(text: string): string {
  return createHash('sha256').update('authsvc-admission\0').update(text).digest('base64url').slice(0, 22);
}

/** IPv4-mapped IPv6 as IPv4; other IPv6 by its /64 network, where one client usually holds them all. */
export function ipKey(address: string): string {
  const ip = normaliseIp(address);
  if (isIP(ip) !== 6) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (mapped?.[1] !== undefined) return mapped[1];
  return `${expandIpv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (a dotted IPv4 tail counts as two). */
function expandIpv6(ip: string): string[] {
  const groups = (part: string): string[] => {
    if (part === '') return [];
    return part.split(':').flatMap((g) => {
      if (!g.includes('.')) return [g];
      const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number);
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  };
  const [head = '', tail] = ip.split('::');
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  return [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
}

/** The store key of an email's login back-off. */
export function backoffKey(email: string): string {
  return `b:${digest(normaliseEmail(email))}`;
}

type Body = Readonly<Record<string, unknown>>;

export interface AdmissionRequest {
  readonly action: string;
  readonly rateClass: RateClass;
  readonly body: Body;
  readonly clientIp: string;
}

/** The per-IP bucket, the one every decrypted request with a valid IP counts against (even a malformed one). */
export function ipBucket(policy: RatePolicy, clientIp: string): Bucket {
  return { key: `ip:${digest(ipKey(clientIp))}`, perMinute: policy.ipaddr, burst: policy.burst };
}

export function bucketsFor(policy: RatePolicy, request: AdmissionRequest): Bucket[] {
  const { action, rateClass, body } = request;
  const ip = ipKey(request.clientIp);
  const buckets: Bucket[] = [ipBucket(policy, request.clientIp)];
  const group = groupBucketKey(rateClass, body, ip);
  if (rateClass.group !== null && group !== null) {
    buckets.push({
      key: `g:${rateClass.group}:${digest(group)}`,
      perMinute: policy[rateClass.group],
      burst: policy.burst,
    });
  }
  const n = policy.actions.get(action);
  if (n !== undefined) buckets.push({ key: `a:${action}:${digest(ip)}`, perMinute: n, burst: n });
  const email = emailBucketKey(rateClass, body);
  if (email !== null) {
    const [perMinute, burst] = n === undefined ? [policy.user, policy.burst] : [n, n];
    buckets.push({ key: `e:${action}:${digest(email)}`, perMinute, burst });
  }
  return buckets;
}
