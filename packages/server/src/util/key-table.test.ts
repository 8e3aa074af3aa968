import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyTable } from './key-table.js';

/** A deliberately poor hash: many keys share one, so probing, shifting and resizing all run. */
const poorHash = (key: string): number => (key.length * 7919) % 5;

describe('KeyTable', () => {
  it('holds any string key, own properties of Object.prototype and numbers included, and counts them', () => {
    const table = new KeyTable<number>();
    const keys = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '123', '', 'k'];
    for (const [i, key] of keys.entries()) table.set(key, poorHash(key), i);
    expect(table.size).toBe(keys.length);
    for (const [i, key] of keys.entries()) expect(table.get(key, poorHash(key))).toBe(i);
    table.set('k', poorHash('k'), 99);
    expect(table.size).toBe(keys.length);
    table.delete('__proto__', poorHash('__proto__'));
    table.delete('__proto__', poorHash('__proto__'));
    table.delete('absent', poorHash('absent'));
    expect(table.get('__proto__', poorHash('__proto__'))).toBeUndefined();
    expect(table.size).toBe(keys.length - 1);
    expect(table.get('valueOf', poorHash('valueOf'))).toBeUndefined();
  });

  it('answers as a Map does through any sequence of sets and deletes, with colliding hashes, growing and shrinking', () => {
    const op = fc.record({
      kind: fc.constantFrom('set', 'delete', 'get'),
      key: fc.oneof(
        fc.string({ maxLength: 4 }),
        fc.integer({ min: 0, max: 400 }).map((n) => `k${n}`),
      ),
      value: fc.integer(),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 1500 }), fc.boolean(), (ops, poor) => {
        const hash = poor
          ? poorHash
          : (key: string) => [...key].reduce((h, c) => Math.imul(h, 31) + c.charCodeAt(0), 7);
        const table = new KeyTable<number>();
        const model = new Map<string, number>();
        for (const { kind, key, value } of ops) {
          if (kind === 'set') {
            table.set(key, hash(key), value);
            model.set(key, value);
          } else if (kind === 'delete') {
            table.delete(key, hash(key));
            model.delete(key);
          }
          expect(table.get(key, hash(key))).toBe(model.get(key));
          expect(table.size).toBe(model.size);
        }
        for (const [key, value] of model) expect(table.get(key, hash(key))).toBe(value);
      }),
      { numRuns: 150 },
    );
  });

  it('grows past a thousand keys and shrinks back, answering right throughout', () => {
    const table = new KeyTable<number>();
    const keys = Array.from({ length: 5000 }, (_, i) => `key-${i}`);
    const hash = (key: string): number => Number(key.slice(4)) * 2654435761;
    for (const [i, key] of keys.entries()) table.set(key, hash(key), i);
    expect(table.size).toBe(5000);
    for (const [i, key] of keys.entries()) if (i % 1000 === 0) expect(table.get(key, hash(key))).toBe(i);
    for (const key of keys.slice(10)) table.delete(key, hash(key));
    expect(table.size).toBe(10);
    for (const [i, key] of keys.slice(0, 10).entries()) expect(table.get(key, hash(key))).toBe(i);
    expect(table.get('key-4000', hash('key-4000'))).toBeUndefined();
  });
});
