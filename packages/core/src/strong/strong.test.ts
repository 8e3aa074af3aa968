import { describe, expect, it } from 'vitest';
import { TesseraError } from '../errors.js';
import { accept, currentRegister, mergeRecords, prepare } from './acceptor.js';
import { ballotAbove, compareBallots } from './ballot.js';
import { conditionHolds } from './conditions.js';
import { decodeStrongReply, decodeStrongRequest, encodeStrong } from './messages.js';
import { applyOp, EMPTY_REGISTER, OPS_REMEMBERED, rollForward, versionOfOp } from './register.js';

const b = (round: number, proposer = 'a') => ({ round, proposer });

describe('the acceptor', () => {
  it('promises only ballots above everything it promised or accepted', () => {
    const first = prepare({}, b(2));
    expect(first.reply).toEqual({ ok: true });
    expect(prepare(first.record, b(1)).reply).toEqual({ ok: false, promised: b(2) });
    expect(prepare(first.record, b(2)).reply.ok).toBe(false);
    expect(prepare(first.record, b(2, 'z')).reply.ok).toBe(true);
  });

  it('accepts at the promised ballot or above, never below, and answers the accepted register to a later prepare', () => {
    const promised = prepare({}, b(3)).record;
    expect(accept(promised, b(2), { version: 1, value: '1' }).reply.ok).toBe(false);
    const taken = accept(promised, b(3), { version: 1, value: '1' });
    expect(taken.reply.ok).toBe(true);
    expect(accept(taken.record, b(3), { version: 1, value: '1' }).reply.ok).toBe(true);
    const later = prepare(taken.record, b(4));
    expect(later.reply).toEqual({
      ok: true,
      accepted: { ballot: b(3), register: { version: 1, value: '1' } },
    });
  });

  it('a proposer starts from the register of the highest accepted ballot among its promises', () => {
    const replies = [
      { ok: true as const, accepted: { ballot: b(2), register: { version: 2, value: 'x' } } },
      { ok: true as const },
      { ok: true as const, accepted: { ballot: b(5), register: { version: 3, value: 'y' } } },
    ];
    expect(currentRegister(replies, EMPTY_REGISTER)).toEqual({ version: 3, value: 'y' });
    expect(currentRegister([{ ok: true }], EMPTY_REGISTER)).toBe(EMPTY_REGISTER);
  });

  it('merging records keeps the higher promise and the register of the higher ballot, in any order', () => {
    const x = { promised: b(7), accepted: { ballot: b(4), register: { version: 4 } } };
    const y = { promised: b(5), accepted: { ballot: b(5), register: { version: 5 } } };
    expect(mergeRecords(x, y)).toEqual({ promised: b(7), accepted: y.accepted });
    expect(mergeRecords(y, x)).toEqual(mergeRecords(x, y));
    expect(compareBallots(ballotAbove([b(9), undefined], 'q'), b(9, 'zzz'))).toBeGreaterThan(0);
  });
});

describe('registers', () => {
  it('a write remembers its id and the version it made, for the last writes only', () => {
    let r = applyOp(EMPTY_REGISTER, 'put', '"a"', 'w1');
    expect(versionOfOp(r, 'w1')).toBe(1);
    for (let i = 2; i <= OPS_REMEMBERED + 1; i++) r = applyOp(r, 'put', `"${i}"`, `w${i}`);
    expect(versionOfOp(r, `w${OPS_REMEMBERED + 1}`)).toBe(OPS_REMEMBERED + 1);
    expect(versionOfOp(r, 'w2')).toBe(2);
    expect(versionOfOp(r, 'w1')).toBeUndefined();
  });

  it('a delete of a key with no value changes nothing; a check never does', () => {
    expect(applyOp(EMPTY_REGISTER, 'delete', undefined, 'd')).toEqual(EMPTY_REGISTER);
    const r = applyOp(EMPTY_REGISTER, 'put', '1', 'p');
    expect(applyOp(r, 'check')).toEqual(r);
    expect(applyOp(r, 'delete', undefined, 'd')).toEqual({ version: 2, ops: ['p', 'd'] });
  });

  it('rolling an intent forward applies it under the transaction id', () => {
    const held = {
      version: 3,
      value: '1',
      intent: { txn: 't1', op: 'put' as const, value: '2', expiresAtMs: 9 },
    };
    expect(rollForward(held)).toEqual({ version: 4, value: '2', ops: ['t1'] });
  });

  it('conditions: a version, absent, present', () => {
    const r = { version: 2, value: '5' };
    expect(conditionHolds(r, { ifVersion: '2' })).toBe(true);
    expect(conditionHolds(r, { ifVersion: '1' })).toBe(false);
    expect(conditionHolds(r, { ifAbsent: true })).toBe(false);
    expect(conditionHolds({ version: 3 }, { ifAbsent: true })).toBe(true);
    expect(conditionHolds({ version: 3 }, { ifExists: true })).toBe(false);
  });
});

describe('strong peer messages', () => {
  it('round-trip through the codec', () => {
    const request = {
      kind: 'accept' as const,
      key: 'stock/x',
      ballot: b(3),
      register: { version: 2, value: '{"a":1}', ops: ['w'] },
      view: { ringVersion: 4, replicas: ['n0', 'n1', 'n2'] },
    };
    expect(decodeStrongRequest(encodeStrong(request))).toEqual(request);
    const reply = { kind: 'refused' as const, reason: 'moving' as const, ringVersion: 4 };
    expect(decodeStrongReply(encodeStrong(reply))).toEqual(reply);
  });

  it('refuse anything malformed with BAD_REQUEST', () => {
    const bad = [
      '{"kind":"prepare","key":"k","ballot":{"round":-1,"proposer":"a"},"view":{"ringVersion":1,"replicas":[]}}',
      '{"kind":"accept","key":"k","ballot":{"round":1,"proposer":"a"},"register":{"version":"1"},"view":{"ringVersion":1,"replicas":[]}}',
      '{"kind":"nope"}',
      'not json',
      '{"kind":"accept","key":"k","ballot":{"round":1,"proposer":"a"},"register":{"version":1,"intent":{"txn":"t","op":"drop","expiresAtMs":1}},"view":{"ringVersion":1,"replicas":[]}}',
    ];
    for (const text of bad) {
      expect(() => decodeStrongRequest(new TextEncoder().encode(text)), text).toThrow(TesseraError);
    }
  });
});
