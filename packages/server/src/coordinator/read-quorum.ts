/**
 * A quorum read (paper section 5): ask the first N healthy nodes of the key's preference list
 * (sloppy quorum), merge the first R answers, and once every replica answered (or failed), repair
 * the stale ones. A node that turns out unreachable during the read is stood in for by the next
 * healthy one, as in a write (fan-out.ts). Replicas that agree answer the same bytes: only
 * differing versions are decoded and merged (storage/stored-version.ts).
 */
import { type KeyState, type NodeId, primariesOf, sameState, sloppyTargets } from '@tessera/core';
import { allAgree, mergeVersions, type StoredVersion } from '../storage/stored-version.js';
import type { Deadlines } from '../util/deadlines.js';
import { collectQuorum, type ReplicaReply, withStandIns } from './quorum.js';
import type { Replicas } from './replicas.js';

export interface QuorumRead {
  readonly state: KeyState;
  /**
   * The replica that coordinates a write with this read's context (paper 6.4: one that holds what
   * the read saw): this node when it is a replica and its own copy is in the answer, so that the
   * write is not forwarded back out; else the replica that answered first.
   */
  readonly nextCoordinator: NodeId | undefined;
}

export interface ReadSettings {
  readonly n: number;
  readonly r: number;
  readonly timeoutMs: number;
  readonly peerTimeoutMs: number;
}

export async function readQuorum(
  self: NodeId,
  replicas: Replicas,
  deadlines: Deadlines,
  preference: readonly NodeId[],
  key: string,
  settings: ReadSettings,
): Promise<QuorumRead> {
  const { n, r, timeoutMs } = settings;
  const { targets, spares } = sloppyTargets(preference, n, (node) => replicas.isDown(node));
  const peerTimeoutMs = Math.min(timeoutMs, settings.peerTimeoutMs);
  let own: StoredVersion | undefined;
  /** This node's own read answered (`own` stays undefined when it holds nothing of the key). */
  let ownAnswered = false;
  const read = (node: NodeId): Promise<StoredVersion | undefined> => {
    const version = replicas.readVersion(node, key, peerTimeoutMs, () => own);
    if (node !== self) return version;
    return version.then((mine) => {
      own = mine;
      ownAnswered = true;
      return mine;
    });
  };
  let ownRead: Promise<StoredVersion | undefined> | undefined;
  const calls = targets.map(({ node }) => {
    const call = {
      node,
      run: () => {
        // A call's node becomes the spare that stands in for it, so its reply is counted as the
        // spare's (read repair and `nextCoordinator` look at primaries only).
        const answer = withStandIns(node, undefined, spares, (at) => {
          call.node = at;
          return read(at);
        });
        if (node === self) ownRead = answer;
        return answer;
      },
    };
    return call;
  });
  const outcome = await collectQuorum(calls, r, timeoutMs, 'read', deadlines);
  // This node's own copy, when it is a replica, is always part of the answer (it costs no message):
  // R others may answer first, fallbacks standing in that hold nothing of the key among them, and a
  // read through the node that just coordinated a write must not miss it. A local failure, or a
  // local read slower than a replica may be (peerTimeoutMs), leaves the answer to the others.
  if (ownRead !== undefined && !ownAnswered) await settledWithin(ownRead, peerTimeoutMs, deadlines);
  // This node's version first: when all agree, the merge is its cached state (a frozen object a
  // hot key's reads share, so its context and body are made once: coordinator.ts, render.ts).
  const versions = outcome.replies.map((reply) => reply.value);
  const state = mergeVersions(own !== undefined ? [own, ...versions.filter((v) => v !== own)] : versions);
  const primaries = primariesOf(preference, n);
  // A write with the context through this node is then coordinated here: forwarding it to a peer
  // that happened to answer first costs a peer call and that peer's coordination, for nothing.
  const nextCoordinator =
    ownAnswered && primaries.includes(self)
      ? self
      : outcome.replies.find((reply) => primaries.includes(reply.node))?.node;
  outcome.settled.then(
    (all) =>
      readRepair(
        replicas,
        key,
        all.filter((reply) => primaries.includes(reply.node)),
        settings.peerTimeoutMs,
      ),
    () => {},
  );
  return { state, nextCoordinator };
}

/** Waits for `promise` to settle, at most `timeoutMs`; never rejects. */
function settledWithin(promise: Promise<unknown>, timeoutMs: number, deadlines: Deadlines): Promise<void> {
  return new Promise<void>((resolve) => {
    const cancel = deadlines.add(timeoutMs, resolve);
    const done = (): void => {
      cancel();
      resolve();
    };
    promise.then(done, done);
  });
}

/** Paper section 5: once every replica answered (or failed), bring the stale ones up to date. */
function readRepair(
  replicas: Replicas,
  key: string,
  replies: ReplicaReply<StoredVersion | undefined>[],
  peerTimeoutMs: number,
): void {
  const ok = replies.filter((r) => r.ok);
  const versions = ok.map((r) => r.value);
  if (allAgree(versions)) return;
  const merged = mergeVersions(versions);
  if (merged.vv.length === 0) return;
  for (const reply of ok) {
    if (reply.value !== undefined && sameState(reply.value.state(), merged)) continue;
    // A replica with nothing needs no tombstone: anti-entropy treats the two alike (docs/consistency.md).
    if (reply.value === undefined && merged.siblings.length === 0) continue;
    replicas.repair(reply.node, key, merged, peerTimeoutMs);
  }
}
