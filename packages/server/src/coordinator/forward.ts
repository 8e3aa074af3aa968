/**
 * Forwarding a write to the node that should coordinate it (paper section 5): the replica a
 * context names (the read's own coordinator when a replica, else its fastest replica), or a
 * replica of the key when this node is not one. A node that cannot be reached is skipped; when none
 * can, the caller coordinates the write itself (as a fallback: sloppy quorum, paper 4.6).
 */
import { type NodeId, TesseraError } from '@tessera/core';
import type { PeerDirectory } from '../cluster/peers.js';
import { type CoordinateRequest, failedBeforeSending } from '../transport/peer-api.js';
import type { WriteResult } from './receipt.js';

/**
 * The nodes to forward to, in order, or undefined to coordinate here: the context's coordinator
 * when it is another replica not known to be down (alone when this node is a replica too), else
 * every replica when this node is not one.
 */
export function forwardOrder(
  self: NodeId,
  named: NodeId | undefined,
  replicas: readonly NodeId[],
  isDown: (node: NodeId) => boolean,
): NodeId[] | undefined {
  const chosen =
    named === undefined || named === self || !replicas.includes(named) || isDown(named) ? undefined : named;
  const isReplica = replicas.includes(self);
  if (chosen === undefined) return isReplica ? undefined : [...replicas];
  return isReplica ? [chosen] : [chosen, ...replicas.filter((n) => n !== chosen)];
}

/** Hands the write to the first reachable node of `order`; undefined when none could be reached. */
export async function forwardWrite(
  peers: PeerDirectory,
  now: () => number,
  order: readonly NodeId[],
  write: CoordinateRequest,
): Promise<WriteResult | undefined> {
  const deadline = now() + write.timeoutMs;
  for (const node of order.filter((n) => !peers.isDown(n))) {
    const client = peers.client(node);
    if (client === undefined) continue;
    try {
      const timeoutMs = Math.max(1, deadline - now());
      const reply = await client.coordinate({ ...write, timeoutMs }, timeoutMs);
      peers.markAlive(node);
      // A node of an older version sends no receipt.
      return reply.stored === undefined
        ? { context: reply.context }
        : { context: reply.context, stored: reply.stored };
    } catch (err) {
      if (!TesseraError.is(err, 'PEER_UNAVAILABLE')) throw err;
      peers.markFailed(node, err);
      // Only a call that surely never left is surely untouched. Any other (a coordinator killed
      // mid-write answers "Connection dropped") may have stamped and sent a version: coordinating
      // the write again would make a second version of it, which a later write that saw only one
      // would not replace (a removed item back in a cart).
      if (!failedBeforeSending(err)) throw mayHaveApplied(node, err);
    }
  }
  return undefined;
}

function mayHaveApplied(node: NodeId, err: TesseraError): TesseraError {
  return new TesseraError(
    'PEER_UNAVAILABLE',
    `Node ${node}, coordinating this write, failed before it answered; the write may have been applied. Read the key before writing it again.`,
    { peer: node },
    { cause: err },
  );
}
