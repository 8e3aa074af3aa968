/**
 * Values derived from an immutable object (a ring, a preference list) and a small whole number
 * (a partition, N), made on first use and shared by every caller asking the same: never change
 * them. The memo goes with the object.
 */
export class IndexedMemo<K extends object, V> {
  private readonly byKey = new WeakMap<K, (V | undefined)[]>();

  /** @param indexMax the largest index kept; others are made on every call, never kept. */
  constructor(private readonly indexMax: number) {}

  /** `make` is called with `key` and `index`: pass a function made once, not a closure per call. */
  get(key: K, index: number, make: (key: K, index: number) => V): V {
    let values = this.byKey.get(key);
    if (values === undefined) {
      values = [];
      this.byKey.set(key, values);
    }
    const known = values[index];
    if (known !== undefined) return known;
    const value = make(key, index);
    if (Number.isInteger(index) && index >= 0 && index <= this.indexMax) values[index] = value;
    return value;
  }
}
