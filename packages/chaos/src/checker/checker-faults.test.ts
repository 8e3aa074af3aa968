/**
 * The checker on synthetic histories with deletes, W=1 writes and fault windows: a delete removes
 * exactly the versions its read saw, a W=1 write whose one node was wiped is not a promise, and every
 * violation is charged to the faults that may have caused it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { faultWindow, final, historyOf, type OpFields, timedOp } from '../../test/histories.js';
import type { Completion, HistoryEvent, LwwValue } from '../history.js';
import { check } from './index.js';

const register = (
  i: number,
  f: 'write' | 'delete',
  observed: readonly string[],
  extra: Partial<OpFields> = {},
): OpFields =>
  ({
    kind: 'op',
    process: `p${i % 3}`,
    workload: 'lww',
    f,
    key: 'r',
    value: { id: `w${i}`, ts: i },
    observed,
    ...extra,
  }) as OpFields;

describe('register deletes', () => {
  /**
   * A model register whose reads may be stale: each op saw some of the current versions (`seen`),
   * and replaces (a write) or deletes exactly those; a blind write saw none. Versions it did not
   * see, written concurrently, survive.
   */
  const step = fc.record({
    kind: fc.constantFrom('write', 'delete', 'delete', 'blind'),
    status: fc.constantFrom<Completion>('ok', 'ok', 'ok', 'fail', 'info'),
    seen: fc.array(fc.boolean(), { maxLength: 6 }),
  });
  type Step = { kind: string; status: Completion; seen: boolean[] };
  const model = (steps: Step[]) => {
    let siblings: LwwValue[] = [];
    const ops = steps.map((s, i) => {
      const value: LwwValue = { id: `w${i}`, ts: i };
      const observed = s.kind === 'blind' ? [] : siblings.filter((_, j) => s.seen[j] ?? true);
      if (s.status !== 'fail') {
        const kept = siblings.filter((v) => !observed.includes(v));
        siblings = s.kind === 'delete' ? kept : [...kept, value];
      }
      const f = s.kind === 'delete' ? 'delete' : 'write';
      return {
        op: register(
          i,
          f,
          observed.map((v) => v.id),
        ),
        status: s.status,
      };
    });
    return { events: historyOf(ops), siblings };
  };
  const steps = fc.array(step, { maxLength: 25 });

  it('accepts every final state the model allows, stale deletes included', () => {
    fc.assert(
      fc.property(steps, (list) => {
        const { events, siblings } = model(list);
        const report = check([...events, final('lww', 'r', siblings)]);
        expect(report.lww.lost).toEqual([]);
        expect(report.lww.resurrected).toEqual([]);
        expect(report.valid).toBe(true);
      }),
    );
  });

  it('catches a version an acknowledged delete saw coming back, and names the delete', () => {
    fc.assert(
      fc.property(steps, (list) => {
        const { events, siblings } = model(list);
        const deletes = events.filter(
          (e) => e.kind === 'op' && e.type === 'ok' && e.workload === 'lww' && e.f === 'delete',
        );
        const victim = deletes.flatMap((e) =>
          e.kind === 'op' && e.workload === 'lww' ? (e.observed ?? []) : [],
        )[0];
        fc.pre(victim !== undefined);
        const report = check([...events, final('lww', 'r', [...siblings, { id: victim, ts: 0 }])]);
        expect(report.lww.resurrected.map((r) => [r.id, r.f])).toEqual([[victim, 'delete']]);
        expect(report.byFault.unattributed.resurrected).toBe(1);
        expect(report.valid).toBe(false);
      }),
    );
  });

  it('keeps a write concurrent with a delete: the delete did not see it', () => {
    const events = historyOf([
      { op: register(0, 'write', []), status: 'ok' },
      { op: register(1, 'write', []), status: 'ok' },
      { op: register(2, 'delete', ['w0']), status: 'ok' },
    ]);
    const w1: LwwValue = { id: 'w1', ts: 1 };
    expect(check([...events, final('lww', 'r', [w1])]).valid).toBe(true);
    const lost = check([...events, final('lww', 'r', [])]);
    expect(lost.lww.lost.map((l) => l.value.id)).toEqual(['w1']);
    const back = check([...events, final('lww', 'r', [w1, { id: 'w0', ts: 0 }])]);
    expect(back.lww.resurrected.map((r) => r.id)).toEqual(['w0']);
  });
});

describe('writes acknowledged with W=1', () => {
  const add = (extra: Partial<OpFields> = {}): OpFields =>
    ({ kind: 'op', process: 'p0', workload: 'set', f: 'add', key: 's', value: 1, ...extra }) as OpFields;

  it('are not promises once their one node was wiped, or when it held the key only as a fallback', () => {
    const weak = timedOp(add({ via: 'n2', w: 1 }), 'ok', 10, 11);
    const lostAfter = (events: HistoryEvent[]) => check([...events, final('set', 's', [[]])]);
    expect(lostAfter([...weak, ...faultWindow(1, 'wipe', 20, 25, ['n2'])]).set.lost).toEqual([]);
    expect(lostAfter([...weak, ...faultWindow(1, 'wipe', 20, 25, ['n2'])]).weakAtRisk).toBe(1);
    expect(lostAfter([...weak, ...faultWindow(1, 'wipe', 20, 25, ['n1'])]).set.lost).toHaveLength(1);
    expect(lostAfter([...faultWindow(1, 'wipe', 0, 5, ['n2']), ...weak]).set.lost).toHaveLength(1);
    expect(lostAfter(weak).set.lost).toHaveLength(1);
    const asFallback = timedOp(add({ via: 'n7', w: 1 }), 'ok', 10, 11);
    expect(lostAfter(asFallback).set.lost).toEqual([]);
    expect(lostAfter(timedOp(add({ via: 'n2' }), 'ok', 10, 11)).set.lost).toHaveLength(1);
  });

  it('a W=1 delete through a node wiped later may be undone', () => {
    const events = [
      ...timedOp(register(0, 'write', []), 'ok', 0, 1),
      ...timedOp(register(1, 'delete', ['w0'], { via: 'n1', w: 1 }), 'ok', 2, 3),
      ...faultWindow(1, 'wipe', 5, 9, ['n1']),
    ];
    const report = check([...events, final('lww', 'r', [{ id: 'w0', ts: 0 }])]);
    expect(report.lww.resurrected).toEqual([]);
    expect(report.valid).toBe(true);
  });
});

describe('charging violations to faults', () => {
  const add = (key: string, value: number): OpFields =>
    ({ kind: 'op', process: `p${value}`, workload: 'set', f: 'add', key, value }) as OpFields;

  it('charges the windows up between the op and the last op on its key, on its replicas or on links', () => {
    const events = [
      ...timedOp(add('s', 1), 'ok', 10, 11),
      ...timedOp(add('s', 2), 'ok', 48, 50),
      ...faultWindow(1, 'slow', 0, 5),
      ...faultWindow(2, 'wipe', 20, 25, ['n1']),
      ...faultWindow(3, 'kill', 26, 30, ['n3']),
      ...faultWindow(4, 'partition', 31, 35),
      ...faultWindow(5, 'wipe', 36, 40, ['n0']),
      ...faultWindow(6, 'clock', 60, 70, ['n0']),
    ];
    const report = check([...events, final('set', 's', [[2]])]);
    expect(report.set.lost.map((l) => l.value)).toEqual([1]);
    const { kinds, unattributed } = report.byFault;
    expect(kinds).toEqual({
      slow: { windows: 1, lost: 0, resurrected: 0 },
      wipe: { windows: 2, lost: 1, resurrected: 0 },
      kill: { windows: 1, lost: 0, resurrected: 0 },
      partition: { windows: 1, lost: 1, resurrected: 0 },
      clock: { windows: 1, lost: 0, resurrected: 0 },
    });
    expect(unattributed).toEqual({ lost: 0, resurrected: 0 });
  });

  it('counts the nodes ops went through as holders, and every node after a membership change', () => {
    const events = [
      ...timedOp(add('s', 1), 'ok', 10, 11),
      ...timedOp({ ...add('s', 2), via: 'n4' } as OpFields, 'ok', 20, 21),
      ...faultWindow(1, 'kill', 12, 15, ['n3']),
      ...faultWindow(2, 'wipe', 16, 19, ['n4']),
    ];
    const charged = (extra: HistoryEvent[]) =>
      check([...events, ...extra, final('set', 's', [[2]])]).byFault.kinds;
    expect(charged([]).kill?.lost).toBe(0);
    expect(charged([]).wipe?.lost).toBe(1);
    expect(charged(faultWindow(3, 'membership', 100, 105)).kill?.lost).toBe(1);
  });

  it('charges a delete undone to the window the delete ran in', () => {
    const events = [
      ...timedOp(register(0, 'write', [], { via: 'n2', w: 1 }), 'ok', 10, 11),
      ...timedOp(register(1, 'delete', ['w0'], { via: 'n0', readVia: 'n2' }), 'ok', 12, 13),
      ...faultWindow(1, 'isolate', 5, 30, ['n2']),
      ...faultWindow(2, 'kill', 40, 45, ['n2']),
    ];
    const report = check([...events, final('lww', 'r', [{ id: 'w0', ts: 0 }])]);
    expect(report.lww.resurrected.map((r) => [r.id, r.f, r.by.process])).toEqual([['w0', 'delete', 'p1']]);
    expect(report.byFault.kinds.isolate).toEqual({ windows: 1, lost: 0, resurrected: 1 });
    expect(report.byFault.kinds.kill).toEqual({ windows: 1, lost: 0, resurrected: 0 });
  });

  it('counts every violation under some fault or as unattributed, and every window once', () => {
    const window = fc.record({
      kind: fc.constantFrom('wipe', 'kill', 'partition', 'isolate'),
      fromMs: fc.integer({ min: 0, max: 100 }),
      lengthMs: fc.integer({ min: 0, max: 30 }),
      nodes: fc.option(fc.subarray(['n0', 'n1', 'n2', 'n3'], { minLength: 1 }), { nil: undefined }),
    });
    const lost = fc.record({
      fromMs: fc.integer({ min: 0, max: 100 }),
      lengthMs: fc.integer({ min: 1, max: 20 }),
    });
    fc.assert(
      fc.property(fc.array(window, { maxLength: 8 }), fc.array(lost, { maxLength: 5 }), (windows, adds) => {
        const events = [
          ...windows.flatMap((w, i) => faultWindow(i, w.kind, w.fromMs, w.fromMs + w.lengthMs, w.nodes)),
          ...adds.flatMap((a, i) => timedOp(add('s', i), 'ok', a.fromMs, a.fromMs + a.lengthMs)),
        ];
        const report = check([...events, final('set', 's', [[]])]);
        const { kinds, unattributed } = report.byFault;
        const charged = new Set(Object.values(kinds).map((t) => t.lost));
        expect(report.set.lost).toHaveLength(adds.length);
        expect(Object.values(kinds).reduce((n, t) => n + t.windows, 0)).toBe(windows.length);
        for (const t of Object.values(kinds)) expect(t.lost).toBeLessThanOrEqual(adds.length);
        if (adds.length > 0) expect(unattributed.lost > 0 || Math.max(0, ...charged) > 0).toBe(true);
        if (windows.length === 0) expect(unattributed.lost).toBe(adds.length);
      }),
    );
  });
});

describe('long runs', () => {
  it('checks a history of more events than a call takes arguments (a 7-minute run has ~190,000)', () => {
    const events: HistoryEvent[] = [];
    for (let i = 0; i < 300_000; i++) events.push({ kind: 'phase', atMs: i, phase: 'chaos' });
    events.push({ kind: 'phase', atMs: 300_000, phase: 'done' });
    expect(check(events).valid).toBe(true);
  });
});
