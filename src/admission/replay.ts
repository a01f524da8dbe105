/**
 * Replay refusal (docs/design.md#freshness-and-replay): a state-changing request token is accepted once within its
 * validity window. Keyed on a 128-bit prefix of the token's HMAC, never on the body text (many bodies
 * decode to one token). Entries live in 10-second buckets by expiry, so whole buckets are dropped once
 * every token in them has expired anyway; memory holds only live tokens (bounded by the accepted-token
 * rate × `messagettl`, since only tokens that passed the freshness check are recorded).
 *
 * Why the keys are held as numbers in typed arrays rather than strings in a Set: under a sustained
 * write load the set holds rate × 130 s keys (1.3 million at 10,000 sign-ups or logins a second). As
 * strings in a Set that is ~70 bytes and two heap objects a key, every one promoted to V8's old space
 * and traced by every full collection; here it is 16 bytes of key and one byte of occupancy per slot,
 * at most half the slots in use, and nothing for the collector to trace.
 */
const BUCKET_MS = 10_000;
const KEY_BYTES = 16;
const FIRST_CAPACITY = 1024;

/** The replay-cache key of a token: its HMAC's first 128 bits, base64. */
export function replayKey(mac: Buffer): string {
  return mac.toString('base64', 0, KEY_BYTES);
}

/** An open-addressing (linear probing) set of 128-bit keys, each given as four 32-bit words. */
class KeyTable {
  private words: Int32Array;
  private used: Uint8Array;
  private mask: number;
  size = 0;

  constructor(capacity = FIRST_CAPACITY) {
    this.words = new Int32Array(capacity * 4);
    this.used = new Uint8Array(capacity);
    this.mask = capacity - 1;
  }

  /** The slot holding the key, or the empty slot where it would go. */
  private find(a: number, b: number, c: number, d: number): number {
    // The keys are HMAC output, uniformly distributed: any of their bits make a good index.
    let slot = (Math.imul(a, 0x9e3779b1) ^ b) & this.mask;
    for (;;) {
      if (this.used[slot] === 0) return slot;
      const at = slot * 4;
      const w = this.words;
      if (w[at] === a && w[at + 1] === b && w[at + 2] === c && w[at + 3] === d) return slot;
      slot = (slot + 1) & this.mask;
    }
  }

  has(a: number, b: number, c: number, d: number): boolean {
    return this.used[this.find(a, b, c, d)] === 1;
  }

  /** Adds the key; false when it was already there. */
  add(a: number, b: number, c: number, d: number): boolean {
    const slot = this.find(a, b, c, d);
    if (this.used[slot] === 1) return false;
    this.put(slot, a, b, c, d);
    // At most half full, so probes stay short and a free slot always exists.
    if (++this.size * 2 > this.used.length) this.grow();
    return true;
  }

  private put(slot: number, a: number, b: number, c: number, d: number): void {
    const at = slot * 4;
    this.words[at] = a;
    this.words[at + 1] = b;
    this.words[at + 2] = c;
    this.words[at + 3] = d;
    this.used[slot] = 1;
  }

  private grow(): void {
    const { words, used } = this;
    this.words = new Int32Array(words.length * 2);
    this.used = new Uint8Array(used.length * 2);
    this.mask = this.used.length - 1;
    for (let slot = 0; slot < used.length; slot++) {
      if (used[slot] === 0) continue;
      const at = slot * 4;
      const a = words[at] ?? 0;
      const b = words[at + 1] ?? 0;
      const c = words[at + 2] ?? 0;
      const d = words[at + 3] ?? 0;
      this.put(this.find(a, b, c, d), a, b, c, d);
    }
  }
}

/** The string-keyed set the admission stores use: check first, record only once admitted. */
export class ReplaySet {
  private readonly buckets = new Map<number, KeyTable>();
  private count = 0;
  // Decoding into one reused buffer: a check allocates nothing.
  private readonly scratch = Buffer.alloc(KEY_BYTES + 2);
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;

  get size(): number {
    return this.count;
  }

  has(key: string, nowMs: number): boolean {
    this.prune(nowMs);
    this.decode(key);
    for (const keys of this.buckets.values()) if (keys.has(this.a, this.b, this.c, this.d)) return true;
    return false;
  }

  add(key: string, expiresAtMs: number): void {
    const slot = Math.floor(expiresAtMs / BUCKET_MS);
    let keys = this.buckets.get(slot);
    if (keys === undefined) {
      keys = new KeyTable();
      this.buckets.set(slot, keys);
    }
    this.decode(key);
    if (keys.add(this.a, this.b, this.c, this.d)) this.count++;
  }

  /** A key is replayKey()'s output: 16 bytes in base64. Anything else is a programming error. */
  private decode(key: string): void {
    const scratch = this.scratch;
    if (key.length !== 24 || scratch.write(key, 'base64') !== KEY_BYTES)
      throw new TypeError('a replay key is 16 bytes in base64 (replayKey)');
    this.a = scratch.readInt32LE(0);
    this.b = scratch.readInt32LE(4);
    this.c = scratch.readInt32LE(8);
    this.d = scratch.readInt32LE(12);
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
