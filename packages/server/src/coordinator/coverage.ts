/**
 * Key listing as a coverage query (Riak's list-keys, bounded): the node that answers a listing walks
 * the partitions in order and asks each of one live replica, itself when it is one, for the live
 * keys with the prefix after the position it reached (ListKeys, partition-keys.ts). One page ends
 * when it holds `limit` keys, or scanned PAGE_SCAN_MAX stored entries, or its time is half gone,
 * or when the background admission gate (paper 6.5) refuses to pay for more: it answers the keys
 * found and the position to go on from. Every page makes progress.
 *
 * Consistency: each partition is read from one replica, not a quorum, so a listing can miss a
 * write that has not reached that replica yet (or that a fallback holds as a hint) and can list a
 * key deleted since; keys deleted before the replica scanned them (tombstones) are never listed.
 * Keys are hashed to partitions: a listing is in partition order, not key order.
 */
import { type NodeId, type Ring, TesseraError } from '@tessera/core';
import { replicasOf } from '../anti-entropy/replicas-of.js';
import type { PeerDirectory } from '../cluster/peers.js';
import type { ListKeysReply, ListKeysRequest } from '../transport/peer-api.js';

/** Stored entries (tombstones and keys without the prefix included) one page scans, at most. */
export const PAGE_SCAN_MAX = 10_000;
/** Keys one partition call asks for, at most (the ListKeys limit, transport/convert.ts). */
const CALL_KEYS_MAX = 1_000;
/** Entries and partition calls of a page that run without asking the admission gate. */
export const PAGE_FOREGROUND_UNITS = 1_000;

/** Where a listing stands: the next partition to scan, and the key of it to resume after. */
export interface ListPosition {
  readonly partition: number;
  readonly afterKey?: string;
}

export interface ListRequest {
  /** Only keys that start with this; empty for all. */
  readonly prefix: string;
  /** Keys in the page, at most. */
  readonly limit: number;
  /** Where to start: `{ partition: 0 }` for a new listing. */
  readonly from: ListPosition;
  /** The page's deadline; new partition calls stop at half of it. */
  readonly timeoutMs: number;
}

export interface ListPage {
  /** Live keys with the prefix, in partition order. */
  readonly keys: string[];
  /** Where the next page starts; undefined when every partition was scanned to its end. */
  readonly next: ListPosition | undefined;
  /** Stored entries scanned for this page, on every replica asked. */
  readonly scanned: number;
}

/** The background gate, as a listing asks it (its kind of work is chosen by whoever wires it). */
export interface ListingGate {
  tryAcquire(cost: number): boolean;
}

export interface CoverageDeps {
  readonly self: NodeId;
  /** N: replicas per key. */
  readonly n: number;
  readonly ring: () => Ring;
  /** This node's own scan of a partition (partition-keys.ts `scanPartitionKeys` on its store). */
  readonly local: (request: ListKeysRequest) => Promise<ListKeysReply>;
  readonly peers: Pick<PeerDirectory, 'isDown' | 'call'>;
  readonly gate: ListingGate;
  /** The largest cost asked of the gate at once (its minimum rate, so it is always admitted eventually). */
  readonly gateCostMax: number;
  readonly peerTimeoutMs: number;
  readonly now: () => number;
}

export class Coverage {
  constructor(private readonly deps: CoverageDeps) {}

  async list(request: ListRequest): Promise<ListPage> {
    const { deps } = this;
    const ring = deps.ring();
    const startedMs = deps.now();
    const stopMs = startedMs + request.timeoutMs / 2;
    const deadlineMs = startedMs + request.timeoutMs;
    const keys: string[] = [];
    let position: ListPosition | undefined = checkedPosition(request.from, ring);
    let scanned = 0;
    let calls = 0;
    let paid = 0;
    while (position !== undefined && keys.length < request.limit && scanned < PAGE_SCAN_MAX) {
      const units = scanned + calls;
      if (calls > 0) {
        if (deps.now() >= stopMs) break;
        // Past its foreground allowance a page pays the gate for what it scanned, before going on.
        const debt = units - PAGE_FOREGROUND_UNITS - paid;
        if (debt > 0) {
          if (!deps.gate.tryAcquire(Math.min(debt, deps.gateCostMax))) break;
          paid += debt;
        }
      }
      const budget = PAGE_SCAN_MAX - scanned;
      // Within the allowance a call scans up to its end; past it, what one payment covers.
      const scanMax =
        units < PAGE_FOREGROUND_UNITS
          ? Math.min(budget, PAGE_FOREGROUND_UNITS - units)
          : Math.min(budget, Math.max(1, deps.gateCostMax - 1));
      const call: ListKeysRequest = {
        partition: position.partition,
        ...(position.afterKey === undefined ? {} : { afterKey: position.afterKey }),
        prefix: request.prefix,
        keysMax: Math.min(request.limit - keys.length, CALL_KEYS_MAX),
        scanMax,
      };
      let reply: ListKeysReply;
      try {
        reply = await this.askPartition(ring, call, deadlineMs);
      } catch (err) {
        // A later partition failing ends the page where it stands; the next page asks it again.
        if (calls === 0) throw err;
        break;
      }
      calls++;
      keys.push(...reply.keys);
      scanned += reply.scanned;
      position = advance(position, reply, ring.partitionCount);
    }
    return { keys, next: position, scanned };
  }

  /** One partition's keys from one live replica: this node first when it is one, then the others. */
  private async askPartition(ring: Ring, call: ListKeysRequest, deadlineMs: number): Promise<ListKeysReply> {
    const { deps } = this;
    const replicas = replicasOf(ring, call.partition, deps.n);
    const order = [
      ...replicas.filter((node) => node === deps.self),
      ...replicas.filter((node) => node !== deps.self && !deps.peers.isDown(node)),
      // Nodes believed down are asked last: the belief may be stale.
      ...replicas.filter((node) => node !== deps.self && deps.peers.isDown(node)),
    ];
    const failures: { node: NodeId; code: string }[] = [];
    for (const node of order) {
      const timeoutMs = Math.min(deps.peerTimeoutMs, deadlineMs - deps.now());
      if (timeoutMs <= 0) {
        failures.push({ node, code: 'TIMEOUT' });
        break;
      }
      try {
        if (node === deps.self) return await deps.local(call);
        return await deps.peers.call(node, (client) => {
          if (client.listKeys === undefined) {
            throw new TesseraError('NOT_SUPPORTED', `The client for ${node} cannot list keys.`);
          }
          return client.listKeys(call, timeoutMs);
        });
      } catch (err) {
        failures.push({ node, code: TesseraError.is(err) ? err.code : 'INTERNAL' });
      }
    }
    throw new TesseraError(
      'INSUFFICIENT_REPLICAS',
      `No replica of partition ${call.partition} answered the listing (asked ${failures.map((f) => f.node).join(', ') || 'none'}). Retry with the same cursor when a replica is up.`,
      { partition: call.partition, needed: 1, answered: 0, asked: failures.length, failures },
    );
  }
}

/** The position after a reply: further in the same partition, or the start of the next one. */
function advance(from: ListPosition, reply: ListKeysReply, partitionCount: number): ListPosition | undefined {
  if (!reply.done) {
    const afterKey = reply.lastKey ?? from.afterKey;
    if (afterKey === undefined || reply.scanned === 0) {
      throw new TesseraError('INTERNAL', `A listing of partition ${from.partition} made no progress.`);
    }
    return { partition: from.partition, afterKey };
  }
  const partition = from.partition + 1;
  return partition < partitionCount ? { partition } : undefined;
}

function checkedPosition(from: ListPosition, ring: Ring): ListPosition | undefined {
  if (!Number.isInteger(from.partition) || from.partition < 0) {
    throw new TesseraError('BAD_REQUEST', `A listing cannot start at partition ${from.partition}.`);
  }
  return from.partition < ring.partitionCount ? from : undefined;
}
