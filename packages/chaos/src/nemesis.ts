/**
 * The nemesis: a seeded sequence of fault windows. Each window starts one fault, holds it for a
 * few seconds, heals it and pauses before the next; every kind comes once before any repeats. Faults: network partitions (both ways or one
 * way), a node cut off by stalled links, slow links, lossy links, kill -9 and restart, a clock
 * jumped ahead or behind (restart with `clockOffsetMs`), and a membership change (a join or a
 * leave) made while a partition is up.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { between, pick, type Rng, shuffled } from '@tessera/core';
import type { ChaosCluster } from './cluster.js';
import type { History } from './history.js';

export const FAULT_KINDS = [
  'partition',
  'oneway',
  'stall',
  'slow',
  'lossy',
  'kill',
  'clock',
  'membership',
] as const;
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
  /** Largest clock offset the clock fault sets, ms (either way). */
  readonly clockSkewMaxMs: number;
  /** Fewest members the ring keeps: a leave happens only above it. */
  readonly membersMin: number;
}

interface Started {
  readonly detail: string;
  readonly end: () => Promise<void>;
}

export class Nemesis {
  private readonly members: Set<string>;
  /** Nodes outside the ring, each running alone on an empty data dir, ready to join. */
  private readonly spares: string[];
  /** A node that was told to leave; once its leave commits it is wiped and becomes a spare. */
  private leaver: string | undefined;
  private lastChange: 'join' | 'leave' | undefined;
  private readonly current = new Map<number, string>();
  private nextId = 1;
  private readonly deck: FaultKind[] = [];
  /** Faults that could not be started (e.g. a join refused), for the summary. */
  readonly failures: string[] = [];

  constructor(private readonly o: NemesisOptions) {
    this.members = new Set(o.cluster.initialMembers);
    this.spares = o.cluster.ids.filter((id) => !this.members.has(id));
  }

  /** What is broken right now, for the progress line. */
  active(): string[] {
    return [...this.current.values()];
  }

  /** Fault windows one after another until `untilMs` (history time) or the signal. */
  async run(untilMs: number, signal: AbortSignal): Promise<void> {
    const { history, random } = this.o;
    if (this.o.faults.length === 0) return;
    while (!signal.aborted && history.now() < untilMs) {
      const kind = this.nextKind();
      const id = this.nextId++;
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
      history.add({
        kind: 'fault',
        type: 'start',
        atMs: history.now(),
        id,
        fault: kind,
        detail: started.detail,
      });
      const holdMs = Math.min(between(random, ...this.o.windowMs), Math.max(0, untilMs - history.now()));
      await pause(holdMs, signal);
      await started.end();
      this.current.delete(id);
      history.add({
        kind: 'fault',
        type: 'end',
        atMs: history.now(),
        id,
        fault: kind,
        detail: started.detail,
      });
      await pause(between(random, ...this.o.gapMs), signal);
    }
  }

  /** Puts `kind` back to be drawn after the next fault (of another kind, if there are others). */
  private defer(kind: FaultKind): void {
    if (this.deck.length === 0)
      this.deck.push(
        ...shuffled(
          this.o.random,
          this.o.faults.filter((k) => k !== kind),
        ),
      );
    this.deck.splice(Math.max(0, this.deck.length - 1), 0, kind);
  }

  /** Kinds come from a shuffled deck, so a short run sees every kind before any repeats. */
  private nextKind(): FaultKind {
    if (this.deck.length === 0) this.deck.push(...shuffled(this.o.random, this.o.faults));
    return this.deck.pop() ?? pick(this.o.random, this.o.faults);
  }

  /** Heals every link and restarts every node that is down. */
  async healAll(): Promise<void> {
    const { cluster } = this.o;
    cluster.healLinks();
    for (const id of cluster.ids) if (!cluster.running(id)) await cluster.start(id);
  }

  /** The nodes the ring should end with. */
  finalMembers(): string[] {
    return [...this.members].sort();
  }

  private async start(kind: FaultKind): Promise<Started | undefined> {
    switch (kind) {
      case 'partition':
        return this.partition(true);
      case 'oneway':
        return this.partition(false);
      case 'stall':
        return this.stall();
      case 'slow':
        return this.links(
          () => ({ kind: 'slow', delayMs: between(this.o.random, 50, 300), jitterMs: 50 }),
          'slow',
        );
      case 'lossy':
        return this.links(() => ({ kind: 'lossy', dropRate: between(this.o.random, 1, 10) / 100 }), 'lossy');
      case 'kill':
        return this.kill();
      case 'clock':
        return this.clock();
      case 'membership':
        return this.membership();
    }
  }

  /** Splits the members in two; blocks A->B, and B->A too unless one-way. */
  private partition(bothWays: boolean): Started {
    const { cluster, random } = this.o;
    const nodes = shuffled(random, [...this.members]);
    const cut = between(random, 1, Math.floor(nodes.length / 2));
    const a = nodes.slice(0, cut).sort();
    const b = nodes.slice(cut).sort();
    const cuts: [string, string][] = [];
    for (const x of a)
      for (const y of b) cuts.push([x, y], ...(bothWays ? [[y, x] as [string, string]] : []));
    for (const [from, to] of cuts) cluster.setLink(from, to, { kind: 'partition' });
    return {
      detail: `${a.join(',')} ${bothWays ? '|' : '->x'} ${b.join(',')}`,
      end: async () => {
        for (const [from, to] of cuts) cluster.setLink(from, to, { kind: 'ok' });
      },
    };
  }

  /** One node's links, both ways, stop moving bytes (held, not lost) until healed. */
  private stall(): Started {
    const { cluster, random } = this.o;
    const node = pick(random, [...this.members]);
    const others = cluster.ids.filter((id) => id !== node);
    for (const other of others) {
      cluster.setLink(node, other, { kind: 'stall' });
      cluster.setLink(other, node, { kind: 'stall' });
    }
    return {
      detail: node,
      end: async () => {
        for (const other of others) {
          cluster.setLink(node, other, { kind: 'ok' });
          cluster.setLink(other, node, { kind: 'ok' });
        }
      },
    };
  }

  /** About half the links between members get `fault`. */
  private links(fault: () => Parameters<ChaosCluster['setLink']>[2], what: string): Started {
    const { cluster, random } = this.o;
    const chosen: [string, string][] = [];
    for (const from of this.members)
      for (const to of this.members) if (from !== to && random() < 0.5) chosen.push([from, to]);
    for (const [from, to] of chosen) cluster.setLink(from, to, fault());
    return {
      detail: `${chosen.length} links ${what}`,
      end: async () => {
        for (const [from, to] of chosen) cluster.setLink(from, to, { kind: 'ok' });
      },
    };
  }

  /** kill -9 one node, or two, and restart them at the end of the window. */
  private async kill(): Promise<Started> {
    const { cluster, random } = this.o;
    const count = random() < 0.3 ? 2 : 1;
    const victims = shuffled(
      random,
      [...this.members].filter((id) => cluster.running(id)),
    )
      .slice(0, count)
      .sort();
    for (const id of victims) await cluster.kill(id);
    return {
      detail: victims.join(','),
      end: async () => {
        for (const id of victims) await cluster.start(id);
      },
    };
  }

  /** kill -9 a node and restart it with its clock ahead or behind; the clock jumps back at the end. */
  private async clock(): Promise<Started> {
    const { cluster, random, clockSkewMaxMs } = this.o;
    const node = pick(random, [...this.members]);
    const skewMs = between(random, clockSkewMaxMs / 4, clockSkewMaxMs) * (random() < 0.5 ? -1 : 1);
    await cluster.restartWithClock(node, skewMs);
    return {
      detail: `${node} ${skewMs > 0 ? '+' : ''}${Math.round(skewMs / 1000)}s`,
      end: async () => cluster.restartWithClock(node, 0),
    };
  }

  /**
   * A leave (of a member) or a join (of a spare), made while a partition is up: they alternate, a
   * leave first, so every run with this fault sees a node leave during a partition. Skipped while
   * an earlier change is still pending, or its leaver still holds data to hand over.
   */
  private async membership(): Promise<Started | undefined> {
    const { cluster, random } = this.o;
    const observer = [...this.members].find((id) => cluster.running(id));
    if (observer === undefined) return undefined;
    const status = await cluster.status(observer).catch(() => undefined);
    if (status === undefined || status.pending !== null) return undefined;
    if (this.leaver !== undefined) {
      const gone = !status.members.some((m) => m.nodeId === this.leaver && m.status !== 'removed');
      if (!gone) return undefined;
      // As an operator would: stop the node once it has handed over everything it still held.
      const leaver = await cluster.status(this.leaver).catch(() => undefined);
      if (leaver !== undefined && leaver.retiring !== 0) return undefined;
      await cluster.wipe(this.leaver);
      this.spares.push(this.leaver);
      this.leaver = undefined;
    }
    const partition = this.partition(true);
    const live = [...this.members].filter((id) => cluster.running(id));
    const candidates = live.filter((id) => id !== 'n0');
    const canLeave = this.members.size > this.o.membersMin && candidates.length > 0;
    try {
      if (canLeave && (this.lastChange !== 'leave' || this.spares.length === 0)) {
        const node = pick(random, candidates);
        await cluster.leave(node);
        this.members.delete(node);
        this.leaver = node;
        this.lastChange = 'leave';
        return { detail: `leave ${node} during ${partition.detail}`, end: partition.end };
      }
      const node = this.spares.shift();
      if (node === undefined) {
        await partition.end();
        return undefined;
      }
      await cluster.join(node, pick(random, live));
      this.members.add(node);
      this.lastChange = 'join';
      return { detail: `join ${node} during ${partition.detail}`, end: partition.end };
    } catch (err) {
      await partition.end();
      throw err;
    }
  }
}

async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => {});
}
