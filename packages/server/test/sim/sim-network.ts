/**
 * A simulated network for the deterministic cluster simulation: every peer call is a message held
 * until the driver delivers it, drops it, or loses its reply, chosen by a seeded random source.
 * Nothing here uses real time, so a seed replays exactly.
 */
import { type ClusterState, createRng, type Member, type NodeId, TesseraError } from '@tessera/core';
import {
  type CoordinateReply,
  type CoordinateRequest,
  type MerkleKeysReply,
  type MerkleKeysRequest,
  NOT_SENT,
  type PeerApi,
  type PeerClient,
} from '../../src/transport/peer-api.js';

/** The simulation's seeded random source (core `createRng`). */
export const seededRandom = createRng;

interface Message {
  readonly from: NodeId;
  readonly to: NodeId;
  readonly run: (handler: PeerApi) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
}

/** A call a node's handler is running. */
interface RunningCall {
  /** Resolves when the handler is done with it, or the node crashed. */
  readonly ended: Promise<void>;
  end(): void;
  /** Fails the call for its caller (a reply already given stands). */
  fail(err: unknown): void;
}

export class SimNetwork {
  private readonly pending: Message[] = [];
  private readonly handlers = new Map<NodeId, PeerApi>();
  private readonly blocked = new Set<string>();
  /** Per node, the calls its handler is running: a clean stop waits for them, a crash ends them. */
  private readonly running = new Map<NodeId, Set<RunningCall>>();
  /** Chance that a message is dropped, and (half as often) that its reply is lost after it ran. */
  dropRate = 0;
  delivered = 0;
  dropped = 0;

  constructor(readonly random: () => number) {}

  /** Registers the node's current incarnation, or marks it down (undefined). */
  attach(node: NodeId, handler: PeerApi | undefined): void {
    if (handler === undefined) this.handlers.delete(node);
    else this.handlers.set(node, handler);
  }

  /**
   * The node crashed: every call its handler was still running ends now, and fails for its
   * caller, as a request to a killed process does (a node dying mid-write would never answer it).
   */
  crashed(node: NodeId): void {
    const calls = this.running.get(node);
    this.running.delete(node);
    for (const call of calls ?? []) {
      call.fail(new TesseraError('PEER_UNAVAILABLE', `simulated: connection dropped: ${node} crashed`));
      call.end();
    }
  }

  partition(sideA: readonly NodeId[], sideB: readonly NodeId[]): void {
    for (const a of sideA) for (const b of sideB) this.blocked.add(`${a}>${b}`).add(`${b}>${a}`);
  }

  heal(): void {
    this.blocked.clear();
  }

  get inFlight(): number {
    return this.pending.length;
  }

  /** Resolves once every call `node`'s handler is running now has ended (or the node crashed). */
  async settled(node: NodeId): Promise<void> {
    await Promise.all([...(this.running.get(node) ?? [])].map((call) => call.ended));
  }

  private track(node: NodeId, call: Promise<unknown>, fail: (err: unknown) => void): void {
    const calls = this.running.get(node) ?? new Set<RunningCall>();
    this.running.set(node, calls);
    let end = (): void => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const running = { ended, end, fail };
    calls.add(running);
    call.then(end, end);
    void ended.then(() => calls.delete(running));
  }

  send<T>(from: NodeId, to: NodeId, run: (handler: PeerApi) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ from, to, run, resolve: resolve as (v: unknown) => void, reject });
    });
  }

  /** Delivers (or drops) one pending message, chosen at random. */
  async step(): Promise<void> {
    if (this.pending.length === 0) return;
    const [message] = this.pending.splice(Math.floor(this.random() * this.pending.length), 1);
    const { from, to, run, resolve, reject } = message!;
    const handler = this.handlers.get(to);
    // A node that is down or cut off: no connection, nothing sent (NOT_SENT). A dropped message:
    // the peer did nothing either, but the caller cannot know that (as after a dropped connection).
    const unreachable = handler === undefined || this.blocked.has(`${from}>${to}`);
    if (unreachable || this.random() < this.dropRate) {
      this.dropped++;
      const details = unreachable ? NOT_SENT : {};
      reject(new TesseraError('PEER_UNAVAILABLE', `simulated: ${to} unreachable from ${from}`, details));
      return;
    }
    const replyLost = this.random() < this.dropRate / 2;
    this.delivered++;
    // Not awaited: the handler may itself wait for messages only later steps deliver.
    const call = run(handler);
    this.track(to, call, reject);
    call.then(
      (value) =>
        replyLost ? reject(new TesseraError('TIMEOUT', `simulated: reply from ${to} lost`)) : resolve(value),
      reject,
    );
  }

  client(from: NodeId, to: NodeId): PeerClient {
    return new SimPeerClient(this, from, to);
  }
}

class SimPeerClient implements PeerClient {
  /** The simulation moves no partitions. */
  transferPage(): Promise<void> {
    return Promise.reject(new TesseraError('NOT_SUPPORTED', 'The simulation does not transfer partitions.'));
  }

  readonly address: string;

  constructor(
    private readonly network: SimNetwork,
    private readonly from: NodeId,
    private readonly to: NodeId,
  ) {
    this.address = to;
  }

  read(key: string): Promise<Uint8Array | undefined> {
    return this.network.send(this.from, this.to, (h) => h.read(key));
  }

  replicate(key: string, state: Uint8Array, _timeoutMs: number, hint?: string): Promise<void> {
    const copy = state.slice();
    return this.network.send(this.from, this.to, (h) => h.replicate(key, copy, hint));
  }

  coordinate(request: CoordinateRequest): Promise<CoordinateReply> {
    return this.network.send(this.from, this.to, (h) => h.coordinate(request));
  }

  gossip(state: ClusterState): Promise<ClusterState> {
    return this.network.send(this.from, this.to, (h) => h.gossip(state));
  }

  join(member: Member): Promise<ClusterState> {
    return this.network.send(this.from, this.to, (h) => h.join(member));
  }

  merkleHashes(partition: number, level: number, indices: readonly number[]): Promise<Uint8Array> {
    return this.network.send(this.from, this.to, (h) => h.merkleHashes(partition, level, indices));
  }

  merkleKeys(request: MerkleKeysRequest): Promise<MerkleKeysReply> {
    return this.network.send(this.from, this.to, (h) => h.merkleKeys(request));
  }

  close(): void {}
}
