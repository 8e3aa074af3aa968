/**
 * Connections to the other members and this node's own, local view of which of them are down
 * (paper 4.8.3): a peer that fails a call is skipped for `peerRetryMs`, then tried again. No
 * global verdict is needed to route around a failure.
 */
import { type ClusterState, type ErrorCode, type NodeId, TesseraError } from '@tessera/core';
import type { Logger } from '../logger.js';
import { NOT_SENT, type PeerClient } from '../transport/peer-api.js';

export type PeerClientFactory = (address: string) => PeerClient;

/** Told of every call to a peer: its method, how long it took, and its error code if it failed (/metrics). */
export interface PeerCallObserver {
  observe(method: string, seconds: number, errorCode: string | undefined): void;
}

/** The failures that say a peer is unreachable, by default. */
const DOWN_ON: readonly ErrorCode[] = ['PEER_UNAVAILABLE', 'TIMEOUT'];

export interface PeerHealth {
  readonly nodeId: NodeId;
  readonly down: boolean;
  readonly failures: number;
  readonly lastFailureMs?: number;
}

interface Entry {
  client: PeerClient;
  downUntilMs: number;
  failures: number;
  lastFailureMs?: number;
}

export class PeerDirectory {
  private readonly entries = new Map<NodeId, Entry>();
  /** Fault injection (tests and demos): peers this node pretends it cannot reach. */
  private readonly blocked = new Set<NodeId>();

  constructor(
    private readonly self: NodeId,
    private readonly connect: PeerClientFactory,
    private readonly retryMs: number,
    private readonly now: () => number,
    private readonly log: Logger,
    /** Addresses to dial instead of the advertised ones, by node id (NAT, proxies; `peerDialOverrides`). */
    private readonly dialOverrides: Readonly<Record<NodeId, string>> = {},
    /** Told of every call made through a client of this directory (/metrics). */
    private readonly observer?: PeerCallObserver,
  ) {}

  /** Opens clients for new members, re-opens moved ones, closes removed ones. */
  sync(state: ClusterState): void {
    const wanted = new Map(
      state.members
        .filter((m) => m.nodeId !== this.self && m.status !== 'removed')
        .map((m) => [m.nodeId, this.dialOverrides[m.nodeId] ?? m.peer]),
    );
    for (const [id, entry] of this.entries) {
      if (wanted.get(id) !== entry.client.address) {
        entry.client.close();
        this.entries.delete(id);
      }
    }
    for (const [id, address] of wanted) {
      if (!this.entries.has(id))
        this.entries.set(id, { client: this.observed(this.connect(address)), downUntilMs: 0, failures: 0 });
    }
  }

  client(node: NodeId): PeerClient | undefined {
    const client = this.entries.get(node)?.client;
    return client !== undefined && this.blocked.has(node)
      ? this.observed(unreachable(client.address, node))
      : client;
  }

  private observed(client: PeerClient): PeerClient {
    return this.observer === undefined ? client : observedClient(client, this.observer);
  }

  /**
   * Calls `node` through `client(node)` and tells the failure detector how it went: a failure
   * with one of the `downOn` codes marks the peer down, a success marks it alive. A node with no
   * client (not a known member) fails with PEER_UNAVAILABLE.
   */
  call<T>(
    node: NodeId,
    fn: (client: PeerClient) => Promise<T>,
    downOn: readonly ErrorCode[] = DOWN_ON,
  ): Promise<T> {
    const client = this.client(node);
    if (client === undefined) {
      return Promise.reject(
        new TesseraError(
          'PEER_UNAVAILABLE',
          `Node ${node} is not a known member; its address is not known yet.`,
          { peer: node, ...NOT_SENT },
        ),
      );
    }
    // Promise chains rather than an async frame: this runs for every replica call.
    let pending: Promise<T>;
    try {
      pending = fn(client);
    } catch (err) {
      pending = Promise.reject(err);
    }
    return pending.then(
      (result) => {
        this.markAlive(node);
        return result;
      },
      (err: unknown) => {
        if (TesseraError.is(err) && downOn.includes(err.code)) this.markFailed(node, err);
        throw err;
      },
    );
  }

  /** Drops all traffic from this node to `nodes` (a one-way network partition), until `unblock`. */
  block(nodes: readonly NodeId[]): void {
    for (const n of nodes) if (n !== this.self) this.blocked.add(n);
  }

  unblock(): void {
    this.blocked.clear();
  }

  blockedPeers(): NodeId[] {
    return [...this.blocked].sort();
  }

  /** True while a recent failure says to skip this peer. */
  isDown(node: NodeId): boolean {
    const entry = this.entries.get(node);
    return entry !== undefined && entry.downUntilMs > this.now();
  }

  markFailed(node: NodeId, reason: unknown): void {
    const entry = this.entries.get(node);
    if (entry === undefined) return;
    if (entry.failures === 0)
      this.log.warn({ peer: node, err: reason }, 'peer unreachable; routing around it');
    entry.failures++;
    entry.lastFailureMs = this.now();
    entry.downUntilMs = this.now() + this.retryMs;
  }

  markAlive(node: NodeId): void {
    const entry = this.entries.get(node);
    if (entry === undefined || entry.failures === 0) return;
    this.log.info({ peer: node }, 'peer reachable again');
    entry.failures = 0;
    entry.downUntilMs = 0;
  }

  health(): PeerHealth[] {
    return [...this.entries].map(([nodeId, e]) => ({
      nodeId,
      down: e.downUntilMs > this.now() || e.failures > 0,
      failures: e.failures,
      ...(e.lastFailureMs === undefined ? {} : { lastFailureMs: e.lastFailureMs }),
    }));
  }

  ids(): NodeId[] {
    return [...this.entries.keys()];
  }

  close(): void {
    for (const e of this.entries.values()) e.client.close();
    this.entries.clear();
  }
}

/** A client whose every call fails as if the peer were unreachable, whatever methods PeerClient has. */
function unreachable(address: string, node: NodeId): PeerClient {
  const fail = (): Promise<never> =>
    Promise.reject(
      new TesseraError('PEER_UNAVAILABLE', `Traffic to ${node} is blocked by fault injection.`, {
        peer: node,
        ...NOT_SENT,
      }),
    );
  const base = { address, close: () => {} };
  return new Proxy(base, {
    get: (target, prop) => (prop in target ? target[prop as keyof typeof target] : fail),
  }) as unknown as PeerClient;
}

/**
 * `client` with each method call (every one returns a promise) timed and reported to `observer`
 * with its outcome: one clock read at each end and a label lookup, nothing per byte.
 */
function observedClient(client: PeerClient, observer: PeerCallObserver): PeerClient {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || prop === 'close' || typeof prop !== 'string') return value;
      let wrapped = methods.get(prop);
      if (wrapped === undefined) {
        const fn = value as (...args: unknown[]) => unknown;
        wrapped = (...args: unknown[]): unknown => {
          const start = performance.now();
          const done = (code: string | undefined): void =>
            observer.observe(prop, (performance.now() - start) / 1000, code);
          let result: unknown;
          try {
            result = fn.apply(target, args);
          } catch (err) {
            done(errorCode(err));
            throw err;
          }
          if (!(result instanceof Promise)) {
            done(undefined);
            return result;
          }
          return result.then(
            (v: unknown) => {
              done(undefined);
              return v;
            },
            (err: unknown) => {
              done(errorCode(err));
              throw err;
            },
          );
        };
        methods.set(prop, wrapped);
      }
      return wrapped;
    },
  });
}

function errorCode(err: unknown): string {
  return TesseraError.is(err) ? err.code : 'UNKNOWN';
}
