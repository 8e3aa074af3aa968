import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CallSlots } from './call-slots.js';

interface Call {
  readonly id: number;
}

describe('CallSlots', () => {
  it('behaves as a map from id to call, for ids whose slot was free when added', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), id: fc.integer({ min: 1, max: 0xffff_ffff }) }),
      fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ kind: fc.constant('sweep' as const), id: fc.integer({ min: 1, max: 40 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const slots = new CallSlots<Call>(8);
        const model = new Map<number, Call>();
        const added: number[] = [];
        for (const { kind, id: raw } of ops) {
          if (kind === 'add') {
            // Ids are small or huge (uint32 wrap): both must map to a slot.
            const id = raw % 2 === 0 ? raw % 40 || 1 : raw;
            const free = ![...model.keys()].some((k) => (k & 7) === (id & 7));
            expect(slots.taken(id)).toBe(!free);
            if (!free) continue;
            const call = { id };
            slots.add(call);
            model.set(id, call);
            added.push(id);
          } else if (kind === 'delete') {
            const id = added[raw % Math.max(1, added.length)] ?? raw;
            expect(slots.delete(id)).toBe(model.delete(id));
          } else {
            // Deleting while walking, as a sweep does: every call is seen once.
            const seen: number[] = [];
            slots.forEach((call) => {
              seen.push(call.id);
              if (call.id % 2 === 0) slots.delete(call.id);
            });
            expect(seen.sort()).toEqual([...model.keys()].sort());
            for (const id of model.keys()) if (id % 2 === 0) model.delete(id);
          }
          expect(slots.size).toBe(model.size);
          for (const [id, call] of model) expect(slots.get(id)).toBe(call);
        }
      }),
    );
  });

  it('refuses a call whose slot is taken, and a capacity that is not a power of two', () => {
    const slots = new CallSlots<Call>(4);
    slots.add({ id: 1 });
    expect(() => slots.add({ id: 5 })).toThrow(/taken/);
    expect(slots.get(5)).toBeUndefined();
    expect(() => new CallSlots<Call>(6)).toThrow(/power of two/);
  });
});
