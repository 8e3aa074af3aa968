/** What the nemesis's fault modules share. */
import type { Rng } from '@tessera/core';
import type { ChaosCluster } from './cluster.js';
import type { Probes } from './probes.js';

/** A fault that is up: what it did, the nodes it acted on, and how to heal it. */
export interface Started {
  readonly detail: string;
  /** The nodes it acted on; absent when it acted on links at large. */
  readonly nodes?: readonly string[];
  readonly end: () => Promise<void>;
  /** How long to hold it, ms, when the fault needs its own (else a random window). */
  readonly holdMs?: number;
}

/** What a fault acts with. */
export interface FaultDeps {
  readonly cluster: ChaosCluster;
  readonly random: Rng;
  readonly probes: Probes;
  /** Members of the ring right now. */
  readonly members: () => readonly string[];
  /** Largest clock offset of the clock faults, ms. */
  readonly clockSkewMaxMs: number;
}

/** The running members; throws when none is left to act on. */
export function runningMembers(deps: FaultDeps): string[] {
  const running = deps.members().filter((id) => deps.cluster.running(id));
  if (running.length === 0) throw new Error('no running member');
  return running;
}
