import { EMPTY_STATE } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { MemoryEngine } from '../storage/memory-engine.js';
import { Incarnation } from './incarnation.js';

async function disk(): Promise<MemoryEngine> {
  const engine = new MemoryEngine();
  await engine.open();
  return engine;
}

describe('Incarnation', () => {
  it('keeps its tag and epochs across a clean stop, so a rolling restart adds no vector entry', async () => {
    const engine = await disk();
    const first = await Incarnation.open(engine, { node: 'n0' });
    const actor = first.actors.actorFor(EMPTY_STATE);
    await first.closeCleanly();
    const again = await Incarnation.open(engine, { node: 'n0' });
    expect(again.tag).toBe(first.tag);
    // The next key mints past every epoch the earlier life handed out.
    expect(again.actors.actorFor(EMPTY_STATE)).not.toBe(actor);
    expect(again.actors.epoch).toBe(first.actors.epoch + 1);
  });

  it('starts a new incarnation after an unclean stop, on a new data dir, and when renewed', async () => {
    const engine = await disk();
    const first = await Incarnation.open(engine, { node: 'n0' });
    const afterCrash = await Incarnation.open(engine, { node: 'n0' }); // no closeCleanly: kill -9
    expect(afterCrash.tag).not.toBe(first.tag);
    const wiped = await Incarnation.open(await disk(), { node: 'n0' });
    expect(wiped.tag).not.toBe(first.tag);
    await afterCrash.renew();
    expect(afterCrash.tag).not.toBe(first.tag);
    const owned = afterCrash.actors.actorFor(EMPTY_STATE);
    expect(afterCrash.actors.owns(owned)).toBe(true);
    await afterCrash.closeCleanly();
    expect((await Incarnation.open(engine, { node: 'n0' })).tag).toBe(afterCrash.tag);
  });

  it('treats an unreadable record as an unclean stop', async () => {
    const engine = await disk();
    await engine.batch([
      { type: 'put', ns: 'meta', key: 'incarnation', value: new TextEncoder().encode('{oops') },
    ]);
    const life = await Incarnation.open(engine, { node: 'n0' });
    expect(life.tag).toMatch(/^[0-9a-z]{8}$/);
  });
});
