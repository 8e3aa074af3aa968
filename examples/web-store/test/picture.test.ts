/**
 * The cluster picture (issue 17, problem 1): the health line, the cards' links and the drawing
 * come from one set of links, derived from what the nodes report, so they cannot disagree, and a
 * failure detector that lags behind a split or a stop is shown as lagging, never believed.
 */
import { describe, expect, it } from 'vitest';
import { picture } from '../src/server/cluster/picture.js';
import type { NodeReport } from '../src/server/cluster/probe.js';

const IDS = ['n0', 'n1', 'n2'];

function report(id: string, over: Partial<NodeReport> = {}): NodeReport {
  return {
    id,
    url: `http://127.0.0.1:700${id.slice(1)}`,
    managed: true,
    running: true,
    reachable: true,
    pid: 1000 + Number(id.slice(1)),
    thinks: new Map(IDS.filter((o) => o !== id).map((o) => [o, 'up' as const])),
    blocks: [],
    partitions: 64,
    quorum: { n: 3, r: 2, w: 2 },
    ...over,
  };
}

const thinks = (id: string, down: string[]): ReadonlyMap<string, 'up' | 'down'> =>
  new Map(IDS.filter((o) => o !== id).map((o) => [o, down.includes(o) ? 'down' : 'up']));

/** Every card's link to a peer is the drawing's link between them. */
function expectConsistent(p: ReturnType<typeof picture>): void {
  for (const n of p.nodes) {
    for (const peer of n.peers) {
      const link = p.links.find((l) => [l.a, l.b].sort().join() === [n.id, peer.id].sort().join())!;
      expect(peer.link).toBe(link.state);
      expect(peer.lagging).toBe(link.lagging.includes(n.id));
    }
  }
}

describe('the cluster picture', () => {
  it('is ok only when every node is up and every detector agrees', () => {
    const p = picture(IDS.map((id) => report(id)));
    expect(p.health).toEqual({ kind: 'ok', text: 'every node reaches every other', catchingUp: null });
    expect(p.links.map((l) => l.state)).toEqual(['ok', 'ok', 'ok']);
    expect(p.split).toBeNull();
    expectConsistent(p);
  });

  it('does not call a cluster with a stopped node healthy, and shows no pid for it', () => {
    const p = picture([
      report('n0'),
      report('n1', { running: false, reachable: false, pid: 4242 }),
      report('n2'),
    ]);
    expect(p.health.kind).toBe('down');
    expect(p.health.text).toBe('n1 stopped · n0 and n2 carry on');
    expect(p.nodes[1]).toMatchObject({ state: 'stopped', pid: null });
    expect(p.links.filter((l) => l.state === 'down').map((l) => `${l.a}-${l.b}`)).toEqual(['n0-n1', 'n1-n2']);
    // n0 and n2 have not noticed yet: they still count n1 up; that is lagging, not "up".
    expect(p.nodes[0]!.peers.find((x) => x.id === 'n1')).toEqual({
      id: 'n1',
      link: 'down',
      thinks: 'up',
      lagging: true,
    });
    expect(p.health.catchingUp).toBe('n0 still counts n1 as up; n2 still counts n1 as up');
    expectConsistent(p);
  });

  it('shows a detector that still counts a peer down on a fresh start as doubt, not as ok', () => {
    const p = picture([report('n0'), report('n1', { thinks: thinks('n1', ['n2']) }), report('n2')]);
    expect(p.health.kind).toBe('doubt');
    expect(p.health.text).toContain('n1–n2');
    expect(p.links.find((l) => l.a === 'n1' && l.b === 'n2')?.state).toBe('doubt');
    expectConsistent(p);
  });

  it('shows a split at once, from the blocks, while the detectors still catch up', () => {
    const p = picture([
      report('n0', { blocks: ['n1', 'n2'] }),
      report('n1', { blocks: ['n0'], thinks: thinks('n1', ['n0']) }),
      report('n2', { blocks: ['n0'] }),
    ]);
    expect(p.split).toEqual([['n0'], ['n1', 'n2']]);
    expect(p.health.kind).toBe('split');
    expect(p.health.text).toBe('split: n0 | n1 n2');
    const n0 = p.nodes[0]!;
    expect(n0.peers.map((x) => [x.id, x.link, x.lagging])).toEqual([
      ['n1', 'blocked', true],
      ['n2', 'blocked', true],
    ]);
    expect(p.nodes[1]!.peers.find((x) => x.id === 'n0')?.lagging).toBe(false);
    expect(p.health.catchingUp).toBe('n0 still counts n1 and n2 as up; n2 still counts n0 as up');
    expectConsistent(p);
  });

  it('keeps a stopped node of a split on its side, and names both problems', () => {
    const p = picture([
      report('n0', { running: false, reachable: false, blocks: null }),
      report('n1', { blocks: ['n0'], thinks: thinks('n1', ['n0']) }),
      report('n2', { blocks: ['n0'], thinks: thinks('n2', ['n0']) }),
    ]);
    expect(p.health).toEqual({ kind: 'split', text: 'split: n0 | n1 n2 · n0 stopped', catchingUp: null });
    expectConsistent(p);
  });
});
