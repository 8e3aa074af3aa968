import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ClusterSettings,
  DURABILITIES,
  mergeSettings,
  sameSettings,
  settingsMismatch,
  weakerDurability,
} from './cluster-settings.js';

const CLUSTER: ClusterSettings = { n: 3, r: 2, w: 2, durabilityFloor: 'fsync-one' };
const Q = 64;

describe('settingsMismatch', () => {
  it('finds nothing when the node gives the cluster’s values, or leaves Q and the floor out', () => {
    expect(settingsMismatch(CLUSTER, Q, { n: 3, r: 2, w: 2 })).toBeUndefined();
    expect(
      settingsMismatch(CLUSTER, Q, {
        n: 3,
        r: 2,
        w: 2,
        partitions: 64,
        durability: 'fsync-one',
        durabilityFloor: 'fsync-one',
      }),
    ).toBeUndefined();
  });

  it('names both values of every setting that differs', () => {
    expect(settingsMismatch(CLUSTER, Q, { n: 5, r: 2, w: 1 })).toBe(
      'n=3 in the cluster, n=5 on this node; w=2 in the cluster, w=1 on this node',
    );
    expect(settingsMismatch(CLUSTER, Q, { n: 3, r: 2, w: 2, partitions: 128 })).toBe(
      'partitions=64 in the cluster, partitions=128 on this node',
    );
    expect(settingsMismatch(CLUSTER, Q, { n: 3, r: 2, w: 2, durabilityFloor: 'fsync' })).toBe(
      'durabilityFloor=fsync-one in the cluster, durabilityFloor=fsync on this node',
    );
  });

  it('refuses a durability weaker than the floor, and only a weaker one', () => {
    const at = (durability: (typeof DURABILITIES)[number]) =>
      settingsMismatch(CLUSTER, Q, { n: 3, r: 2, w: 2, durability });
    expect(at('process')).toBe(
      'durabilityFloor=fsync-one in the cluster, durability=process on this node (weaker)',
    );
    expect(at('fsync-one')).toBeUndefined();
    expect(at('fsync')).toBeUndefined();
  });

  it('reads a cluster without a recorded floor as floor "process"', () => {
    const old = { n: 3, r: 2, w: 2 };
    expect(settingsMismatch(old, Q, { ...old, durability: 'process' })).toBeUndefined();
    expect(settingsMismatch(old, Q, { ...old, durabilityFloor: 'fsync' })).toBe(
      'durabilityFloor=process in the cluster, durabilityFloor=fsync on this node',
    );
  });
});

describe('weakerDurability', () => {
  it('orders process < fsync-one < fsync', () => {
    expect(weakerDurability('process', 'fsync-one')).toBe(true);
    expect(weakerDurability('fsync-one', 'fsync')).toBe(true);
    expect(weakerDurability('fsync', 'process')).toBe(false);
    expect(weakerDurability('fsync', 'fsync')).toBe(false);
  });
});

describe('mergeSettings', () => {
  const settings = fc.record(
    {
      n: fc.integer({ min: 1, max: 16 }),
      r: fc.integer({ min: 1, max: 16 }),
      w: fc.integer({ min: 1, max: 16 }),
      durabilityFloor: fc.constantFrom(...DURABILITIES),
    },
    { requiredKeys: ['n', 'r', 'w'] },
  );

  it('agrees whatever the order: commutative, associative, idempotent', () => {
    fc.assert(
      fc.property(settings, settings, settings, (a, b, c) => {
        expect(mergeSettings(a, b)).toEqual(mergeSettings(b, a));
        expect(mergeSettings(mergeSettings(a, b), c)).toEqual(mergeSettings(a, mergeSettings(b, c)));
        expect(mergeSettings(a, a)).toEqual(a);
      }),
    );
  });

  it('keeps the floor a node of an older version dropped', () => {
    const dropped = { n: 3, r: 2, w: 2 };
    expect(mergeSettings(dropped, CLUSTER)).toEqual(CLUSTER);
    expect(mergeSettings(CLUSTER, dropped)).toEqual(CLUSTER);
  });
});

describe('sameSettings', () => {
  it('tells apart settings that differ in any field, the floor included', () => {
    expect(sameSettings(CLUSTER, { ...CLUSTER })).toBe(true);
    expect(sameSettings(undefined, undefined)).toBe(true);
    expect(sameSettings(CLUSTER, undefined)).toBe(false);
    expect(sameSettings(CLUSTER, { n: 3, r: 2, w: 2 })).toBe(false);
    expect(sameSettings(CLUSTER, { ...CLUSTER, w: 1 })).toBe(false);
  });
});
