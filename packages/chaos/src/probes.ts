/**
 * Ops the nemesis makes itself around some faults, to put a node in the exact spot a fault is
 * about: a blind add through a node before it is wiped and another after, a write that is in
 * flight when the node crashes, a key deleted everywhere before its replica is cut off. They go
 * through clients bound to one node each and are recorded in the history under the `nemesis`
 * process (one op at a time, like a worker), so the checker holds them to the same promises.
 */
import { CHAOS_NODE_SETTINGS, type ChaosCluster } from './cluster.js';
import type { History } from './history.js';
import { PinnedClients } from './workloads/pinned.js';
import { blindAdd } from './workloads/set.js';
import type { Recorder, Target } from './workloads/worker.js';

const KEY_ATTEMPTS = 64;
const POLL_MS = 100;
/** How long a probe waits for its write to reach every replica before going on without it. */
const HELD_TIMEOUT_MS = 5_000;

/** A key of the nemesis's, its N replicas and its partition. */
export interface ProbeKey {
  readonly key: string;
  readonly replicas: readonly string[];
  readonly partition: number;
}

export class Probes {
  private readonly clients: PinnedClients;
  private keys = 0;
  readonly recorder: Recorder;

  constructor(
    private readonly cluster: ChaosCluster,
    history: History,
    readonly nextId: () => number,
  ) {
    this.recorder = { process: 'nemesis', history };
    this.clients = new PinnedClients((node) => cluster.url(node));
  }

  /** A target bound to `node` alone; `weak`: R=1 and W=1. */
  target(node: string, weak = false): Target {
    return { client: this.clients.get(node, weak), via: node, ...(weak ? { w: 1 } : {}) };
  }

  /**
   * A fresh key of `workload`, named after `label`, whose N replicas include every node of
   * `nodes` (asked of `observer`), in none of the partitions `avoid`; undefined if none is found.
   */
  async keyOn(
    workload: 'set' | 'lww',
    label: string,
    nodes: readonly string[],
    observer: string,
    avoid: ReadonlySet<number> = new Set(),
  ): Promise<ProbeKey | undefined> {
    for (let i = 0; i < KEY_ATTEMPTS; i++) {
      const key = `${workload}-probe-${label}-${++this.keys}`;
      const placement = await this.cluster.api(observer).placement(key);
      const replicas = placement.nodes.slice(0, CHAOS_NODE_SETTINGS.n);
      if (nodes.every((n) => replicas.includes(n)) && !avoid.has(placement.partition))
        return { key, replicas, partition: placement.partition };
    }
    return undefined;
  }

  /** Waits until every replica's own copy of `key` passes `holds`; false at the deadline. */
  async waitHeld(
    key: string,
    replicas: readonly string[],
    holds: (siblings: readonly unknown[]) => boolean,
  ): Promise<boolean> {
    const deadline = Date.now() + HELD_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const all = await Promise.all(
        replicas.map((id) => this.cluster.localValues(id, key).catch(() => undefined)),
      );
      if (all.every((s) => s !== undefined && holds(s))) return true;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return false;
  }

  async close(): Promise<void> {
    await this.clients.close();
  }
}

/** A predicate for `waitHeld`: some sibling of a set holds `value`. */
export function setHolds(value: number): (siblings: readonly unknown[]) => boolean {
  return (siblings) => siblings.some((s) => Array.isArray(s) && s.includes(value));
}

/** A set key of the probe's and the node it goes through. */
export interface SetProbe extends ProbeKey {
  readonly node: string;
}

/**
 * Before a fault acts on `node`: a blind add through it to a fresh set key it replicates, held by
 * every replica, so that the node has coordinated a version of that key the others hold.
 * Undefined when no key was found or the add was not acknowledged.
 */
export async function addBefore(probes: Probes, node: string, label: string): Promise<SetProbe | undefined> {
  const found = await probes.keyOn('set', label, [node], node);
  if (found === undefined) return undefined;
  const value = probes.nextId();
  if (!(await blindAdd(probes.recorder, found.key, value, probes.target(node)))) return undefined;
  await probes.waitHeld(found.key, found.replicas, setHolds(value));
  return { ...found, node };
}

/** After the fault: another blind add through the node to the same key (both adds must survive). */
export async function addAfter(probes: Probes, probe: SetProbe | undefined): Promise<void> {
  if (probe === undefined) return;
  await blindAdd(probes.recorder, probe.key, probes.nextId(), probes.target(probe.node));
}
