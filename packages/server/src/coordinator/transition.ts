/**
 * Writes during a ring change (paper 4.9): while a change is pending, a write also goes to the
 * replicas the key gains in the next ring, so nothing written during a transfer is lost when the
 * next ring commits. A new replica that fails gets a hint, handed off when it answers again.
 */
import { partitionOf, type Ring, replicasOf } from '@tessera/core';
import type { HintStore } from '../storage/hint-store.js';
import type { FanOut } from './fan-out.js';
import type { Replicas } from './replicas.js';

/** The rings a write saw when it was coordinated; `next` only while a change is pending. */
export interface WriteRings {
  readonly ring: Ring;
  readonly next: Ring | undefined;
}

export async function replicateToNextRing(
  replicas: Replicas,
  hints: HintStore,
  w: FanOut,
  rings: WriteRings,
): Promise<void> {
  if (rings.next === undefined) return;
  const p = partitionOf(rings.ring.partitionCount, w.key);
  const current = new Set(replicasOf(rings.ring, p, w.n));
  const gained = replicasOf(rings.next, p, w.n).filter((node) => !current.has(node));
  const timeoutMs = Math.max(1, w.deadline - w.now());
  await Promise.all(
    gained.map(async (node) => {
      try {
        await replicas.replicate(node, w.key, w.state, w.encoded, timeoutMs);
      } catch {
        if (node !== w.self) await hints.add(node, w.key, w.state);
      }
    }),
  );
}
