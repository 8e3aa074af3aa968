import { type ClusterState, claim, createRing, findMember, type Ring, release } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { ClusterView } from '../cluster/cluster-view.js';
import { silentLogger } from '../logger.js';
import { MemoryEngine } from '../storage/memory-engine.js';
import { Departure, departurePhase, leftClusterError } from './departure.js';

const N = 2;
const NODES = ['a', 'b', 'c'];

function ringOf(nodes: readonly string[]): Ring {
  let ring = createRing(8, nodes[0]!);
  for (const node of nodes.slice(1)) ring = claim(ring, node, N);
  return ring;
}

/** `c` asked to leave; `committed`: its leave is in the ring (and the history). */
function leaving(committed: boolean): ClusterState {
  const before = ringOf(NODES);
  const ring = committed ? release(before, 'c', N) : before;
  return {
    clusterId: 'k',
    ring,
    members: NODES.map((nodeId) => ({
      nodeId,
      http: `${nodeId}:7000`,
      peer: `${nodeId}:8000`,
      status: nodeId === 'c' ? ('leaving' as const) : ('member' as const),
      incarnation: 1,
    })),
    ...(committed
      ? { history: [{ ringVersion: ring.version, kind: 'leave' as const, nodeId: 'c', atMs: 0 }] }
      : {}),
  };
}

async function setup(state: ClusterState) {
  const engine = new MemoryEngine();
  await engine.open();
  const view = new ClusterView(engine);
  await view.load('c');
  await view.set(state);
  const retirer = { retiring: 0, keysHeld: 0, keysHandedOver: 40, clean: 0 };
  const hints = { held: 0 };
  let spread = 0;
  const departure = new Departure({
    self: 'c',
    view,
    retirer: {
      get retiring() {
        return retirer.retiring;
      },
      get keysHeld() {
        return retirer.keysHeld;
      },
      get keysHandedOver() {
        return retirer.keysHandedOver;
      },
      cleanPassesOver: (version) => (version === state.ring.version ? retirer.clean : 0),
    },
    hintsHeld: () => hints.held,
    log: silentLogger(),
    changed: () => spread++,
  });
  return { view, retirer, hints, departure, spreads: () => spread };
}

describe('a leaving node on its way out', () => {
  it('is leaving until its leave commits, then retiring, and serves clients meanwhile', () => {
    expect(departurePhase(leaving(false), 'c')).toBe('leaving');
    expect(departurePhase(leaving(true), 'c')).toBe('retiring');
    expect(departurePhase(leaving(true), 'a')).toBeUndefined();
    expect(leftClusterError(leaving(true), 'c')).toBeUndefined();
  });

  it('marks itself removed only after two clean passes with no hints held, then answers NODE_LEFT', async () => {
    const { view, retirer, hints, departure, spreads } = await setup(leaving(true));
    retirer.clean = 1;
    await departure.tick();
    expect(findMember(view.require(), 'c')?.status).toBe('leaving');

    retirer.clean = 2;
    hints.held = 1;
    await departure.tick();
    expect(findMember(view.require(), 'c')?.status).toBe('leaving');
    expect(departure.view()).toMatchObject({ phase: 'retiring', hintsHeld: 1, progress: 1 });

    hints.held = 0;
    await departure.tick();
    const me = findMember(view.require(), 'c')!;
    expect(me).toMatchObject({ status: 'removed', incarnation: 2 });
    expect(spreads()).toBe(1);
    expect(departure.view()?.phase).toBe('left');

    const error = leftClusterError(view.require(), 'c');
    expect(error?.code).toBe('NODE_LEFT');
    expect(error?.details).toEqual({ members: ['a:7000', 'b:7000'] });
    expect(error?.message).toContain('Send requests to a member: a:7000, b:7000');
  });

  it('does not leave before its leave committed, and a node removed by an operator did not leave', async () => {
    const { view, retirer, departure } = await setup(leaving(false));
    retirer.clean = 5;
    await departure.tick();
    expect(findMember(view.require(), 'c')?.status).toBe('leaving');

    const removed = leaving(true);
    const byOperator: ClusterState = {
      ...removed,
      members: removed.members.map((m) => (m.nodeId === 'c' ? { ...m, status: 'removed' as const } : m)),
      history: [{ ringVersion: removed.ring.version, kind: 'remove', nodeId: 'c', atMs: 0 }],
    };
    expect(departurePhase(byOperator, 'c')).toBeUndefined();
    expect(leftClusterError(byOperator, 'c')).toBeUndefined();
  });

  it('shows progress as the keys handed over among those it had', async () => {
    const { retirer, departure } = await setup(leaving(true));
    retirer.keysHeld = 60;
    retirer.retiring = 3;
    expect(departure.view()).toEqual({
      phase: 'retiring',
      partitionsHeld: 3,
      keysHeld: 60,
      keysHandedOver: 40,
      hintsHeld: 0,
      progress: 0.4,
    });
  });
});
