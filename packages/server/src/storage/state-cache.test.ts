/**
 * The state cache never serves a state older than what the node has stored, and the key filter
 * never denies a key the engine holds: random interleavings of updates, merges, reads, drops,
 * tombstone collection, failing writes and restarts (a new store on the same engine, its filter's
 * scan still running or done), with budgets small enough to evict all the time, filters off,
 * saturated or whole, and engine reads that answer late, against the real ReplicaStore; every
 * read is checked against a model of the stored state and against the engine read directly.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applyWrite,
  EMPTY_CONTEXT,
  EMPTY_STATE,
  type KeyState,
  mergeStates,
  sameState,
  utf8,
} from '@tessera/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  budget,
  contextOf,
  encoded,
  filterBudget,
  type Group,
  hex,
  KEYS,
  type Member,
  NOW_MS,
  Q,
  type SoloOp,
  type Step,
  step,
  TrickyEngine,
  ticks,
  type WriteOp,
} from '../../test/cache-model-kit.js';
import type { StorageEngine } from './engine.js';
import { LevelEngine } from './level-engine.js';
import { MemoryEngine } from './memory-engine.js';
import { ReplicaStore } from './replica-store.js';
import { locate } from './stored-keys.js';

/** Runs `steps` against a store on `inner`, checking every read against the model and the engine. */
/** What the random runs made the cache do, summed: they must have hit and evicted. */
const exercised = { hits: 0, evictions: 0, readsSkipped: 0, restarts: 0 };

interface Budgets {
  readonly cache: number;
  readonly filter: number;
}

async function check(inner: StorageEngine, budgets: Budgets, delays: number[], steps: Step[]): Promise<void> {
  const engine = new TrickyEngine(inner, delays);
  await engine.open();
  const newStore = async () => {
    const opened = new ReplicaStore(engine, {
      partitionCount: Q,
      sync: false,
      now: () => NOW_MS,
      stateCacheBytesMax: budgets.cache,
      keyFilterBytesMax: budgets.filter,
    });
    await opened.open();
    return opened;
  };
  let store = await newStore();
  const counted = () => {
    exercised.hits += store.cacheStats().hits;
    exercised.evictions += store.cacheStats().evictions;
    exercised.readsSkipped += store.keyFilterStats().readsSkipped;
  };
  const model = new Map<string, KeyState>();
  const remote = new Map<string, KeyState>();
  let serial = 0;

  const direct = async (k: string) => hex(await inner.get('data', locate(Q, k).dataKey));
  const verify = async (k: string) => {
    const want = encoded(model.get(k));
    expect(await direct(k), `engine holds ${k}`).toBe(want);
    expect(encoded(await store.read(k)), `read ${k}`).toBe(want);
    expect(hex(await store.readEncoded(k)), `readEncoded ${k}`).toBe(want);
  };

  for (const s of steps) {
    if ('solo' in s) {
      await runSolo(s.solo);
      for (const k of KEYS) await verify(k);
      continue;
    }
    // Ops on one key apply in call order (the key lock); reads may see any state in between.
    // Changes to one key called together are written together (change-queue.ts): one write, and
    // a failing write fails them all; a drop between them closes the group.
    const seen = new Map<string, string[]>(KEYS.map((k) => [k, [encoded(model.get(k))]]));
    const groups = new Map<string, Group>();
    const runs = s.together.map((op) => runTogether(op, seen, groups));
    for (const k of [...groups.keys()]) closeGroup(k, groups, seen);
    const results = await Promise.all(runs.map((r) => r()));
    for (const [i, op] of s.together.entries()) {
      const got = results[i];
      if (op.kind === 'read' || op.kind === 'readEncoded')
        expect(seen.get(op.key), `${op.kind} ${op.key} during ${JSON.stringify(s)}`).toContain(got);
    }
    for (const k of new Set(s.together.map((op) => op.key))) await verify(k);
  }
  for (const k of KEYS) await verify(k);
  expect(store.cacheStats().bytes).toBeLessThanOrEqual(budgets.cache);
  counted();
  await engine.close();

  /**
   * Starts `op` now (synchronously, so call order is lock order); the model follows at once, and
   * a change's outcome is known once its group closes (`closeGroup`).
   */
  function runTogether(
    op: WriteOp,
    seen: Map<string, string[]>,
    groups: Map<string, Group>,
  ): () => Promise<string | undefined> {
    const history = seen.get(op.key)!;
    if (op.kind === 'read' || op.kind === 'readEncoded') {
      const read = op.kind === 'read';
      const p = ticks(op.wait).then(async () =>
        read ? encoded(await store.read(op.key)) : hex(await store.readEncoded(op.key)),
      );
      return () => p;
    }
    if (op.kind === 'drop') {
      closeGroup(op.key, groups, seen);
      const current = model.get(op.key);
      const handed = op.stale || current === undefined ? oldState(op.key) : current;
      const p = store.dropIfUnchanged(op.key, handed);
      if (current !== undefined && sameState(current, handed)) model.delete(op.key);
      history.push(encoded(model.get(op.key)));
      return async () => {
        expect(await p).toBe(current !== undefined && sameState(current, handed));
        return undefined;
      };
    }
    const fn = changeFn(op);
    const stored = model.get(op.key);
    const next = fn.apply(stored ?? EMPTY_STATE);
    const writes = !(sameState(next, stored ?? EMPTY_STATE) && next.deletedAtMs === stored?.deletedAtMs);
    let group = groups.get(op.key);
    if (group === undefined) {
      group = { before: stored, members: [] };
      groups.set(op.key, group);
    }
    const p = fn.theirs === undefined ? store.update(op.key, fn.apply) : store.merge(op.key, fn.theirs);
    if (writes) model.set(op.key, next);
    history.push(encoded(model.get(op.key)));
    const member: Member = { op, answer: encoded(writes ? next : (stored ?? EMPTY_STATE)), writes };
    group.members.push(member);
    return async () => {
      const outcome = await p.then(encoded, (err: unknown) => err);
      if (member.armed !== undefined) engine.armed.delete(member.armed);
      if (member.fails === true) expect(outcome).toBeInstanceOf(Error);
      else expect(outcome, `${op.kind} ${op.key} answers what it stored`).toBe(member.answer);
      return undefined;
    };
  }

  /**
   * The key's group is written once, with the state its last change left. It fails when one of
   * its changes that writes is armed to fail: then every change of the group fails, and the
   * engine holds the state from before the group ('before') or the group's ('after').
   */
  function closeGroup(k: string, groups: Map<string, Group>, seen: Map<string, string[]>): void {
    const group = groups.get(k);
    if (group === undefined) return;
    groups.delete(k);
    const writers = group.members.filter((m) => m.writes);
    const when = writers.find((m) => m.op.fail !== 'none')?.op.fail;
    if (when === undefined || when === 'none') return;
    const armed = `${locate(Q, k).dataKey} ${encoded(model.get(k))}`;
    engine.armed.set(armed, when);
    for (const m of group.members) {
      m.fails = true;
      m.armed = armed;
    }
    if (when === 'before') {
      if (group.before === undefined) model.delete(k);
      else model.set(k, group.before);
      seen.get(k)?.push(encoded(model.get(k)));
    }
  }

  /** The change `op` makes to a stored state (and a merge's incoming state, built once here). */
  function changeFn(op: Extract<WriteOp, { kind: 'update' | 'merge' }>) {
    const nowMs = NOW_MS + serial++;
    if (op.kind === 'merge') {
      const id = `${op.key}/${op.actor}`;
      const before = remote.get(id) ?? EMPTY_STATE;
      const theirs = applyWrite(before, {
        actor: op.actor,
        context: contextOf(before),
        value: utf8(JSON.stringify(`${op.actor} ${nowMs}`)),
        nowMs,
        vvEntriesMax: 64,
      });
      remote.set(id, theirs);
      return { theirs, apply: (stored: KeyState) => mergeStates(stored, theirs) };
    }
    const value = op.value === null ? undefined : utf8(JSON.stringify(`${op.value} ${nowMs}`));
    const apply = (stored: KeyState) =>
      applyWrite(stored, {
        actor: 'n1',
        context: op.blind ? EMPTY_CONTEXT : contextOf(stored),
        value,
        nowMs,
        vvEntriesMax: 64,
      });
    return { theirs: undefined, apply };
  }

  function oldState(k: string): KeyState {
    return applyWrite(EMPTY_STATE, {
      actor: 'old',
      context: EMPTY_CONTEXT,
      value: utf8(`"${k}"`),
      nowMs: 1,
      vvEntriesMax: 64,
    });
  }

  async function runSolo(op: SoloOp): Promise<void> {
    if (op.kind === 'restart') {
      counted();
      exercised.restarts++;
      store = await newStore();
      if (op.awaitFilter) await store.keyFilterBuilt();
    } else if (op.kind === 'dropPartition') {
      await store.dropPartition(op.partition, 2);
      for (const k of KEYS) if (locate(Q, k).partition === op.partition) model.delete(k);
    } else if (op.kind === 'collect') {
      if (await store.collectTombstone(op.key, () => true)) model.delete(op.key);
    } else {
      const dataKey = locate(Q, op.key).dataKey;
      engine.failDeletes.add(dataKey);
      const dropped = store.dropIfUnchanged(op.key, model.get(op.key) ?? oldState(op.key));
      if (model.has(op.key)) await expect(dropped).rejects.toThrow('injected');
      else expect(await dropped).toBe(false);
      engine.failDeletes.delete(dataKey);
    }
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const delays = fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 8 });
const steps = fc.array(step, { minLength: 1, maxLength: 30 });

describe('state cache against a model', () => {
  it('never serves a state older than the engine holds (MemoryEngine, random interleavings)', async () => {
    await fc.assert(
      fc.asyncProperty(budget, filterBudget, delays, steps, (cache, filter, d, s) =>
        check(new MemoryEngine(), { cache, filter }, d, s),
      ),
      { numRuns: 150 },
    );
    expect(exercised.hits).toBeGreaterThan(100);
    expect(exercised.evictions).toBeGreaterThan(100);
    expect(exercised.readsSkipped).toBeGreaterThan(100);
    expect(exercised.restarts).toBeGreaterThan(20);
  });

  it('never serves a state older than the engine holds (LevelEngine, a few cases)', async () => {
    await fc.assert(
      fc.asyncProperty(budget, filterBudget, delays, steps, async (cache, filter, d, s) => {
        const dir = await mkdtemp(join(tmpdir(), 'tessera-cache-'));
        cleanups.push(() => rm(dir, { recursive: true, force: true }));
        await check(new LevelEngine(dir), { cache, filter }, d, s);
      }),
      { numRuns: 4 },
    );
  });
});
