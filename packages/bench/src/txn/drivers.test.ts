import { createRng } from '@tessera/core';
import type { Pool } from 'undici';
import { describe, expect, it } from 'vitest';
import { TxnWorkload } from './drivers.js';
import { MIX_KINDS } from './model.js';
import { putActionsBody, transactGetBody } from './requests.js';

const unusedPool = {} as unknown as Pool;

function workload(readKeys = 8): TxnWorkload {
  return new TxnWorkload({
    namespace: 'bench',
    prefix: 'x1-',
    readKeys,
    condKeys: 4,
    values: ['"v"'],
    rng: createRng(7),
  });
}

describe('transactions bench operations', () => {
  it('builds the request bodies of the contract', () => {
    expect(JSON.parse(putActionsBody(['bench/a', 'bench/b'], '"v"'))).toEqual({
      actions: [
        { type: 'put', key: 'bench/a', value: 'v' },
        { type: 'put', key: 'bench/b', value: 'v' },
      ],
    });
    expect(JSON.parse(transactGetBody(['bench/a']))).toEqual({ keys: ['bench/a'] });
  });

  it('keeps strong keys in the namespace, plain keys out of it, and fresh keys fresh', () => {
    const w = workload();
    expect(w.readKey(3)).toBe('bench/x1-r3');
    expect(w.condKey(1)).toBe('bench/x1-c1');
    expect(w.plainKey(2)).toBe('x1-p2');
    const fresh = Array.from({ length: 50 }, () => w.nextFreshStrong());
    expect(new Set(fresh).size).toBe(50);
    for (const key of fresh) expect(key.startsWith('bench/')).toBe(true);
  });

  it('picks distinct read keys, all of them when asked for the whole set', () => {
    const w = workload(8);
    for (let i = 0; i < 20; i++) {
      const keys = w.distinctReadKeys(5);
      expect(new Set(keys).size).toBe(5);
    }
    expect(new Set(w.distinctReadKeys(8))).toEqual(
      new Set(Array.from({ length: 8 }, (_, i) => w.readKey(i))),
    );
    expect(() => w.distinctReadKeys(9)).toThrow(RangeError);
  });

  it('draws every kind of the mix, each named as the report expects', () => {
    const driver = workload().mixDriver(unusedPool, MIX_KINDS);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) seen.add(driver.next(0)!.kind);
    expect([...seen].sort()).toEqual([...MIX_KINDS].sort());
    expect(workload().sweepWriteDriver(unusedPool, 16).next(0)!.kind).toBe('transaction 16');
    expect(workload().sweepReadDriver(unusedPool, 4).next(0)!.kind).toBe('transactGet 4');
  });

  it('the load writes each read key, plain read key and conditional key once, then runs dry', () => {
    const driver = workload(3).loadDriver(unusedPool);
    const kinds: string[] = [];
    for (let op = driver.next(0); op !== undefined; op = driver.next(0)) kinds.push(op.kind);
    expect(kinds).toEqual([
      ...Array(3).fill('strong put'),
      ...Array(3).fill('plain put'),
      ...Array(4).fill('strong put'),
    ]);
  });
});
