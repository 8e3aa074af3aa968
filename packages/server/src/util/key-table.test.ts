import { describe, expect, it } from 'vitest';
import { KeyTable } from './key-table.js';

describe('KeyTable', () => {
  it('holds any string key, own properties of Object.prototype and numbers included, and counts them', () => {
    const table = new KeyTable<number>();
    const keys = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '123', '', 'k'];
    for (const [i, key] of keys.entries()) table.set(key, i);
    expect(table.size).toBe(keys.length);
    for (const [i, key] of keys.entries()) expect(table.get(key)).toBe(i);
    table.set('k', 99);
    expect(table.size).toBe(keys.length);
    table.delete('__proto__');
    table.delete('__proto__');
    table.delete('absent');
    expect(table.get('__proto__')).toBeUndefined();
    expect(table.size).toBe(keys.length - 1);
    expect(table.get('valueOf')).toBeUndefined();
  });
});
