import { type Cart, cart } from '@tessera/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { final, historyOf } from '../../test/histories.js';
import type { Completion, HistoryEvent, LwwValue } from '../history.js';
import { check } from './index.js';

const status = fc.constantFrom<Completion | 'open'>('ok', 'ok', 'ok', 'fail', 'info', 'open');

describe('the set checker (Jepsen set test)', () => {
  const adds = fc.array(fc.record({ key: fc.constantFrom('s0', 's1'), status, kept: fc.boolean() }), {
    minLength: 1,
    maxLength: 40,
  });

  const build = (list: { key: string; status: Completion | 'open'; kept: boolean }[]) => {
    const ops = list.map((a, i) => ({
      op: { kind: 'op', process: `p${i % 3}`, workload: 'set', f: 'add', key: a.key, value: i } as const,
      status: a.status,
    }));
    // The final set: every acknowledged add, and the unknown ones that happened to be kept.
    const finals = ['s0', 's1'].map((key) =>
      final('set', key, [
        list.flatMap((a, i) => (a.key === key && (a.status === 'ok' || a.kept) ? [i] : [])),
      ]),
    );
    return { events: [...historyOf(ops), ...finals], list };
  };

  it('passes a history that kept every acknowledged add', () => {
    fc.assert(
      fc.property(adds, (list) => {
        const report = check(build(list).events);
        expect(report.set.lost).toEqual([]);
        expect(report.valid).toBe(true);
        expect(report.set.acknowledged).toBe(list.filter((a) => a.status === 'ok').length);
      }),
    );
  });

  it('catches exactly the acknowledged add a history lost', () => {
    fc.assert(
      fc.property(adds, fc.nat(), (list, pick) => {
        const acked = list.flatMap((a, i) => (a.status === 'ok' ? [i] : []));
        fc.pre(acked.length > 0);
        const victim = acked[pick % acked.length]!;
        const { events } = build(list);
        const lossy = events.map((e) =>
          e.kind === 'final'
            ? {
                ...e,
                replicas: { n0: [((e.replicas.n0?.[0] ?? []) as number[]).filter((v) => v !== victim)] },
              }
            : e,
        );
        const report = check(lossy);
        expect(report.valid).toBe(false);
        expect(report.set.lost.map((l) => l.value)).toEqual([victim]);
      }),
    );
  });

  it('catches an element nobody added', () => {
    const events = [...historyOf([]), final('set', 's0', [[1, 2]])];
    expect(check(events).set.phantom).toEqual([
      { key: 's0', value: 1 },
      { key: 's0', value: 2 },
    ]);
  });

  it('counts an add whose outcome is unknown as kept or not, never as lost', () => {
    const events = historyOf([
      { op: { kind: 'op', process: 'p', workload: 'set', f: 'add', key: 's0', value: 7 }, status: 'open' },
    ]);
    const report = check([...events, final('set', 's0', [[]])]);
    expect(report.valid).toBe(true);
    expect(report.set.indeterminate).toBe(1);
  });
});

describe('the cart checker', () => {
  const at = () => 1;
  const cartWith = (items: string[], removedTags: string[] = []): Cart => {
    let c: Cart = cart.empty();
    for (const item of items) c = cart.add(item, 1, { tag: `t-${item}`, now: at })(c);
    for (const tag of removedTags) c = { ...c, removed: { ...c.removed, [tag]: 1 } };
    return c;
  };
  const add = (item: string, s: Completion | 'open') => ({
    op: { kind: 'op', process: 'p0', workload: 'cart', f: 'add', key: 'c', value: item } as const,
    status: s,
  });
  const remove = (
    item: string,
    s: Completion | 'open',
    seen?: { last: boolean; inSomeAttempt: boolean },
  ) => ({
    op: {
      kind: 'op',
      process: 'p1',
      workload: 'cart',
      f: 'remove',
      key: 'c',
      value: item,
      ...(seen === undefined ? {} : { seen }),
    } as const,
    status: s,
  });

  it('passes: removed items gone, the rest kept', () => {
    const events = historyOf([
      add('a', 'ok'),
      add('b', 'ok'),
      remove('a', 'ok', { last: true, inSomeAttempt: true }),
    ]);
    const report = check([...events, final('cart', 'c', [cartWith(['b'])])]);
    expect(report.valid).toBe(true);
    expect(report.cart.addsAcknowledged).toBe(2);
  });

  it('catches a removed item that came back', () => {
    const events = historyOf([add('a', 'ok'), remove('a', 'ok', { last: true, inSomeAttempt: true })]);
    const report = check([...events, final('cart', 'c', [cartWith(['a'])])]);
    expect(report.valid).toBe(false);
    expect(report.cart.resurrected.map((r) => r.value)).toEqual(['a']);
  });

  it('catches an acknowledged add lost though no remove saw it', () => {
    const events = historyOf([
      add('a', 'ok'),
      add('b', 'ok'),
      remove('b', 'ok', { last: false, inSomeAttempt: false }),
    ]);
    const report = check([...events, final('cart', 'c', [cartWith(['a'])])]);
    expect(report.cart.lost.map((r) => r.value)).toEqual(['b']);
    expect(report.valid).toBe(false);
  });

  it('allows an item gone after a remove whose outcome is unknown', () => {
    const events = historyOf([add('a', 'ok'), remove('a', 'info', { last: true, inSomeAttempt: true })]);
    expect(check([...events, final('cart', 'c', [cartWith([])])]).valid).toBe(true);
    expect(check([...events, final('cart', 'c', [cartWith(['a'])])]).valid).toBe(true);
  });

  it('merges sibling carts as the resolver does before judging', () => {
    const events = historyOf([
      add('a', 'ok'),
      add('b', 'ok'),
      remove('a', 'ok', { last: true, inSomeAttempt: true }),
    ]);
    const siblings = [cartWith(['a', 'b']), cartWith([], ['t-a'])];
    expect(check([...events, final('cart', 'c', siblings)]).valid).toBe(true);
  });
});

describe('the LWW register checker', () => {
  /**
   * A model register run: each op reads the current siblings and replaces them (a write) or
   * deletes them; a concurrent blind write adds a sibling. The final siblings are what the model
   * holds; the checker must accept that and reject every corruption of it.
   */
  const step = fc.record({
    kind: fc.constantFrom('write', 'write', 'write', 'delete', 'blind'),
    status: fc.constantFrom<Completion>('ok', 'ok', 'ok', 'fail', 'info'),
    ts: fc.integer({ min: 0, max: 1000 }),
  });

  const model = (steps: { kind: string; status: Completion; ts: number }[]) => {
    let siblings: LwwValue[] = [];
    const ops = steps.map((s, i) => {
      const value: LwwValue = { id: `w${i}`, ts: s.ts };
      const observed = s.kind === 'blind' ? [] : siblings.map((v) => v.id);
      // ok: applied; info: applied here (the model picks one of the allowed outcomes); fail: not applied.
      if (s.status !== 'fail') {
        const kept = s.kind === 'blind' ? siblings : [];
        siblings = s.kind === 'delete' ? kept : [...kept, value];
      }
      const f = s.kind === 'delete' ? 'delete' : 'write';
      return {
        op: { kind: 'op', process: `p${i % 2}`, workload: 'lww', f, key: 'r', value, observed } as const,
        status: s.status,
      };
    });
    return { events: historyOf(ops), siblings };
  };

  it('accepts every final state the model allows, and counts overwritten writes as allowed', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const { events, siblings } = model(steps);
        const report = check([...events, final('lww', 'r', siblings)]);
        expect(report.lww.lost).toEqual([]);
        expect(report.lww.resurrected).toEqual([]);
        expect(report.valid).toBe(true);
      }),
    );
  });

  it('catches a replaced version that came back', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const { events, siblings } = model(steps);
        const replaced = events.find(
          (e) => e.kind === 'op' && e.type === 'ok' && e.workload === 'lww' && (e.observed?.length ?? 0) > 0,
        );
        fc.pre(replaced !== undefined && replaced.kind === 'op' && replaced.workload === 'lww');
        const id = replaced.observed?.[0] ?? '';
        const report = check([...events, final('lww', 'r', [...siblings, { id, ts: 0 }])]);
        expect(report.lww.resurrected.map((r) => r.id)).toContain(id);
        expect(report.valid).toBe(false);
      }),
    );
  });

  it('catches an acknowledged write that vanished unreplaced, and a value nobody wrote', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const { events, siblings } = model(steps);
        const okLive = siblings.filter((v) =>
          events.some(
            (e) => e.kind === 'op' && e.type === 'ok' && e.workload === 'lww' && e.value.id === v.id,
          ),
        );
        fc.pre(okLive.length > 0);
        const victim = okLive[0]!;
        const corrupted = [...siblings.filter((v) => v.id !== victim.id), { id: 'never-written', ts: 5 }];
        const report = check([...events, final('lww', 'r', corrupted)]);
        expect(report.lww.lost.map((l) => l.value.id)).toEqual([victim.id]);
        expect(report.lww.phantom).toEqual([{ key: 'r', id: 'never-written' }]);
      }),
    );
  });
});

describe('convergence and pairing', () => {
  it('fails a run whose replicas disagree, or whose ring did not settle', () => {
    expect(check([final('set', 's', [[]], false)]).convergence.notConverged).toEqual(['s']);
    expect(check([final('set', 's', [[]], false)]).valid).toBe(false);
    const unsettled: HistoryEvent = { kind: 'phase', atMs: 5, phase: 'unsettled' };
    expect(check([unsettled]).valid).toBe(false);
    expect(check([]).valid).toBe(true);
  });

  it('pairs completions with their invokes per process; an open op is info', () => {
    const events = historyOf([
      { op: { kind: 'op', process: 'a', workload: 'set', f: 'add', key: 'k', value: 1 }, status: 'ok' },
      { op: { kind: 'op', process: 'b', workload: 'set', f: 'add', key: 'k', value: 2 }, status: 'open' },
      { op: { kind: 'op', process: 'a', workload: 'set', f: 'add', key: 'k', value: 3 }, status: 'fail' },
    ]);
    expect(check(events).ops).toEqual({ total: 3, ok: 1, fail: 1, info: 1 });
  });
});
