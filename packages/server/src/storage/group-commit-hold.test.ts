/**
 * Group commit's Nagle-style hold (commitHoldMs): while writes keep coming, a small group waits for
 * more, so a partly loaded node writes fewer, fuller LevelDB batches; a write to an idle engine and
 * a full group never wait. Driven through an engine that records its batches, a manual clock and
 * fake timeouts (ticks are real).
 */
import { applyWrite, EMPTY_CONTEXT, type KeyState, utf8 } from '@tessera/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BatchOp } from './engine.js';
import { GROUP_HOLD_SUBMISSIONS, GroupCommit } from './group-commit.js';
import { MemoryEngine } from './memory-engine.js';
import { ReplicaStore } from './replica-store.js';

const HOLD_MS = 1_000;

/** Records the keys of every batch it writes. */
class RecordingEngine extends MemoryEngine {
  readonly batches: string[][] = [];
  protected override async _batch(ops: readonly BatchOp[]): Promise<void> {
    this.batches.push(ops.map((op) => op.key));
    await super._batch(ops);
  }
}

async function setup(holdMs = HOLD_MS) {
  const engine = new RecordingEngine();
  await engine.open();
  const clock = { ms: 0 };
  const commits = new GroupCommit(engine, { holdMs, now: () => clock.ms });
  const write = (key: string) =>
    commits.write([{ type: 'put', ns: 'data', key, value: new Uint8Array([1]) }], false);
  return { engine, clock, write };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('group commit hold (commitHoldMs)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes to an idle engine at once, then holds small groups while writes keep coming', async () => {
    const { engine, write } = await setup();
    await write('a');
    expect(engine.batches).toEqual([['a']]);
    const b = write('b');
    await tick();
    const c = write('c');
    await tick();
    expect(engine.batches).toHaveLength(1);
    vi.advanceTimersByTime(HOLD_MS);
    await Promise.all([b, c]);
    expect(engine.batches).toEqual([['a'], ['b', 'c']]);
  });

  it(`sends a held group at the end of the tick once it has ${GROUP_HOLD_SUBMISSIONS} writes`, async () => {
    const { engine, write } = await setup();
    await write('a');
    const keys = Array.from({ length: GROUP_HOLD_SUBMISSIONS }, (_, i) => `k${i}`);
    const held = write(keys[0]!);
    await tick();
    expect(engine.batches).toHaveLength(1);
    await Promise.all([held, ...keys.slice(1).map(write)]);
    expect(engine.batches).toEqual([['a'], keys]);
  });

  it('does not hold a write that comes after a quiet spell', async () => {
    const { engine, clock, write } = await setup();
    await write('a');
    await tick(); // the group is over
    clock.ms += 2 * HOLD_MS;
    await write('b');
    expect(engine.batches).toEqual([['a'], ['b']]);
  });

  it('never holds with holdMs 0', async () => {
    const { engine, write } = await setup(0);
    await write('a');
    await write('b');
    expect(engine.batches).toEqual([['a'], ['b']]);
  });

  it('is what ReplicaStore does with commitHoldMs: changes to two keys in a stream of writes go as one batch', async () => {
    const engine = new RecordingEngine();
    await engine.open();
    const store = new ReplicaStore(engine, { partitionCount: 8, sync: false, commitHoldMs: HOLD_MS });
    await store.open();
    const put = (key: string) =>
      store.update(key, (stored: KeyState) =>
        applyWrite(stored, {
          actor: 'n1',
          context: EMPTY_CONTEXT,
          value: utf8('1'),
          nowMs: 1,
          vvEntriesMax: 8,
        }),
      );
    await put('a');
    const before = engine.batches.length;
    const b = put('b');
    await tick();
    const c = put('c');
    await tick();
    expect(engine.batches).toHaveLength(before);
    vi.advanceTimersByTime(HOLD_MS);
    await Promise.all([b, c]);
    expect(engine.batches).toHaveLength(before + 1);
    expect(engine.batches.at(-1)!.map((key) => key.slice(key.indexOf('/') + 1))).toEqual(['b', 'c']);
  });
});
