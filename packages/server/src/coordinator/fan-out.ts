/**
 * Sending a new version to its replicas under a sloppy quorum (paper 4.6): the first N healthy
 * nodes of the preference list, fallbacks carrying a hint for the primary they stand in for.
 * When a target fails mid-request, the next healthy fallback takes its place with a hint, so a
 * write reaches W nodes whenever W nodes are reachable.
 */
import { type KeyState, type NodeId, sloppyTargets, type Target } from '@tessera/core';
import type { Deadlines } from '../util/deadlines.js';
import { Collector, standIn } from './quorum.js';
import type { WriteAcks } from './receipt.js';
import type { Replicas } from './replicas.js';

export interface FanOut {
  readonly self: NodeId;
  readonly key: string;
  readonly preference: readonly NodeId[];
  readonly n: number;
  readonly w: number;
  readonly state: KeyState;
  readonly encoded: Uint8Array;
  readonly deadline: number;
  readonly now: () => number;
  /** The coordinator's write of the version to its own store: its ack. */
  readonly localWrite: Promise<unknown>;
  readonly deadlines: Deadlines;
  /** Where every acknowledgement is recorded as it arrives (the write's receipt). */
  readonly acks: WriteAcks;
}

/**
 * Resolves once W targets acknowledged. The coordinator stores the version in its own data
 * (`localWrite`), which is its acknowledgement when it is a primary; as a fallback it also keeps a
 * hint for the primary it stands in for. Callbacks into one collector, not a promise chain per
 * target: every put runs this (about ten promises fewer per put on its coordinator).
 */
export function replicateWrite(replicas: Replicas, f: FanOut): Promise<void> {
  const { targets, spares } = sloppyTargets(f.preference, f.n, (node) => replicas.isDown(node));
  return new Promise<void>((resolve, reject) => {
    const collector = new Collector<undefined>(targets.length, f.w, 'write', (error) => {
      if (error === undefined) resolve();
      else reject(error);
    });
    collector.begin(f.deadlines, remainingMs(f));
    for (const target of targets) send(replicas, f, target, spares, collector);
  });
}

/** Sends the version to one target (or a spare standing in for it) and records its reply. */
function send(
  replicas: Replicas,
  f: FanOut,
  target: Target,
  spares: NodeId[],
  collector: Collector<undefined>,
): void {
  const { node } = target;
  const failed = (error: unknown): void => collector.record({ node, ok: false, error });
  if (node === f.self && target.hint === undefined) {
    f.localWrite.then(() => {
      f.acks.add(f.self);
      collector.record({ node, ok: true });
    }, failed);
    return;
  }
  standIn(
    node,
    target.hint,
    spares,
    (at, hint) => replicas.replicate(at, f.key, f.state, f.encoded, remainingMs(f), hint),
    (_, at, hint) => {
      // Recorded in the receipt before the quorum counts it: the answer lists every ack it counted.
      f.acks.add(at, hint);
      collector.record({ node, ok: true });
    },
    failed,
  );
}

function remainingMs(f: FanOut): number {
  return Math.max(1, f.deadline - f.now());
}
