/**
 * A model of Tessera's causal core for property tests: a few replicas of one key, each on its own
 * node, driven by random interleavings of reads, puts with and without a context, deletes, syncs
 * (anti-entropy), wipes, clean and unclean restarts with clock steps, crashes in the middle of a
 * write's fan-out, writes refused at the vector bound, and tombstone collection.
 *
 * Beside the real states it keeps a ghost of what really happened: every operation with the set
 * of operations its client had seen. The truth follows from the ghost alone: an acknowledged write
 * is live unless an operation whose client had seen it replaced or deleted it. The check compares
 * the replicas' converged siblings with that truth.
 */
import {
  type CausalContext,
  contextCaughtUp,
  EMPTY_CONTEXT,
  EMPTY_STATE,
  isTombstone,
  type KeyState,
  mergeStates,
  type NodeId,
  type Rng,
  TesseraError,
  utf8,
} from '../src/index.js';

/** What a node process stamps writes with; `life` is one process lifetime of a node. */
export interface Stamper<Life> {
  /**
   * A new process on `node`. `previous` is the last life when the disk survived, with whether that
   * life ended in a clean stop; undefined on a new (wiped) disk.
   */
  start(node: NodeId, previous: { life: Life; clean: boolean } | undefined, nowMs: number, random: Rng): Life;
  stamp(
    life: Life,
    local: KeyState,
    context: CausalContext,
    value: Uint8Array | undefined,
    nowMs: number,
  ): KeyState;
  /** Whether a change from `stored` to `next` restarts the tombstone's collection clock. */
  refreshesTombstone(stored: KeyState, next: KeyState): boolean;
}

export type ModelOp =
  /**
   * A read from `reads` (none: a blind write), then a put or delete through `coord`, which first
   * catches up with the read replicas when `catchUp` (they may be out of its reach), sends the new
   * state to `fanout` and, when `crash`, dies before storing its own copy.
   */
  | {
      kind: 'write';
      coord: number;
      reads: number[];
      del: boolean;
      fanout: number[];
      crash: boolean;
      catchUp: boolean;
    }
  | { kind: 'sync'; a: number; b: number }
  | { kind: 'wipe'; node: number }
  | { kind: 'restart'; node: number; clean: boolean; stepMs: number }
  | { kind: 'collect'; node: number };

interface Event {
  readonly id: string;
  readonly acked: boolean;
  readonly isWrite: boolean;
  /** The events the client had seen: this one replaces (or deletes) every write among them. */
  readonly covers: ReadonlySet<string>;
}

interface Replica<Life> {
  state: KeyState;
  /** Ghost: the events whose effect this replica's state holds. */
  known: Set<string>;
  life: Life;
  offsetMs: number;
  tombstoneSince: number | undefined;
  lastSync: number[];
}

export interface ModelReport {
  readonly lost: string[];
  readonly resurrected: string[];
  readonly phantom: string[];
  readonly acked: number;
}

export class CausalModel<Life> {
  private readonly replicas: Replica<Life>[];
  private readonly events = new Map<string, Event>();
  /** Operations no replica holds any more because every copy was wiped (lost with their disks). */
  private readonly forgotten = new Set<string>();
  /** Operations a collected tombstone held: collection is no excuse for losing them. */
  private readonly collected = new Set<string>();
  private t = 1_000_000;

  constructor(
    private readonly stamper: Stamper<Life>,
    count: number,
    private readonly random: Rng,
  ) {
    this.replicas = Array.from({ length: count }, (_, i) => ({
      state: EMPTY_STATE,
      known: new Set<string>(),
      life: stamper.start(`n${i}`, undefined, this.t, random),
      offsetMs: 0,
      tombstoneSince: undefined,
      lastSync: Array.from({ length: count }, () => 0),
    }));
  }

  run(ops: readonly ModelOp[]): void {
    for (const op of ops) {
      this.t += 1000;
      this.apply(op);
    }
  }

  private apply(op: ModelOp): void {
    if (op.kind === 'write') this.write(op);
    else if (op.kind === 'sync') this.sync(op.a, op.b);
    else if (op.kind === 'wipe') this.wipe(op.node);
    else if (op.kind === 'restart') this.restart(op.node, op.clean, op.stepMs);
    else this.collect(op.node);
  }

  private nodeNow(i: number): number {
    return this.t + this.replicas[i]!.offsetMs;
  }

  private write(op: Extract<ModelOp, { kind: 'write' }>): void {
    const coord = this.replicas[op.coord]!;
    const reads = [...new Set(op.reads)].map((i) => this.replicas[i]!);
    if (op.del && reads.length === 0) return;
    const read = reads.reduce((acc, r) => mergeStates(acc, r.state), EMPTY_STATE);
    const covers = new Set(reads.flatMap((r) => [...r.known]));
    const context: CausalContext = reads.length === 0 ? EMPTY_CONTEXT : { vv: read.vv, dots: [] };
    if (op.catchUp && !contextCaughtUp(coord.state, context))
      this.set(op.coord, mergeStates(coord.state, read), covers);
    const id = `w${this.events.size}`;
    let next: KeyState;
    try {
      next = this.stamper.stamp(
        coord.life,
        coord.state,
        context,
        op.del ? undefined : utf8(JSON.stringify(id)),
        this.nodeNow(op.coord),
      );
    } catch (err) {
      if (TesseraError.is(err)) return; // refused: nothing happened, nothing acknowledged
      throw err;
    }
    const known = new Set([...coord.known, ...covers, id]);
    this.events.set(id, { id, acked: !op.crash, isWrite: !op.del, covers });
    for (const j of new Set(op.fanout)) if (j !== op.coord) this.mergeInto(j, next, known);
    if (op.crash) this.restart(op.coord, false, 0);
    else this.set(op.coord, next, known);
  }

  private mergeInto(j: number, incoming: KeyState, known: ReadonlySet<string>): void {
    this.set(j, mergeStates(this.replicas[j]!.state, incoming), known);
  }

  private set(j: number, next: KeyState, known: ReadonlySet<string>): void {
    const r = this.replicas[j]!;
    if (this.stamper.refreshesTombstone(r.state, next)) r.tombstoneSince = this.t;
    if (!isTombstone(next)) r.tombstoneSince = undefined;
    r.state = next;
    for (const k of known) r.known.add(k);
  }

  private sync(a: number, b: number): void {
    if (a === b) return;
    const merged = mergeStates(this.replicas[a]!.state, this.replicas[b]!.state);
    const known = new Set([...this.replicas[a]!.known, ...this.replicas[b]!.known]);
    this.set(a, merged, known);
    this.set(b, merged, known);
    this.replicas[a]!.lastSync[b] = this.t;
    this.replicas[b]!.lastSync[a] = this.t;
  }

  private wipe(i: number): void {
    const r = this.replicas[i]!;
    const held = r.known;
    r.state = EMPTY_STATE;
    r.known = new Set();
    r.tombstoneSince = undefined;
    r.lastSync.fill(0);
    for (const id of held)
      if (!this.collected.has(id) && !this.replicas.some((x) => x.known.has(id))) this.forgotten.add(id);
    this.restart(i, false, 0, true);
  }

  private restart(i: number, clean: boolean, stepMs: number, wiped = false): void {
    const r = this.replicas[i]!;
    r.offsetMs += stepMs;
    const previous = wiped ? undefined : { life: r.life, clean };
    r.life = this.stamper.start(`n${i}`, previous, this.nodeNow(i), this.random);
  }

  /** Tombstone collection: every other replica synced with this one since it last changed. */
  private collect(i: number): void {
    const r = this.replicas[i]!;
    if (!isTombstone(r.state) || r.tombstoneSince === undefined) return;
    const since = r.tombstoneSince;
    if (r.lastSync.some((t, j) => j !== i && t <= since)) return;
    for (const id of r.known) this.collected.add(id);
    r.state = EMPTY_STATE;
    r.known = new Set();
    r.tombstoneSince = undefined;
  }

  /** Syncs every pair until the replicas agree, then compares their siblings with the truth. */
  check(): ModelReport {
    for (let round = 0; round < 3; round++)
      for (let a = 0; a < this.replicas.length; a++)
        for (let b = a + 1; b < this.replicas.length; b++) this.sync(a, b);
    const present = new Set(
      this.replicas[0]!.state.siblings.map((s) => JSON.parse(new TextDecoder().decode(s.value)) as string),
    );
    const coveredBy = (id: string, binding: boolean) =>
      [...this.events.values()].some(
        (e) => (!binding || (e.acked && !this.forgotten.has(e.id))) && e.covers.has(id),
      );
    const writes = [...this.events.values()].filter((e) => e.isWrite);
    return {
      lost: writes
        .filter((e) => e.acked && !present.has(e.id) && !coveredBy(e.id, false) && !this.forgotten.has(e.id))
        .map((e) => e.id),
      resurrected: writes.filter((e) => present.has(e.id) && coveredBy(e.id, true)).map((e) => e.id),
      phantom: [...present].filter((id) => !this.events.has(id)),
      acked: writes.filter((e) => e.acked).length,
    };
  }
}
