import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyWrite, EMPTY_CONTEXT, EMPTY_STATE, type KeyState, TesseraError } from '@tessera/core';
import { afterEach, describe, expect, it } from 'vitest';
import { HintStore } from './hint-store.js';
import { LevelEngine } from './level-engine.js';
import { MemoryEngine } from './memory-engine.js';

const write = (value: string, on: KeyState = EMPTY_STATE): KeyState =>
  applyWrite(on, {
    actor: 'a',
    context: EMPTY_CONTEXT,
    value: new TextEncoder().encode(JSON.stringify(value)),
    nowMs: 1,
    vvEntriesMax: 8,
  });

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function memoryStore(limits: { hintsMax?: number; hintBytesMax?: number } = {}) {
  const engine = new MemoryEngine();
  await engine.open();
  const store = new HintStore(engine, {
    hintsMax: limits.hintsMax ?? 100,
    hintBytesMax: limits.hintBytesMax ?? 1 << 20,
    sync: false,
    now: () => 5,
  });
  await store.open();
  return store;
}

describe('HintStore', () => {
  it('merges hints for one key and target, and keeps targets apart', async () => {
    const store = await memoryStore();
    const first = write('x');
    await store.add('b', 'k', first);
    await store.add('b', 'k', write('y', first));
    await store.add('c', 'k', first);
    expect([...store.targets()].map(([t, h]) => [t, h.count])).toEqual([
      ['b', 1],
      ['c', 1],
    ]);
    const [hint] = await store.take('b', 10);
    expect(hint?.state.siblings).toHaveLength(2);
    expect(hint?.createdMs).toBe(5);
  });

  it('refuses new hints past hintsMax or hintBytesMax and drops nothing it holds', async () => {
    const store = await memoryStore({ hintsMax: 2 });
    await store.add('b', 'k1', write('1'));
    await store.add('b', 'k2', write('2'));
    await expect(store.add('b', 'k3', write('3'))).rejects.toSatisfy(
      (e) => TesseraError.is(e) && e.code === 'OVERLOADED',
    );
    expect(store.totals().count).toBe(2);
    const small = await memoryStore({ hintBytesMax: 60 });
    await small.add('b', 'k1', write('1'));
    await expect(small.add('b', 'k2', write('a long value that does not fit'))).rejects.toSatisfy(
      (e) => TesseraError.is(e) && e.code === 'OVERLOADED',
    );
    expect(small.totals().count).toBe(1);
  });

  it('refuses new hints while told to (a draining node), keeps what it holds, and takes them again after', async () => {
    const store = await memoryStore();
    await store.add('b', 'k1', write('1'));
    let draining = true;
    store.refuseNewWhile(() => (draining ? new TesseraError('NODE_DRAINING', 'draining') : undefined));
    await expect(store.add('b', 'k2', write('2'))).rejects.toSatisfy(
      (e) => TesseraError.is(e) && e.code === 'NODE_DRAINING',
    );
    expect(store.totals().count).toBe(1);
    draining = false;
    await store.add('b', 'k2', write('2'));
    expect(store.totals().count).toBe(2);
  });

  it('removes a delivered hint only if no newer hinted write merged into it meanwhile', async () => {
    const store = await memoryStore();
    const first = write('1');
    await store.add('b', 'k', first);
    const [taken] = await store.take('b', 10);
    await store.add('b', 'k', write('2', first));
    expect(await store.remove('b', taken!)).toBe(false);
    const [again] = await store.take('b', 10);
    expect(await store.remove('b', again!)).toBe(true);
    expect(store.totals()).toEqual({ count: 0, bytes: 0 });
  });

  it('still holds and counts its hints after the LevelDB engine is reopened', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tessera-hints-'));
    dirs.push(dir);
    const engine = new LevelEngine(dir);
    await engine.open();
    const store = new HintStore(engine, { hintsMax: 10, hintBytesMax: 1 << 20, sync: true, now: () => 1 });
    await store.open();
    await store.add('b', 'k1', write('1'));
    await store.add('c', 'k2', write('2'));
    await engine.close();
    const reopened = new LevelEngine(dir);
    await reopened.open();
    const again = new HintStore(reopened, { hintsMax: 10, hintBytesMax: 1 << 20, sync: true, now: () => 1 });
    await again.open();
    expect(again.totals()).toEqual(store.totals());
    expect((await again.take('c', 10)).map((h) => h.key)).toEqual(['k2']);
    await reopened.close();
  });
});

describe('HintStore oldest hint per target (/metrics hint age)', () => {
  it('is the creation time of the oldest hint held, found again after a restart and after a full take', async () => {
    const engine = new MemoryEngine();
    await engine.open();
    let now = 100;
    const options = { hintsMax: 100, hintBytesMax: 1 << 20, sync: false, now: () => now };
    const store = new HintStore(engine, options);
    await store.open();
    await store.add('b', 'k1', write('x'));
    now = 200;
    await store.add('b', 'k2', write('y'));
    await store.add('c', 'k1', write('z'));
    expect(store.oldestByTarget()).toEqual(
      new Map([
        ['b', 100],
        ['c', 200],
      ]),
    );
    // A later write merged into k1 keeps its creation time.
    now = 300;
    await store.add('b', 'k1', write('w'));
    expect(store.oldestByTarget().get('b')).toBe(100);

    const reopened = new HintStore(engine, options);
    await reopened.open();
    expect(reopened.oldestByTarget()).toEqual(
      new Map([
        ['b', 100],
        ['c', 200],
      ]),
    );

    const [k1] = await reopened.take('b', 1);
    expect(await reopened.remove('b', k1!)).toBe(true);
    // An upper bound until a take lists all of the target's hints...
    expect(reopened.oldestByTarget().get('b')).toBe(100);
    await reopened.take('b', 10);
    expect(reopened.oldestByTarget().get('b')).toBe(200);
    // ...and gone with the target's last hint.
    const [k2] = await reopened.take('b', 10);
    await reopened.remove('b', k2!);
    expect(reopened.oldestByTarget().has('b')).toBe(false);
  });
});
