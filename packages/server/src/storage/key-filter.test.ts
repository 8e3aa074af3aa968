import { describe, expect, it } from 'vitest';
import { KeyFilter, type KeyFilterStats, keyFilterSaturated } from './key-filter.js';
import { MemoryEngine } from './memory-engine.js';

/** A bound below the first layer's size (about 127 KiB): the first key saturates the filter. */
const TOO_SMALL = 100_000;

async function emptyEngine(): Promise<MemoryEngine> {
  const engine = new MemoryEngine();
  await engine.open();
  return engine;
}

describe('KeyFilter saturation', () => {
  it('tells once when a write passes its bound, and then denies nothing', async () => {
    const told: KeyFilterStats[] = [];
    const filter = new KeyFilter(TOO_SMALL, (stats) => told.push(stats));
    await filter.build(await emptyEngine());
    filter.add('a');
    filter.add('b');
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ saturated: true, bytesMax: TOO_SMALL });
    expect(filter.mayHold('never written')).toBe(true);
  });

  it('tells once when the scan of stored keys passes its bound; the filter never answers', async () => {
    const engine = await emptyEngine();
    const value = new Uint8Array([1]);
    await engine.batch(['x', 'y', 'z'].map((key) => ({ type: 'put', ns: 'data', key, value })));
    const told: KeyFilterStats[] = [];
    const filter = new KeyFilter(TOO_SMALL, (stats) => told.push(stats));
    await filter.build(engine);
    expect(told).toHaveLength(1); // from the scan, before any write
    filter.add('w');
    expect(told).toHaveLength(1);
    expect(filter.stats()).toMatchObject({ ready: false, saturated: true });
    expect(filter.mayHold('never written')).toBe(true);
  });

  it('says nothing when it is turned off (bound 0) or stays within its bound', async () => {
    const told: KeyFilterStats[] = [];
    const off = new KeyFilter(0, (stats) => told.push(stats));
    const within = new KeyFilter(1024 * 1024, (stats) => told.push(stats));
    await within.build(await emptyEngine());
    for (let i = 0; i < 1000; i++) {
      off.add(`k${i}`);
      within.add(`k${i}`);
    }
    expect(told).toEqual([]);
    expect(within.mayHold('never written')).toBe(false);
  });

  it('tells the operator what to change', () => {
    expect(keyFilterSaturated(TOO_SMALL)).toMatch(
      /keyFilterBytesMax \(100000 bytes\).*Raise keyFilterBytesMax/,
    );
  });
});
