/**
 * A write's receipt (the `stored` of a PUT or DELETE answer): built from the acks in any order,
 * it lists each node once, replicas first in preference-list order, hints with the replica they
 * are for, and counts the replicas. Through the fan-out (sloppy quorum), it holds exactly the
 * acks received when the quorum was reached: a fallback that took a failed replica's place shows
 * as a hint for it, and acks arriving later are not in a receipt already taken.
 */
import { EMPTY_STATE, type NodeId, TesseraError } from '@tessera/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Deadlines } from '../util/deadlines.js';
import { replicateWrite } from './fan-out.js';
import { ackOf, receiptOf, type WriteAck, WriteAcks } from './receipt.js';
import type { Replicas } from './replicas.js';

const PREFERENCE = ['n0', 'n1', 'n2', 'n3', 'n4'];

describe('receiptOf', () => {
  it('orders acks by the preference list, drops duplicates and counts the replicas', () => {
    const receipt = receiptOf(
      [ackOf('n3', 'n1'), ackOf('n2'), ackOf('n0'), ackOf('n2'), ackOf('n3', 'n1')],
      PREFERENCE,
      3,
      2,
    );
    expect(receipt).toEqual({
      acks: [
        { node: 'n0', as: 'replica' },
        { node: 'n2', as: 'replica' },
        { node: 'n3', as: 'hint', for: 'n1' },
      ],
      replicas: 2,
      n: 3,
      w: 2,
    });
  });

  it('says "1 of 3" for a write only the coordinator stored, and counts hints apart', () => {
    expect(receiptOf([ackOf('n0')], PREFERENCE, 3, 1)).toEqual({
      acks: [{ node: 'n0', as: 'replica' }],
      replicas: 1,
      n: 3,
      w: 1,
    });
    const hinted = receiptOf([ackOf('n4', 'n2'), ackOf('n3', 'n1')], PREFERENCE, 3, 2);
    expect(hinted.replicas).toBe(0);
    expect(hinted.acks.map((a) => a.node)).toEqual(['n3', 'n4']);
  });

  it('lists a node missing from the preference list last, and an ack hinted for itself as a replica', () => {
    expect(ackOf('n1', 'n1')).toEqual({ node: 'n1', as: 'replica' });
    const receipt = receiptOf([ackOf('zz'), ackOf('n1')], PREFERENCE, 3, 2);
    expect(receipt.acks.map((a) => a.node)).toEqual(['n1', 'zz']);
  });

  it('keeps two hints of one node for two replicas apart', () => {
    const receipt = receiptOf([ackOf('n3', 'n1'), ackOf('n3', 'n2')], PREFERENCE, 3, 2);
    expect(receipt.acks).toEqual([
      { node: 'n3', as: 'hint', for: 'n1' },
      { node: 'n3', as: 'hint', for: 'n2' },
    ]);
  });
});

/** The receipt as first written, with the builtins: what the loops must answer exactly. */
function referenceReceipt(acks: readonly WriteAck[], preference: readonly NodeId[]): WriteAck[] {
  const same = (a: WriteAck, b: WriteAck): boolean =>
    a.node === b.node && (a.as === 'replica' || b.as === 'replica' ? a.as === b.as : a.for === b.for);
  const unique: WriteAck[] = [];
  for (const ack of acks) if (!unique.some((u) => same(u, ack))) unique.push(ack);
  const rank = (node: NodeId): number =>
    preference.indexOf(node) < 0 ? preference.length : preference.indexOf(node);
  return unique.sort(
    (a, b) => rank(a.node) - rank(b.node) || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0),
  );
}

describe('receiptOf against the builtins', () => {
  it('lists, orders and counts the acks of any order as the reference does', () => {
    const node = fc.constantFrom('n0', 'n1', 'n2', 'n3', 'n4', 'zz', 'aa');
    const ack = fc.tuple(node, fc.option(node, { nil: undefined })).map(([at, hint]) => ackOf(at, hint));
    fc.assert(
      fc.property(fc.array(ack, { maxLength: 12 }), (acks) => {
        const receipt = receiptOf(acks, PREFERENCE, 3, 2);
        const expected = referenceReceipt(acks, PREFERENCE);
        expect(receipt.acks).toEqual(expected);
        const replicas = new Set(expected.filter((a) => a.as === 'replica').map((a) => a.node)).size;
        expect(receipt.replicas).toBe(replicas);
      }),
    );
  });
});

describe('WriteAcks', () => {
  it('gives a receipt of what arrived so far; later acks do not change it', () => {
    const acks = new WriteAcks(PREFERENCE, 3, 2);
    acks.add('n1');
    acks.add('n0');
    const early = acks.receipt();
    acks.add('n2');
    expect(early.acks.map((a) => a.node)).toEqual(['n0', 'n1']);
    expect(early.replicas).toBe(2);
    expect(acks.receipt().replicas).toBe(3);
  });
});

/** A controllable replica call: resolves or fails when told. */
interface Pending {
  readonly node: NodeId;
  readonly hint: NodeId | undefined;
  resolve(): void;
  reject(err: unknown): void;
}

/** Stand-in for `Replicas`: `down` nodes are known down; every replicate waits to be settled. */
function fakeReplicas(down: readonly NodeId[]) {
  const calls: Pending[] = [];
  const replicas = {
    isDown: (node: NodeId) => down.includes(node),
    replicate: (node: NodeId, _key: string, _s: unknown, _e: unknown, _t: number, hint?: NodeId) =>
      new Promise<void>((resolve, reject) => {
        calls.push({ node, hint, resolve, reject });
      }),
  } as unknown as Replicas;
  return { replicas, calls };
}

function fanOut(replicas: Replicas, w: number, acks: WriteAcks, localWrite: Promise<unknown>) {
  return replicateWrite(replicas, {
    self: 'n0',
    key: 'cart-1',
    preference: PREFERENCE,
    n: 3,
    w,
    state: EMPTY_STATE,
    encoded: new Uint8Array(0),
    deadline: Date.now() + 5_000,
    now: Date.now,
    localWrite,
    deadlines: new Deadlines(),
    acks,
  });
}

const tick = () => new Promise((r) => setTimeout(r, 0));
const call = (calls: Pending[], node: NodeId): Pending => {
  const found = calls.find((c) => c.node === node);
  if (found === undefined) throw new Error(`no call to ${node}`);
  return found;
};

describe('the receipt of a fan-out', () => {
  it('holds the acks in when W was reached: the coordinator and the first replica to answer', async () => {
    const { replicas, calls } = fakeReplicas([]);
    const acks = new WriteAcks(PREFERENCE, 3, 2);
    const done = fanOut(replicas, 2, acks, Promise.resolve());
    await tick();
    call(calls, 'n2').resolve();
    await done;
    const receipt = acks.receipt();
    expect(receipt).toEqual({
      acks: [
        { node: 'n0', as: 'replica' },
        { node: 'n2', as: 'replica' },
      ],
      replicas: 2,
      n: 3,
      w: 2,
    });
    call(calls, 'n1').resolve();
    await tick();
    expect(receipt.replicas).toBe(2);
    expect(acks.receipt().replicas).toBe(3);
  });

  it('shows a fallback that took the place of a failed replica as a hint for it', async () => {
    const { replicas, calls } = fakeReplicas([]);
    const acks = new WriteAcks(PREFERENCE, 3, 3);
    const done = fanOut(replicas, 3, acks, Promise.resolve());
    await tick();
    call(calls, 'n1').reject(new TesseraError('PEER_UNAVAILABLE', 'n1 is unreachable'));
    await tick();
    call(calls, 'n2').resolve();
    const spare = call(calls, 'n3');
    expect(spare.hint).toBe('n1');
    spare.resolve();
    await done;
    expect(acks.receipt()).toEqual({
      acks: [
        { node: 'n0', as: 'replica' },
        { node: 'n2', as: 'replica' },
        { node: 'n3', as: 'hint', for: 'n1' },
      ],
      replicas: 2,
      n: 3,
      w: 3,
    });
  });

  it('sends to a fallback at once for a replica known down, and a w=1 write may answer with the coordinator alone', async () => {
    const { replicas, calls } = fakeReplicas(['n1', 'n2']);
    const acks = new WriteAcks(PREFERENCE, 3, 1);
    await fanOut(replicas, 1, acks, Promise.resolve());
    expect(acks.receipt()).toMatchObject({ acks: [{ node: 'n0', as: 'replica' }], replicas: 1, n: 3, w: 1 });
    expect(calls.map((c) => `${c.node} for ${c.hint}`)).toEqual(['n3 for n1', 'n4 for n2']);
    call(calls, 'n4').resolve();
    await tick();
    expect(acks.receipt().acks).toEqual([
      { node: 'n0', as: 'replica' },
      { node: 'n4', as: 'hint', for: 'n2' },
    ]);
  });

  it("does not count the coordinator's own copy before it is on disk", async () => {
    const { replicas, calls } = fakeReplicas([]);
    const acks = new WriteAcks(PREFERENCE, 3, 2);
    let stored: () => void = () => {};
    const local = new Promise<void>((r) => {
      stored = r;
    });
    const done = fanOut(replicas, 2, acks, local);
    await tick();
    call(calls, 'n1').resolve();
    call(calls, 'n2').resolve();
    await done;
    expect(acks.receipt().acks.map((a) => a.node)).toEqual(['n1', 'n2']);
    stored();
    await tick();
    expect(acks.receipt().acks.map((a) => a.node)).toEqual(['n0', 'n1', 'n2']);
  });
});
