/**
 * A table from string keys to values for entries that come and go with every request (a key's
 * lock and its open group of changes). The caller gives each key's 32-bit hash with it (a replica
 * store has one already: the key's ring position), so a lookup never hashes the string.
 *
 * Not a Map: V8 links each replaced table of a churning Map to the next and keeps its entries, so
 * once one is old the chain keeps every entry since, and all it points to, until a full
 * collection (util/deadlines.ts explains). Nor a null-prototype object, as it was: a property
 * lookup with a fresh key string internalizes the string (hashes it, copies it into V8's string
 * table), about 0.15-0.25 µs each, several per write. This is open addressing with linear probing
 * in arrays that are overwritten in place (deletion shifts the run back, so no tombstones), grown
 * at half full and shrunk at an eighth: nothing is relinked, nothing is internalized.
 */

const CAPACITY_MIN = 64;

export class KeyTable<V> {
  private keys: (string | undefined)[] = new Array<string | undefined>(CAPACITY_MIN).fill(undefined);
  private hashes = new Int32Array(CAPACITY_MIN);
  private values: (V | undefined)[] = new Array<V | undefined>(CAPACITY_MIN).fill(undefined);
  private mask = CAPACITY_MIN - 1;
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(key: string, hash: number): V | undefined {
    const i = this.slotOf(key, hash | 0);
    return i < 0 ? undefined : this.values[i];
  }

  set(key: string, hash: number, value: V): void {
    const h = hash | 0;
    const { keys, hashes, mask } = this;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const k = keys[i];
      if (k === undefined) {
        keys[i] = key;
        hashes[i] = h;
        this.values[i] = value;
        if (++this.count * 2 > keys.length) this.resize(keys.length * 2);
        return;
      }
      if (hashes[i] === h && k === key) {
        this.values[i] = value;
        return;
      }
    }
  }

  delete(key: string, hash: number): void {
    let i = this.slotOf(key, hash | 0);
    if (i < 0) return;
    const { keys, hashes, values, mask } = this;
    // Backward-shift deletion: move up every later entry of the run that may sit in slot i.
    for (let j = (i + 1) & mask; keys[j] !== undefined; j = (j + 1) & mask) {
      const home = hashes[j]! & mask;
      if (((j - home) & mask) >= ((j - i) & mask)) {
        keys[i] = keys[j];
        hashes[i] = hashes[j]!;
        values[i] = values[j];
        i = j;
      }
    }
    keys[i] = undefined;
    values[i] = undefined;
    this.count--;
    if (keys.length > CAPACITY_MIN && this.count * 8 < keys.length) this.resize(keys.length / 2);
  }

  /** The slot holding `key`, or -1. */
  private slotOf(key: string, h: number): number {
    const { keys, hashes, mask } = this;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const k = keys[i];
      if (k === undefined) return -1;
      if (hashes[i] === h && k === key) return i;
    }
  }

  private resize(capacity: number): void {
    const { keys, hashes, values } = this;
    this.keys = new Array<string | undefined>(capacity).fill(undefined);
    this.hashes = new Int32Array(capacity);
    this.values = new Array<V | undefined>(capacity).fill(undefined);
    this.mask = capacity - 1;
    this.count = 0;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (k !== undefined) this.set(k, hashes[i]!, values[i] as V);
    }
  }
}
