/**
 * The nemesis: a seeded sequence of fault windows. Each window starts one fault, holds it for a
 * few seconds, heals it and pauses before the next; every kind comes once before any repeats.
 * Faults of links (nemesis-links.ts): network partitions both ways or one way, a node cut off by
 * stalled links, slow links, lossy links. Of nodes (nemesis-nodes.ts): kill -9 and restart, a
 * clock jumped ahead or behind, a clock stepped back across a restart, a wipe and rejoin under the
 * same node id. A crash in the middle of a write's fan-out (nemesis-crash.ts), a node cut off for
 * longer than the tombstone grace around deletes (nemesis-isolate.ts), a membership change
 * made while a partition is up (nemesis-membership.ts), and a crash in the middle of a transaction
 * (nemesis-crash-txn.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { between, pick, type Rng, shuffled } from '@tessera/core';
import type { ChaosCluster } from './cluster.js';
import type { History } from './history.js';
import { crashWrite } from './nemesis-crash.js';
import { crashTxn } from './nemesis-crash-txn.js';
import { type IsolationState, isolate } from './nemesis-isolate.js';
import { partition, someLinks, stall } from './nemesis-links.js';
import { MembershipFaults } from './nemesis-membership.js';
import { clock, clockBack, kill, wipe } from './nemesis-nodes.js';
import type { FaultDeps, Started } from './nemesis-types.js';
import { Probes } from './probes.js';

export const FAULT_KINDS = [
  'partition',
  'oneway',
  'stall',
  'slow',
  'lossy',
  'kill',
  'clock',
  'membership',
  'wipe',
  'clock-back',
  'crash-write',
  'isolate',
  'crash-txn',
] as const;
/** Faults that need a workload to act on: crash-txn crashes a transaction of the bank's. */
const NEEDS_BANK: readonly FaultKind[] = ['crash-txn'];
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface NemesisOptions {
  readonly cluster: ChaosCluster;
  readonly history: History;
  readonly random: Rng;
  readonly faults: readonly FaultKind[];
  /** How long a fault is held, ms. */
  readonly windowMs: readonly [number, number];
  /** Quiet time between two faults, ms. */
  readonly gapMs: readonly [number, number];
  /** Largest clock offset the clock faults set, ms (either way). */
  readonly clockSkewMaxMs: number;
  /** Fewest members the ring keeps: a leave happens only above it. */
  readonly membersMin: number;
  /** The nodes' tombstone grace period, ms: the isolate fault holds longer. */
  readonly tombstoneGraceMs: number;
  /** Unique numbers shared with the workers (the nemesis's own set adds use them too). */
  readonly nextId: () => number;
  /** Whether the bank runs (crash-txn is skipped without it). */
  readonly bank: boolean;
}

export class Nemesis {
  private readonly membership: MembershipFaults;
  private readonly deps: FaultDeps;
  private readonly probes: Probes;
  private isolated: IsolationState | undefined;
  private crashTarget: string | undefined;
  /** The kinds this run draws from. */
  private readonly kinds: FaultKind[];
  private readonly current = new Map<number, string>();
  private nextId = 1;
  private readonly deck: FaultKind[] = [];
  /** Faults that could not be started (e.g. a join refused), for the summary. */
  readonly failures: string[] = [];

  constructor(private readonly o: NemesisOptions) {
    this.kinds = o.faults.filter((k) => o.bank || !NEEDS_BANK.includes(k));
    this.membership = new MembershipFaults(o.cluster, o.membersMin);
    this.probes = new Probes(o.cluster, o.history, o.nextId);
    this.deps = {
      cluster: o.cluster,
      random: o.random,
      probes: this.probes,
      members: () => [...this.membership.members],
      clockSkewMaxMs: o.clockSkewMaxMs,
    };
  }

  /** What is broken right now, for the progress line. */
  active(): string[] {
    return [...this.current.values()];
  }

  /** The node the isolate fault has cut off, and a member on the other side; undefined when none is. */
  isolation(): IsolationState | undefined {
    return this.isolated;
  }

  /** The node armed by crash-txn, while it is: the bank's transfers go there. */
  transactionCrashTarget(): string | undefined {
    return this.crashTarget;
  }

  /** The members of the ring right now (the strong workloads send only to them). */
  members(): string[] {
    return [...this.membership.members];
  }

  /** Fault windows one after another until `untilMs` (history time) or the signal. */
  async run(untilMs: number, signal: AbortSignal): Promise<void> {
    const { history, random } = this.o;
    if (this.kinds.length === 0) return;
    while (!signal.aborted && history.now() < untilMs) {
      const kind = this.nextKind();
      const id = this.nextId++;
      // The window starts when the fault starts acting (its probes and restarts are part of it).
      const startMs = history.now();
      const started = await this.start(kind).catch((err: unknown) => {
        this.failures.push(`${kind}: ${String(err)}`);
        return undefined;
      });
      if (started === undefined) {
        // A membership change waits for the previous one to finish: try it again after the next fault.
        if (kind === 'membership') this.defer(kind);
        await pause(1_000, signal);
        continue;
      }
      this.current.set(id, `${kind} ${started.detail}`);
      const nodes = started.nodes === undefined ? {} : { nodes: started.nodes };
      const fault = { kind: 'fault', id, fault: kind, detail: started.detail, ...nodes } as const;
      history.add({ ...fault, type: 'start', atMs: startMs });
      const holdMs = started.holdMs ?? between(random, ...this.o.windowMs);
      await pause(Math.min(holdMs, Math.max(0, untilMs - history.now())), signal);
      await started.end();
      this.current.delete(id);
      history.add({ ...fault, type: 'end', atMs: history.now() });
      await pause(between(random, ...this.o.gapMs), signal);
    }
  }

  /** Puts `kind` back to be drawn after the next fault (of another kind, if there are others). */
  private defer(kind: FaultKind): void {
    if (this.deck.length === 0)
      this.deck.push(
        ...shuffled(
          this.o.random,
          this.kinds.filter((k) => k !== kind),
        ),
      );
    this.deck.splice(Math.max(0, this.deck.length - 1), 0, kind);
  }

  /** Kinds come from a shuffled deck, so a short run sees every kind before any repeats. */
  private nextKind(): FaultKind {
    if (this.deck.length === 0) this.deck.push(...shuffled(this.o.random, this.kinds));
    return this.deck.pop() ?? pick(this.o.random, this.kinds);
  }

  /** Heals every link and restarts every node that is down. */
  async healAll(): Promise<void> {
    const { cluster } = this.o;
    this.isolated = undefined;
    this.crashTarget = undefined;
    await cluster.healLinks();
    for (const id of cluster.ids) if (!cluster.running(id)) await cluster.start(id);
  }

  /** The nodes the ring should end with. */
  finalMembers(): string[] {
    return [...this.membership.members].sort();
  }

  async close(): Promise<void> {
    await this.probes.close();
  }

  private async start(kind: FaultKind): Promise<Started | undefined> {
    const { cluster, random } = this.o;
    const members = [...this.membership.members];
    switch (kind) {
      case 'partition':
        return partition(cluster, random, members, true);
      case 'oneway':
        return partition(cluster, random, members, false);
      case 'stall':
        return stall(cluster, random, members);
      case 'slow':
        return someLinks(
          cluster,
          random,
          members,
          () => ({ kind: 'slow', delayMs: between(random, 50, 300), jitterMs: 50 }),
          'slow',
        );
      case 'lossy':
        return someLinks(
          cluster,
          random,
          members,
          () => ({ kind: 'lossy', dropRate: between(random, 1, 10) / 100 }),
          'lossy',
        );
      case 'kill':
        return kill(this.deps);
      case 'clock':
        return clock(this.deps);
      case 'membership':
        return this.membership.change(this.deps);
      case 'wipe':
        return wipe(this.deps);
      case 'clock-back':
        return clockBack(this.deps);
      case 'crash-write':
        return crashWrite(this.deps);
      case 'isolate':
        return isolate(this.deps, this.o.tombstoneGraceMs, (state) => {
          this.isolated = state;
        });
      case 'crash-txn':
        return crashTxn(this.deps, (node) => {
          this.crashTarget = node;
        });
    }
  }
}

async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => {});
}
