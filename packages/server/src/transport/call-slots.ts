/**
 * Calls in flight by id, in a table of fixed size that never moves: a call's slot is its id modulo
 * the capacity (a power of two), and a new id skips slots still taken.
 *
 * Not a Map: a Map whose entries come and go thousands of times a second is rehashed again and
 * again, and V8 keeps each replaced table, with its entries, linked to the next until a full
 * collection once one of them is old (util/deadlines.ts explains). One array made at the start
 * grows old once and is then only written: a finished call's slot is cleared, and nothing else
 * keeps it.
 */
export class CallSlots<T extends { readonly id: number }> {
  private readonly slots: (T | undefined)[];
  private readonly mask: number;
  private count = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(Math.log2(capacity)))
      throw new RangeError(`capacity ${capacity} is not a power of two`);
    this.slots = new Array<T | undefined>(capacity).fill(undefined);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Whether the slot of `id` holds a call (this one, or another id that shares the slot). */
  taken(id: number): boolean {
    return this.slots[id & this.mask] !== undefined;
  }

  get(id: number): T | undefined {
    const call = this.slots[id & this.mask];
    return call?.id === id ? call : undefined;
  }

  /** Adds a call whose slot is free (see `taken`). */
  add(call: T): void {
    const slot = call.id & this.mask;
    if (this.slots[slot] !== undefined) throw new RangeError(`slot of call ${call.id} is taken`);
    this.slots[slot] = call;
    this.count++;
  }

  delete(id: number): boolean {
    const slot = id & this.mask;
    if (this.slots[slot]?.id !== id) return false;
    this.slots[slot] = undefined;
    this.count--;
    return true;
  }

  /** Every call, in slot order; `fn` may delete the call it is given. */
  forEach(fn: (call: T) => void): void {
    if (this.count === 0) return;
    for (const call of this.slots) if (call !== undefined) fn(call);
  }
}
