/**
 * Strong keys on a node (docs/transactions.md): which keys are strong, this node's acceptor, its
 * proposer, single-key operations, transactions, adoption on ring changes and the recovery sweep,
 * built from the node's parts. Peers are reached through the peer directory; this node's own
 * acceptor is called directly.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ClusterState,
  decodeStrongReply,
  decodeStrongRequest,
  encodeStrong,
  type NodeId,
  TesseraError,
  TxnExpiry,
} from '@tessera/core';
import type { PeerDirectory } from '../cluster/peers.js';
import type { Logger } from '../logger.js';
import type { StorageEngine } from '../storage/engine.js';
import { StrongAcceptor } from './acceptor.js';
import { adoptPartition } from './adoption.js';
import { placementOf } from './placement.js';
import { Proposer, type StrongSend } from './proposer.js';
import { AcceptorRecords } from './records.js';
import { WipeRecovery } from './recovery.js';
import { StrongKeys } from './strong-keys.js';
import { StrongSweeper } from './sweeper.js';
import { Transactions } from './transactions.js';

export interface StrongSettings {
  readonly namespaces: readonly string[];
  readonly txnTimeoutMs: number;
  readonly phaseTimeoutMs: number;
  /** A strong request's deadline when the client gives none. */
  readonly requestTimeoutMs: number;
  /** The largest value, in bytes of its JSON text (config `valueBytesMax`, as for plain keys). */
  readonly valueBytesMax: number;
}

export interface StrongServiceDeps {
  readonly self: NodeId;
  readonly n: number;
  readonly settings: StrongSettings;
  readonly state: () => ClusterState;
  readonly peers: Pick<PeerDirectory, 'call'>;
  readonly engine: StorageEngine;
  readonly sync: boolean;
  readonly now: () => number;
  readonly random: () => number;
  readonly log: Logger;
  /** Fault injection: the coordinator of a transaction dies at this step when it answers true. */
  readonly crashAt?: (step: 'after-intents' | 'after-commit') => boolean;
}

/** Does `key` belong to a strong namespace (`<namespace>/…`)? */
export function strongKeyTest(namespaces: readonly string[]): (key: string) => boolean {
  const prefixes = namespaces.map((ns) => `${ns}/`);
  return (key) => prefixes.some((p) => key.startsWith(p));
}

export class StrongService {
  readonly isStrong: (key: string) => boolean;
  readonly records: AcceptorRecords;
  readonly acceptor: StrongAcceptor;
  readonly proposer: Proposer;
  readonly keys: StrongKeys;
  readonly transactions: Transactions;
  readonly sweeper: StrongSweeper;
  readonly recovery: WipeRecovery;
  private readonly send: StrongSend;

  constructor(private readonly deps: StrongServiceDeps) {
    const { self, n, settings, state, now, random, log } = deps;
    this.isStrong = strongKeyTest(settings.namespaces);
    this.records = new AcceptorRecords(deps.engine, state().ring.partitionCount, deps.sync);
    this.send = (node, request, timeoutMs) => this.sendTo(node, request, timeoutMs);
    this.recovery = new WipeRecovery(deps.engine, {
      ...this.pullDeps(),
      n,
      state,
      log: log.child({ component: 'strong-recovery' }),
    });
    this.acceptor = new StrongAcceptor({
      self,
      n,
      state,
      records: this.records,
      recovering: () => this.recovery.recovering,
    });
    const pause = (ms: number) => sleep(ms, undefined, { ref: false });
    this.proposer = new Proposer({
      self,
      n,
      state,
      send: this.send,
      now,
      random,
      sleep: pause,
      log: log.child({ component: 'proposer' }),
      phaseTimeoutMs: settings.phaseTimeoutMs,
    });
    const elapsedMs = () => performance.now();
    const expiry = new TxnExpiry({ now, elapsedMs, timeoutMs: settings.txnTimeoutMs });
    const intents = { proposer: this.proposer, now, expiry };
    const randomId = () => randomBytes(12).toString('hex');
    const { valueBytesMax } = settings;
    this.keys = new StrongKeys({ ...intents, sleep: pause, random, randomId, valueBytesMax });
    this.transactions = new Transactions({
      ...intents,
      keys: this.keys,
      txnTimeoutMs: settings.txnTimeoutMs,
      valueBytesMax,
      randomId,
      ...(deps.crashAt === undefined ? {} : { crashAt: deps.crashAt }),
    });
    this.sweeper = new StrongSweeper({
      ...intents,
      self,
      records: this.records,
      timeoutMs: settings.phaseTimeoutMs * 4,
      primaries: (key) => placementOf(state(), key, n).replicas,
      backupAfterMs: settings.txnTimeoutMs,
      elapsedMs,
      log: log.child({ component: 'strong-sweeper' }),
    });
  }

  /** The deadline of a request with this timeout (or the default), on the node's clock. */
  deadline(timeoutMs: number | undefined): number {
    return this.deps.now() + (timeoutMs ?? this.deps.settings.requestTimeoutMs);
  }

  /** A peer's strong message, answered (decoded and encoded here: the one door for this data). */
  async serve(payload: Uint8Array): Promise<Uint8Array> {
    return encodeStrong(await this.acceptor.handle(decodeStrongRequest(payload)));
  }

  /** Reads what must survive a restart (a wiped node's unfinished rebuild); before serving. */
  async open(options: { readonly newDataDir: boolean }): Promise<void> {
    await this.recovery.open();
    if (options.newDataDir) await this.recovery.beginIfOwner(this.deps.self);
  }

  /** Background work: the recovery sweep, and a wiped node's rebuild. */
  async tick(): Promise<void> {
    await this.recovery
      .tick()
      .catch((err: unknown) => this.deps.log.warn({ err: String(err) }, 'strong rebuild failed; will retry'));
    await this.sweeper.tick();
  }

  /** Pulls a gained partition's records during a ring change; true once adopted. */
  adopt(partition: number, nextRingVersion: number, replicas: readonly NodeId[]): Promise<boolean> {
    return adoptPartition(this.pullDeps(), partition, nextRingVersion, replicas);
  }

  private pullDeps() {
    return {
      self: this.deps.self,
      records: this.records,
      send: this.send,
      timeoutMs: this.deps.settings.phaseTimeoutMs * 4,
    };
  }

  private async sendTo(node: NodeId, request: Parameters<StrongSend>[1], timeoutMs: number) {
    if (node === this.deps.self) return this.acceptor.handle(request);
    const payload = encodeStrong(request);
    const reply = await this.deps.peers.call(node, (client) => {
      if (client.strong === undefined) {
        throw new TesseraError('NOT_SUPPORTED', `Peer ${node} does not serve strong keys.`);
      }
      return client.strong(payload, timeoutMs);
    });
    return decodeStrongReply(reply);
  }
}
