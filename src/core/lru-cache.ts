/**
 * A bounded least-recently-used map. Map keeps insertion order, so re-inserting a key moves it to the
 * young end and the oldest key is always the first one: O(1) for get, set and eviction.
 *
 * A hit re-inserts only an entry that has aged: one touched within the last quarter of `capacity`
 * insertions stays where it is. Such an entry cannot be the oldest (three quarters of the cache are
 * older), so eviction still takes a least recently used entry, and the hot path's hits on the same few
 * keys (one viral link, one popular user agent) cost a lookup, not a delete, an insert and the hash
 * table's shrink and regrowth each time.
 */
interface Slot<V> {
  value: V;
  /** The clock when the entry was last inserted or moved to the young end. */
  stamp: number;
}

export class LruCache<K, V> {
  readonly #entries = new Map<K, Slot<V>>();
  readonly #refreshAfter: number;
  #clock = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('capacity must be a positive integer');
    this.#refreshAfter = Math.max(1, Math.floor(capacity / 4));
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const slot = this.#entries.get(key);
    if (slot === undefined) return undefined;
    if (this.#clock - slot.stamp >= this.#refreshAfter) {
      this.#entries.delete(key);
      this.#entries.set(key, slot);
      slot.stamp = ++this.#clock;
    }
    return slot.value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, stamp: ++this.#clock });
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Deletes every entry `drop` picks (a whole organization's links); returns how many went. */
  deleteWhere(drop: (key: K, value: V) => boolean): number {
    let deleted = 0;
    for (const [key, slot] of this.#entries) {
      if (drop(key, slot.value)) {
        this.#entries.delete(key);
        deleted++;
      }
    }
    return deleted;
  }

  clear(): void {
    this.#entries.clear();
  }
}
