import {
  type ClusterState,
  createRing,
  encodeTxnRecord,
  type StrongRequest,
  txnRecordKey,
} from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { MemoryEngine } from '../storage/memory-engine.js';
import { StrongAcceptor } from './acceptor.js';
import { AcceptorRecords } from './records.js';

const state: ClusterState = {
  clusterId: 'c',
  ring: createRing(4, 'n0'),
  members: [{ nodeId: 'n0', http: 'h:1', peer: 'h:2', status: 'member', incarnation: 0 }],
};

async function acceptor(recovering = false) {
  const engine = new MemoryEngine();
  await engine.open();
  const records = new AcceptorRecords(engine, 4, false);
  return {
    records,
    acceptor: new StrongAcceptor({
      self: 'n0',
      n: 1,
      state: () => state,
      records,
      recovering: () => recovering,
    }),
  };
}

const view = { ringVersion: state.ring.version, replicas: ['n0'] };
const ballot = { round: 1, proposer: 'p' };

function txnRegister(status: 'pending' | 'committed') {
  return {
    version: 1,
    value: encodeTxnRecord({ status, fingerprint: 'f', keys: ['stock/a'], createdAtMs: 0, expiresAtMs: 1 }),
  };
}

describe('the strong acceptor', () => {
  it('forgets a finished transaction record, never a pending one nor a user key', async () => {
    const { acceptor: a, records } = await acceptor();
    const pending = txnRecordKey('t1');
    const done = txnRecordKey('t2');
    await a.handle({ kind: 'accept', key: pending, ballot, register: txnRegister('pending'), view });
    await a.handle({ kind: 'accept', key: done, ballot, register: txnRegister('committed'), view });
    await a.handle({ kind: 'accept', key: 'stock/a', ballot, register: { version: 1, value: '1' }, view });
    const forget = (key: string): StrongRequest => ({ kind: 'forget', key });
    expect(await a.handle(forget(pending))).toEqual({ kind: 'forget', forgotten: false });
    expect(await a.handle(forget('stock/a'))).toEqual({ kind: 'forget', forgotten: false });
    expect(await a.handle(forget(done))).toEqual({ kind: 'forget', forgotten: true });
    expect(await records.read(done)).toBeUndefined();
    expect(await records.read(pending)).toBeDefined();
  });

  it('refuses votes from a proposer with another view of the ring, and every vote while it rebuilds', async () => {
    const { acceptor: a } = await acceptor();
    const stale = { ringVersion: state.ring.version + 1, replicas: ['n0'] };
    expect(await a.handle({ kind: 'prepare', key: 'stock/a', ballot, view: stale })).toMatchObject({
      kind: 'refused',
      reason: 'view',
    });
    const { acceptor: rebuilding } = await acceptor(true);
    expect(await rebuilding.handle({ kind: 'prepare', key: 'stock/a', ballot, view })).toMatchObject({
      kind: 'refused',
      reason: 'recovering',
    });
  });
});
