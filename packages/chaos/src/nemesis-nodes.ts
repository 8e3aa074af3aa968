/**
 * Faults of node processes: kill -9 and restart; a clock jumped ahead or behind; a clock stepped
 * back across a restart; a wipe of the data dir and a rejoin under the same node id.
 */
import { between, pick, shuffled } from '@tessera/core';
import { type FaultDeps, runningMembers, type Started } from './nemesis-types.js';
import { addAfter, addBefore } from './probes.js';

/** kill -9 one node, or two, and restart them at the end of the window. */
export async function kill(deps: FaultDeps): Promise<Started> {
  const { cluster, random } = deps;
  const count = random() < 0.3 ? 2 : 1;
  const victims = shuffled(random, runningMembers(deps)).slice(0, count).sort();
  for (const id of victims) await cluster.kill(id);
  return {
    detail: victims.join(','),
    nodes: victims,
    end: async () => {
      for (const id of victims) await cluster.start(id);
    },
  };
}

/** kill -9 a node and restart it with its clock ahead or behind; the clock jumps back at the end. */
export async function clock(deps: FaultDeps): Promise<Started> {
  const { cluster, random, clockSkewMaxMs } = deps;
  const node = pick(random, [...deps.members()]);
  const skewMs = between(random, clockSkewMaxMs / 4, clockSkewMaxMs) * (random() < 0.5 ? -1 : 1);
  await cluster.restartWithClock(node, skewMs);
  return {
    detail: `${node} ${seconds(skewMs)}`,
    nodes: [node],
    end: async () => cluster.restartWithClock(node, 0),
  };
}

/**
 * A node's clock steps back across a restart: kill -9 (half the time a clean stop instead), start
 * with its clock `clockSkewMaxMs` behind where it was. A blind add through it to a key before, and
 * another after: the version it stamps after must not pass for one the others already saw. The
 * clock stays behind (a jump forward shortens the tombstone grace on the node: not guaranteed safe).
 */
export async function clockBack(deps: FaultDeps): Promise<Started> {
  const { cluster, random, probes } = deps;
  const node = pick(random, runningMembers(deps));
  const before = cluster.clockOffsetMs(node);
  const behind = stepBack(before, deps.clockSkewMaxMs);
  const clean = random() < 0.5;
  const probe = await addBefore(probes, node, 'clock-back');
  await cluster.restartWithClock(node, behind, clean);
  await addAfter(probes, probe);
  const how = clean ? 'stopped' : 'killed';
  return {
    detail: `${node} ${how}, ${seconds(before)} to ${seconds(behind)}${probe === undefined ? '' : `, writes on ${probe.key}`}`,
    nodes: [node],
    end: async () => {},
  };
}

/**
 * An operator's replaced disk: kill -9 a member, empty its data dir and start it again under the
 * same node id with another member as its seed; no leave, no remove. Half the time its clock also
 * comes back behind (and stays so). A blind add through it to a key before the wipe, and another
 * after: the node no longer holds the first, and its new version must not claim to have seen it.
 */
export async function wipe(deps: FaultDeps): Promise<Started> {
  const { cluster, random, probes } = deps;
  const live = runningMembers(deps);
  if (live.length < 2) throw new Error('a wipe needs another running member as the seed');
  const node = pick(random, live);
  const through = pick(
    random,
    live.filter((id) => id !== node),
  );
  const before = cluster.clockOffsetMs(node);
  const after = random() < 0.5 ? stepBack(before, deps.clockSkewMaxMs) : before;
  const probe = await addBefore(probes, node, 'wipe');
  await cluster.wipeAndRejoin(node, through, after);
  await addAfter(probes, probe);
  const clockNote = after === before ? '' : `, clock ${seconds(after)}`;
  return {
    detail: `${node} rejoined through ${through}${clockNote}${probe === undefined ? '' : `, writes on ${probe.key}`}`,
    nodes: [node],
    end: async () => {},
  };
}

/** Nodes refuse offsets beyond a day; steps back stop short of it. */
const OFFSET_MIN_MS = -23 * 3_600_000;

function stepBack(offsetMs: number, byMs: number): number {
  return Math.max(OFFSET_MIN_MS, offsetMs - byMs);
}

function seconds(ms: number): string {
  return `${ms > 0 ? '+' : ''}${Math.round(ms / 1000)}s`;
}
