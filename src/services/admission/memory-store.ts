/**
 * The admission store of one process (and of the cluster primary, which answers its workers from it).
 * Synchronous underneath, so a check and its update can never interleave with another request.
 *
 * Memory bound: at most `maxBuckets` rate buckets (default 100,000, ~15 MB) and `maxBackoffKeys` back-off
 * counters (default 100,000), least recently written dropped first; buckets that have refilled are
 * forgotten as they are met. The replay set holds only unexpired tokens (see replay.ts).
 * Dropping a throttled bucket early only gives its key a fresh burst back: never a wrong refusal.
 */
import type { Bucket } from './gcra.js';
import { decide, toMicros } from './gcra.js';
import { BoundedMap } from './bounded-map.js';
import { ReplaySet } from './replay.js';
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
