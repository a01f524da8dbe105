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
