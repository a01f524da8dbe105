/**
 * The admission store of one process (and of the cluster primary, which answers its workers from it).
 * Synchronous underneath, so a check and its update can never interleave with another request.
 *
 * Memory bound: at most `maxBuckets` rate buckets (default 100,000, ~15 MB) and `maxBackoffKeys` back-off
 * counters (default 100,000), least recently written dropped first; buckets that have refilled are
 * forgotten as they are met. The replay set holds only unexpired tokens (below).
 * Dropping a throttled bucket early only gives its key a fresh burst back: never a wrong refusal.
 *
 * Here too are the two bounded structures it keeps: the size-bounded map (buckets, back-off counters;
 * the report gate's too) and the replay set.
 */
import type { Bucket } from './buckets.js';
import { decide, toMicros } from './buckets.js';
import type { Admission, AdmissionStore, ReplayEntry } from './store.js';
import { BACKOFF_MEMORY_MS, backoffWaitMs, rateLimited } from './store.js';

export interface MemoryStoreOptions {
  readonly maxBuckets?: number;
  readonly maxBackoffKeys?: number;
  /** How long a run of login failures is remembered after the last one. */
  readonly backoffMemoryMs?: number;
}

interface Failures {
  readonly count: number;
  readonly lastMs: number;
}

export interface MemoryAdmissionStore extends AdmissionStore {
  admitSync(buckets: readonly Bucket[], replay: ReplayEntry | undefined, nowMs: number): Admission;
  failureSync(emailKey: string, nowMs: number): number;
  successSync(emailKey: string): void;
  waitForSync(emailKey: string, nowMs: number): number;
  /** Entries held, for tests of the memory bound. */
  readonly sizes: { readonly buckets: number; readonly backoff: number; readonly replay: number };
}

export function memoryAdmissionStore(options: MemoryStoreOptions = {}): MemoryAdmissionStore {
  const tats = new BoundedMap<number>(options.maxBuckets ?? 100_000);
  const failures = new BoundedMap<Failures>(options.maxBackoffKeys ?? 100_000);
  const replays = new ReplaySet();
  const memoryMs = options.backoffMemoryMs ?? BACKOFF_MEMORY_MS;
  const live = (entry: Failures | undefined, nowMs: number): number =>
    entry !== undefined && nowMs - entry.lastMs < memoryMs ? entry.count : 0;

  const store: MemoryAdmissionStore = {
    admitSync(buckets, replay, nowMs) {
      if (replay !== undefined && replays.has(replay.key, nowMs)) return { kind: 'replayed' };
      const nowUs = toMicros(nowMs);
      tats.sweep((tat) => tat <= nowUs, 2);
      const decision = decide(
        buckets,
        buckets.map((b) => tats.get(b.key)),
        nowUs,
      );
      if (!decision.ok) return rateLimited(buckets, decision.index, decision.waitUs);
      buckets.forEach((b, i) => tats.set(b.key, decision.tats[i] ?? nowUs));
      if (replay !== undefined) replays.add(replay.key, replay.expiresAtMs);
      return { kind: 'ok' };
    },
    failureSync(emailKey, nowMs) {
      const count = live(failures.get(emailKey), nowMs) + 1;
      failures.set(emailKey, { count, lastMs: nowMs });
      return count;
    },
    successSync(emailKey) {
      failures.delete(emailKey);
    },
    waitForSync(emailKey, nowMs) {
      return backoffWaitMs(live(failures.get(emailKey), nowMs));
    },
    admit: (buckets, replay, nowMs) => Promise.resolve(store.admitSync(buckets, replay, nowMs)),
    failure: (emailKey, nowMs) => Promise.resolve(store.failureSync(emailKey, nowMs)),
    success: (emailKey) => Promise.resolve(store.successSync(emailKey)),
    waitFor: (emailKey, nowMs) => Promise.resolve(store.waitForSync(emailKey, nowMs)),
    get sizes() {
      return { buckets: tats.size, backoff: failures.size, replay: replays.size };
    },
  };
  return store;
}

/**
 * A Map with a hard size bound, least recently written first out. Attackers choose bucket keys
 * (tokens, emails, 2^32 IPs), so every memory structure keyed by them needs a bound like this one.
 */
export class BoundedMap<V> {
  private readonly map = new Map<string, V>();
  /**
   * One iterator kept from call to call. A new one starts at the front, where V8 keeps every deleted
   * slot until it rehashes: finding the oldest entry that way cost up to the map's size per write once
   * the map was full. Every entry before its position is deleted, but `head`, the oldest live one.
   */
  private cursor: MapIterator<[string, V]> = this.map.entries();
  private head: [string, V] | undefined;

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new Error('BoundedMap needs a limit of at least 1');
  }

  get size(): number {
    return this.map.size;
  }

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  /** Writes move the key to the back; the oldest write is dropped once over the limit. */
  set(key: string, value: V): void {
    this.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.limit) this.dropOldest();
  }

  delete(key: string): void {
    if (this.head?.[0] === key) this.head = undefined;
    this.map.delete(key);
  }

  /** Drops up to `count` of the oldest entries while `stale` says so: cheap incremental clean-up. */
  sweep(stale: (value: V) => boolean, count: number): void {
    for (let i = 0; i < count; i++) {
      const first = this.oldest();
      if (first === undefined || !stale(first[1])) return;
      this.delete(first[0]);
    }
  }

  private dropOldest(): void {
    const first = this.oldest();
    if (first !== undefined) this.delete(first[0]);
  }

  private oldest(): [string, V] | undefined {
    if (this.head === undefined) {
      let next = this.cursor.next();
      // A finished iterator never sees later writes: start again (everything before is deleted).
      if (next.done === true) {
        this.cursor = this.map.entries();
        next = this.cursor.next();
      }
      this.head = next.done === true ? undefined : next.value;
    }
    return this.head;
  }
}

/**
 * Replay refusal (docs/design.md#freshness-and-replay): a state-changing request token is accepted once within its
 * validity window. Keyed on a 128-bit prefix of the token's HMAC, never on the body text (many bodies
 * decode to one token). Entries live in a Set per 10-second bucket of expiry, so whole buckets are
 * dropped once every token in them has expired anyway; memory holds only live tokens (bounded by the
 * accepted-token rate × `messagettl`, since only tokens that passed the freshness check are recorded).
 */

const BUCKET_MS = 10_000;
const KEY_BYTES = 16;

/** The replay-cache key of a token: its HMAC's first 128 bits, base64. */
export function replayKey(mac: Buffer): string {
  return mac.toString('base64', 0, KEY_BYTES);
}

/** A key is replayKey()'s output: 16 bytes in base64 (24 characters, 2 of padding). Else a programming error. */
function checkKey(key: string): void {
  if (key.length !== 24 || !key.endsWith('==')) throw new TypeError('a replay key is 16 bytes in base64 (replayKey)');
}

/** The string-keyed set the admission stores use: check first, record only once admitted. */
export class ReplaySet {
  private readonly buckets = new Map<number, Set<string>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  has(key: string, nowMs: number): boolean {
    checkKey(key);
    this.prune(nowMs);
    for (const keys of this.buckets.values()) if (keys.has(key)) return true;
    return false;
  }

  add(key: string, expiresAtMs: number): void {
    checkKey(key);
    const slot = Math.floor(expiresAtMs / BUCKET_MS);
    let keys = this.buckets.get(slot);
    if (keys === undefined) {
      keys = new Set();
      this.buckets.set(slot, keys);
    }
    if (keys.has(key)) return;
    keys.add(key);
    this.count++;
  }

  private prune(nowMs: number): void {
    for (const [slot, keys] of this.buckets) {
      if ((slot + 1) * BUCKET_MS <= nowMs) {
        this.count -= keys.size;
        this.buckets.delete(slot);
      }
    }
  }
}

export interface ReplayCache {
  /** Records the token; false when it was already recorded (a replay). */
  admit(mac: Buffer, expiresAtMs: number, nowMs: number): boolean;
  readonly size: number;
}

export function memoryReplayCache(): ReplayCache {
  const set = new ReplaySet();
  return {
    admit(mac, expiresAtMs, nowMs) {
      const key = replayKey(mac);
      if (set.has(key, nowMs)) return false;
      set.add(key, expiresAtMs);
      return true;
    },
    get size() {
      return set.size;
    },
  };
}
