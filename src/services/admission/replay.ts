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
