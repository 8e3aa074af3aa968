import { describe, expect, it } from 'vitest';
import { type DepartureLike, departureLines, renderDeparture } from './departure-progress.js';

const retiring: DepartureLike = {
  phase: 'retiring',
  partitionsHeld: 7,
  keysHeld: 410,
  keysHandedOver: 420,
  hintsHeld: 0,
  progress: 0.5,
};

describe('a departure on the terminal', () => {
  it('draws each phase, with what is left to hand over while retiring', () => {
    expect(renderDeparture('n3', retiring, 10)).toBe(
      'n3 retiring [#####-----] 50%  420 keys handed over, 410 keys in 7 partitions left, 0 hints held',
    );
    const first = { ...retiring, keysHeld: null, partitionsHeld: null, progress: 0 };
    expect(renderDeparture('n3', { ...first, keysHandedOver: 0 })).toContain('waiting retireDelayMs');
    expect(renderDeparture('n3', first)).toContain('first pass over what it holds');
    expect(renderDeparture('n3', { ...retiring, phase: 'left' })).toBe(
      'n3 left the cluster: handed everything over (420 keys since its leave committed)',
    );
  });

  it("lists leaving and retiring members from their own status, and the asked node's own departure", async () => {
    const members = [
      { nodeId: 'n0', http: 'h0', status: 'up' },
      { nodeId: 'n1', http: 'h1', status: 'retiring' },
      { nodeId: 'n2', http: 'h2', status: 'leaving' },
    ];
    const fetchAt = async (address: string) => {
      if (address === 'h2') throw new Error('ECONNREFUSED');
      return { departure: retiring };
    };
    const lines = await departureLines({ nodeId: 'n0', members, departure: null }, fetchAt);
    expect(lines).toEqual([
      expect.stringMatching(/^n1 retiring \[/),
      'n2 leaving: its progress is unknown (it does not answer at h2)',
    ]);
    const own = await departureLines(
      { nodeId: 'n1', members, departure: { ...retiring, phase: 'left' } },
      fetchAt,
    );
    expect(own[0]).toMatch(/^n1 left the cluster/);
  });
});
