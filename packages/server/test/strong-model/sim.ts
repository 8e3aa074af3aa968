/**
 * The deterministic core of the strong-key model test: a fake clock with an event queue, and a
 * simulated network that carries strong peer messages through the core codec with random delays,
 * drops, lost replies, duplicates and partitions. One seeded random source drives everything, and
 * every event runs the microtasks it wakes to completion before time moves on (the in-memory engine
 * does no I/O), so a seed replays exactly.
 */
import {
  decodeStrongReply,
  decodeStrongRequest,
  encodeStrong,
  type NodeId,
  type StrongReply,
  type StrongRequest,
  TesseraError,
} from '@tessera/core';

/** Cluster time at the start: a real epoch, so clocks stepped back stay positive. */
export const START_MS = Date.UTC(2026, 0, 1);

interface SimEvent {
  readonly at: number;
  readonly seq: number;
  /** Returns false when it woke nothing (then no microtasks need to run). */
  readonly run: () => boolean | undefined;
}

/** Lets every queued microtask run: nothing here waits on I/O, so one macrotask turn drains them. */
const drain = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A promise that never settles: what a dead process waits on. */
export function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}

export class Scheduler {
  now = START_MS;
  events = 0;
  private seq = 0;
  /** Sorted latest first, so the next event is popped from the end. */
  private readonly queue: SimEvent[] = [];

  constructor(readonly random: () => number) {}

  /** Runs `run` `delayMs` from now (whole milliseconds: ballots and expiries must be integers). */
  at(delayMs: number, run: () => boolean | undefined): void {
    const event = { at: this.now + Math.max(0, Math.ceil(delayMs)), seq: this.seq++, run };
    let lo = 0;
    let hi = this.queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const e = this.queue[mid]!;
      if (e.at > event.at || (e.at === event.at && e.seq > event.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.queue.splice(lo, 0, event);
  }

  /** A whole number in [min, max]. */
  between(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  /** Runs events in time order until `untilMs`, or until `done()` holds; true if `done()` held. */
  async runUntil(untilMs: number, done: () => boolean = () => false): Promise<boolean> {
    await drain();
    for (;;) {
      if (done()) return true;
      const next = this.queue.at(-1);
      if (next === undefined || next.at > untilMs) break;
      this.queue.pop();
      this.now = next.at;
      this.events++;
      if (next.run() !== false) await drain();
    }
    this.now = Math.max(this.now, untilMs);
    return done();
  }
}

/** What the network needs of a node. */
export interface Endpoint {
  readonly up: boolean;
  readonly incarnation: number;
  /** The node's acceptor (as the node's own proposer calls it: no codec). */
  handle(request: StrongRequest): Promise<StrongReply>;
}

export interface NetSettings {
  dropRate: number;
  dupRate: number;
  /** Messages (or replies) this often take 100–500 ms, beyond the phase timeout. */
  slowRate: number;
}

export class Network {
  readonly settings: NetSettings = { dropRate: 0, dupRate: 0, slowRate: 0 };
  readonly stats = { sent: 0, delivered: 0, dropped: 0 };
  /** Pairs "a|b" that cannot reach each other (both directions are listed). */
  private readonly cut = new Set<string>();

  constructor(
    private readonly sim: Scheduler,
    private readonly nodes: ReadonlyMap<NodeId, Endpoint>,
  ) {}

  /** Splits the nodes in two sides: `side` and the rest. */
  partition(side: readonly NodeId[]): void {
    for (const a of this.nodes.keys())
      for (const b of this.nodes.keys()) if (side.includes(a) !== side.includes(b)) this.cut.add(`${a}|${b}`);
  }

  heal(): void {
    this.cut.clear();
  }

  /** Whether `a` and `b` can talk (no partition between them). */
  reachable(a: NodeId, b: NodeId): boolean {
    return !this.blocked(a, b);
  }

  private blocked(from: NodeId, to: NodeId): boolean {
    return this.cut.has(`${from}|${to}`);
  }

  private delay(): number {
    return this.sim.chance(this.settings.slowRate) ? this.sim.between(100, 500) : this.sim.between(1, 30);
  }

  /**
   * `from` (incarnation `fromIncarnation`) sends `request` to `to`: encoded, maybe dropped or sent
   * twice, decoded and handled by the target's acceptor, its reply encoded and carried back. A
   * sender that died meanwhile never hears back; one that hears nothing gives up at `timeoutMs`.
   */
  send(
    from: NodeId,
    fromIncarnation: number,
    to: NodeId,
    request: StrongRequest,
    timeoutMs: number,
  ): Promise<StrongReply> {
    const source = this.nodes.get(from)!;
    const alive = () => source.up && source.incarnation === fromIncarnation;
    if (!alive()) return never();
    const target = this.nodes.get(to);
    if (target === undefined) return Promise.reject(unavailable(to));
    if (to === from) return target.handle(request);
    this.stats.sent++;
    const bytes = encodeStrong(request);
    return new Promise<StrongReply>((resolve, reject) => {
      let settled = false;
      const settle = (finish: () => void): boolean => {
        if (settled || !alive()) return false;
        settled = true;
        finish();
        return true;
      };
      this.sim.at(timeoutMs, () =>
        settle(() => reject(new TesseraError('TIMEOUT', `strong ${request.kind} to ${to} timed out`))),
      );
      const copies = this.sim.chance(this.settings.dupRate) ? 2 : 1;
      for (let copy = 0; copy < copies; copy++) {
        if (this.blocked(from, to) || this.sim.chance(this.settings.dropRate)) {
          this.stats.dropped++;
          // Half the time the sender learns at once (connection refused); else it times out.
          if (this.sim.chance(0.5)) this.sim.at(this.delay(), () => settle(() => reject(unavailable(to))));
          continue;
        }
        this.sim.at(this.delay(), () => {
          if (!target.up || this.blocked(from, to)) return settle(() => reject(unavailable(to)));
          this.stats.delivered++;
          this.serve(target, bytes).then(
            (reply) => {
              if (reply === undefined || this.blocked(to, from) || this.sim.chance(this.settings.dropRate))
                return;
              this.sim.at(this.delay(), () => settle(() => resolve(decodeStrongReply(reply))));
            },
            (err: unknown) => this.sim.at(this.delay(), () => settle(() => reject(err))),
          );
          return undefined;
        });
      }
    });
  }

  /** The target's side of the RPC; undefined when it died before answering. */
  private async serve(target: Endpoint, bytes: Uint8Array): Promise<Uint8Array | undefined> {
    const incarnation = target.incarnation;
    const reply = encodeStrong(await target.handle(decodeStrongRequest(bytes)));
    return target.up && target.incarnation === incarnation ? reply : undefined;
  }
}

function unavailable(node: NodeId): TesseraError {
  return new TesseraError('PEER_UNAVAILABLE', `peer ${node} is unreachable`);
}
