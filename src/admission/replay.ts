/**
 * Per-process replay refusal (DESIGN decision 2): a state-changing request token is accepted once
 * within its validity window. Keyed on a 128-bit prefix of the token's HMAC, never on the body text
 * (many bodies decode to one token). Entries live in 10-second buckets by expiry, so whole buckets
 * are dropped once every token in them has expired anyway; memory holds only live tokens.
 */
const BUCKET_MS = 10_000;

export interface ReplayCache {
  /** Records the token; false when it was already recorded (a replay). */
  admit(mac: Buffer, expiresAtMs: number, nowMs: number): boolean;
  readonly size: number;
}

export function memoryReplayCache(): ReplayCache {
  const buckets = new Map<number, Set<string>>();
  let size = 0;

  const prune = (nowMs: number): void => {
    for (const [slot, keys] of buckets) {
      if ((slot + 1) * BUCKET_MS <= nowMs) {
        size -= keys.size;
        buckets.delete(slot);
      }
    }
  };

  return {
    admit(mac, expiresAtMs, nowMs) {
      prune(nowMs);
      const key = mac.toString('base64', 0, 16);
      for (const keys of buckets.values()) if (keys.has(key)) return false;
      const slot = Math.floor(expiresAtMs / BUCKET_MS);
      let keys = buckets.get(slot);
      if (keys === undefined) {
        keys = new Set();
        buckets.set(slot, keys);
      }
      keys.add(key);
      size++;
      return true;
    },
    get size() {
      return size;
    },
  };
}
