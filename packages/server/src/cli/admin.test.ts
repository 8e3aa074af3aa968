import { claim, createRing } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { renderStatus, replicaShares } from './admin.js';

describe('admin status', () => {
  it('shows the share of partitions each node replicates, not only those it owns', () => {
    let ring = createRing(16, 'n0');
    for (const node of ['n1', 'n2', 'n3']) ring = claim(ring, node, 3);
    const shares = replicaShares(ring, 3);
    const total = [...shares.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(3);
    for (const share of shares.values()) expect(share).toBeGreaterThan(0.5);
    const text = renderStatus({
      nodeId: 'n0',
      clusterId: 'c',
      n: 3,
      r: 2,
      w: 2,
      partitionCount: 16,
      ringVersion: ring.version,
      ring,
      members: ['n0', 'n1', 'n2', 'n3'].map((id) => ({
        nodeId: id,
        http: 'h',
        peer: 'p',
        status: 'up',
        partitions: 4,
      })),
      pending: null,
      transfers: [],
    });
    expect(text).toContain('REPLICA OF');
    expect(text).toMatch(/^n0\s+up\s+4\s+\d+%/m);
  });
});
