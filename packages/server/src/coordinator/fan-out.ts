/**
 * Sending a new version to its replicas under a sloppy quorum (paper 4.6): the first N healthy
 * nodes of the preference list, fallbacks carrying a hint for the primary they stand in for.
 * When a target fails mid-request, the next healthy fallback takes its place with a hint, so a
 * write reaches W nodes whenever W nodes are reachable.
 */
import { type KeyState, type NodeId, sloppyTargets, type Target } from '@tessera/core';
import type { Deadlines } from '../util/deadlines.js';
import { collectQuorum, withStandIns } from './quorum.js';
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
 * hint for the primary it stands in for.
 */
export async function replicateWrite(replicas: Replicas, f: FanOut): Promise<void> {
  const { targets, spares } = sloppyTargets(f.preference, f.n, (node) => replicas.isDown(node));
  const remaining = (): number => Math.max(1, f.deadline - f.now());
  // Plain promise chains, no async wrappers: every put runs this once per replica.
  const send = (target: Target): Promise<void> => {
    if (target.node === f.self && target.hint === undefined) {
      return f.localWrite.then(() => f.acks.add(f.self));
    }
    return withStandIns(target.node, target.hint, spares, (node, hint) =>
      replicas
        .replicate(node, f.key, f.state, f.encoded, remaining(), hint)
        .then(() => f.acks.add(node, hint)),
    );
  };
  const calls = targets.map((target) => ({ node: target.node, run: () => send(target) }));
  await collectQuorum(calls, f.w, remaining(), 'write', f.deadlines);
}
