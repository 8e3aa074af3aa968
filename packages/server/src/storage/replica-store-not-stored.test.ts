/**
 * `notStored`: a change whose version went out in `beforeWrite` but was not stored here is told so
 * under the key's lock, before the key's next change is applied. The coordinator starts a new
 * incarnation there; if a later change were stamped first, it could take the unstored version's
 * dot and be dropped as that version by the replicas that hold it (an acknowledged write lost).
 */
import { applyWrite, EMPTY_CONTEXT, type KeyState, utf8 } from '@tessera/core';
import { afterEach, describe, expect, it } from 'vitest';
import { failingBatches } from '../../test/failing-engine.js';
import { MemoryEngine } from './memory-engine.js';
import { ReplicaStore } from './replica-store.js';

const write = (stored: KeyState, value: string): KeyState =>
  applyWrite(stored, { actor: 'n1', context: EMPTY_CONTEXT, value: utf8(value), nowMs: 1, vvEntriesMax: 10 });

const memories: MemoryEngine[] = [];
afterEach(async () => {
  for (const m of memories.splice(0)) await m.close();
});

async function store(failures = { left: 0 }): Promise<ReplicaStore> {
  const memory = new MemoryEngine();
  await memory.open();
  memories.push(memory);
  // The next `failures.left` batches fail.
  const engine = failingBatches(memory, () => {
    if (failures.left === 0) return false;
    failures.left--;
    return true;
  });
  return new ReplicaStore(engine, { partitionCount: 8, sync: false });
}

/** An update of `k` to `name` that records when it is applied, sent (then `onSent`) and told not stored. */
function recorded(s: ReplicaStore, events: string[], name: string, onSent?: () => void): Promise<KeyState> {
  return s.update(
    'k',
    (stored) => {
      events.push(`apply ${name}`);
      return write(stored, name);
    },
    {
      beforeWrite: () => {
        events.push(`sent ${name}`);
        onSent?.();
      },
      notStored: (err) => events.push(`not stored ${name}: ${(err as Error).message}`),
    },
  );
}

describe('ReplicaStore notStored', () => {
  it('tells a change whose beforeWrite threw, before the next change of its group is applied', async () => {
    const s = await store();
    const events: string[] = [];
    const change = (name: string, throws = false) =>
      recorded(s, events, name, () => {
        if (throws) throw new Error(`${name} dies mid-write`);
      });
    // Submitted in one turn: one group, written once.
    const results = await Promise.allSettled([change('a', true), change('b')]);
    expect(events).toEqual(['apply a', 'sent a', 'not stored a: a dies mid-write', 'apply b', 'sent b']);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect((await s.read('k'))?.siblings.map((x) => new TextDecoder().decode(x.value))).toEqual(['b']);
  });

  it("tells every change of a group whose write failed, before the key's next change is applied", async () => {
    const s = await store({ left: 1 });
    const events: string[] = [];
    let next: Promise<KeyState> | undefined;
    const change = (name: string, onSent?: () => void): Promise<KeyState> =>
      recorded(s, events, name, onSent);
    // `c` is submitted while the group of `a` and `b` is being applied: it waits for the next write.
    const group = Promise.allSettled([
      change('a'),
      change('b', () => {
        next = change('c');
      }),
    ]);
    const results = await group;
    await next;
    expect(events).toEqual([
      'apply a',
      'sent a',
      'apply b',
      'sent b',
      'not stored a: simulated: the disk refused the write',
      'not stored b: simulated: the disk refused the write',
      'apply c',
      'sent c',
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });

  it('tells no change that was stored, nor one refused before anything was sent', async () => {
    const s = await store();
    const told: string[] = [];
    const refused = s.update(
      'k',
      () => {
        throw new Error('refused');
      },
      { beforeWrite: () => told.push('sent refused'), notStored: () => told.push('not stored refused') },
    );
    const stored = s.update('k', (x) => write(x, 'ok'), { notStored: () => told.push('not stored ok') });
    await expect(refused).rejects.toThrow('refused');
    await stored;
    expect(told).toEqual([]);
  });
});
