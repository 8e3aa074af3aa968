/**
 * This node as an acceptor of strong keys: answers prepares and accepts for keys it is a primary
 * replica of under the same ring as the proposer, and pages of records to a new owner during a
 * ring change. While a ring change moves a key's partition it refuses the key's prepares and
 * accepts ("moving"): the partition is frozen until the new owners adopted a majority's records.
 */
import {
  type AcceptorRecord,
  accept,
  type ClusterState,
  decodeTxnRecord,
  prepare,
  type StrongReply,
  type StrongRequest,
  type StrongView,
  TXN_RECORD_PREFIX,
} from '@tessera/core';
import { placementOf, sameNodes } from './placement.js';
import type { AcceptorRecords } from './records.js';

export interface StrongAcceptorDeps {
  readonly self: string;
  readonly n: number;
  readonly state: () => ClusterState;
  readonly records: AcceptorRecords;
  /** True while this node rebuilds the records a wipe lost: it votes on nothing until done. */
  readonly recovering: () => boolean;
}

export class StrongAcceptor {
  /** Prepares and accepts being handled: a pull waits for them, so it sees every accepted value. */
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(private readonly deps: StrongAcceptorDeps) {}

  async handle(request: StrongRequest): Promise<StrongReply> {
    if (request.kind === 'pull') return this.pull(request);
    if (request.kind === 'forget') return this.forget(request.key);
    const task = this.vote(request);
    this.inflight.add(task);
    try {
      return await task;
    } finally {
      this.inflight.delete(task);
    }
  }

  private refusal(key: string, view: StrongView): StrongReply | undefined {
    const state = this.deps.state();
    const placement = placementOf(state, key, this.deps.n);
    const ringVersion = state.ring.version;
    if (this.deps.recovering()) return { kind: 'refused', reason: 'recovering', ringVersion };
    if (placement.movingTo !== undefined) return { kind: 'refused', reason: 'moving', ringVersion };
    const mine = placement.replicas.includes(this.deps.self);
    if (!mine || ringVersion !== view.ringVersion || !sameNodes(placement.replicas, view.replicas)) {
      return { kind: 'refused', reason: 'view', ringVersion };
    }
    return undefined;
  }

  /** Drops a finished transaction's record (transactions.ts says when); nothing else can be forgotten. */
  private async forget(key: string): Promise<StrongReply> {
    if (!key.startsWith(TXN_RECORD_PREFIX)) return { kind: 'forget', forgotten: false };
    const forgotten = await this.deps.records.forget(key, (record) => {
      const status = decodeTxnRecord(record.accepted?.register.value)?.status;
      return status === 'committed' || status === 'cancelled';
    });
    return { kind: 'forget', forgotten };
  }

  private async vote(request: Extract<StrongRequest, { kind: 'prepare' | 'accept' }>): Promise<StrongReply> {
    const early = this.refusal(request.key, request.view);
    if (early !== undefined) return early;
    return this.deps.records.update<StrongReply>(request.key, (record: AcceptorRecord) => {
      // Checked again under the key's lock: a pull that froze the partition has waited for us.
      const refused = this.refusal(request.key, request.view);
      if (refused !== undefined) return { result: refused };
      if (request.kind === 'prepare') {
        const out = prepare(record, request.ballot);
        return { record: out.record, result: { kind: 'prepare', reply: out.reply } };
      }
      const out = accept(record, request.ballot, request.register);
      return out.reply.ok
        ? { record: out.record, result: { kind: 'accept', reply: out.reply } }
        : { result: { kind: 'accept', reply: out.reply } };
    });
  }

  /**
   * A new owner pulls a page of a moving partition's records. Answered only once this node sees
   * the same pending change (so it refuses the partition's votes from now on) and every vote it
   * had begun before is written.
   */
  private async pull(request: Extract<StrongRequest, { kind: 'pull' }>): Promise<StrongReply> {
    const state = this.deps.state();
    if (this.deps.recovering())
      return { kind: 'refused', reason: 'recovering', ringVersion: state.ring.version };
    if (request.recover === true) {
      const page = await this.deps.records.page(request.partition, request.afterKey, request.keysMax);
      return { kind: 'pull', records: page.records, done: page.done };
    }
    const pendingVersion = state.pending?.next.version;
    if (pendingVersion !== request.nextRingVersion || state.ring.version >= request.nextRingVersion) {
      return { kind: 'refused', reason: 'view', ringVersion: state.ring.version };
    }
    await Promise.allSettled([...this.inflight]);
    const page = await this.deps.records.page(request.partition, request.afterKey, request.keysMax);
    return { kind: 'pull', records: page.records, done: page.done };
  }
}
