import { murmur3Text } from '@tessera/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Doorkeeper } from './doorkeeper.js';

describe('doorkeeper (state cache admission)', () => {
  it('admits a key on its second miss in a row, then asks for two again', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (hash) => {
        const door = new Doorkeeper(8 * 1024 * 1024);
        expect([door.admits(hash), door.admits(hash), door.admits(hash), door.admits(hash)]).toEqual([
          false,
          true,
          false,
          true,
        ]);
      }),
    );
  });

  it('admits most keys read again within a few hundred other misses, in a table of fixed size', () => {
    const door = new Doorkeeper(128 * 1024); // 1,024 slots
    let admitted = 0;
    for (let t = 0; t < 100; t++) {
      const key = murmur3Text(`hot:${t}`);
      door.admits(key);
      for (let i = 0; i < 200; i++) door.admits(murmur3Text(`cold:${t}:${i}`));
      if (door.admits(key)) admitted++;
    }
    // A key's slot is taken by one of 200 other misses with probability 1 - (1 - 1/1024)^200 = 18%.
    expect(admitted).toBeGreaterThan(70);
    expect(new Doorkeeper(0).admits(7)).toBe(false);
  });
});
