/**
 * A Map with a hard size bound, least recently written first out. Attackers choose bucket keys
 * (tokens, emails, 2^32 IPs), so every memory structure keyed by them needs a bound like this one.
 */
export class BoundedMap<V> {
  private readonly map = new Map<string, V>();

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
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.limit) this.dropOldest();
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  /** Drops up to `count` of the oldest entries while `stale` says so: cheap incremental clean-up. */
  sweep(stale: (value: V) => boolean, count: number): void {
    for (let i = 0; i < count; i++) {
      const first = this.map.entries().next();
      if (first.done === true || !stale(first.value[1])) return;
      this.map.delete(first.value[0]);
    }
  }

  private dropOldest(): void {
    const first = this.map.keys().next();
    if (first.done !== true) this.map.delete(first.value);
  }
}
