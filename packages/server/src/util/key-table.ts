/**
 * A table from string keys to values for entries that come and go with every request (a key's
 * lock, its queued changes). Not a Map: V8 links each replaced table of a churning Map to the next
 * and keeps its entries, so once one is old the chain keeps every entry since, and all it points
 * to, until a full collection (util/deadlines.ts explains). A null-prototype object's dictionary
 * drops a replaced table without a link. No order, no iteration: only what the callers need.
 */
export class KeyTable<V> {
  private readonly entries: Record<string, V | undefined> = Object.create(null) as Record<
    string,
    V | undefined
  >;
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(key: string): V | undefined {
    return this.entries[key];
  }

  set(key: string, value: V): void {
    if (this.entries[key] === undefined) this.count++;
    this.entries[key] = value;
  }

  delete(key: string): void {
    if (this.entries[key] === undefined) return;
    delete this.entries[key];
    this.count--;
  }
}
