/**
 * kill -9 in the middle of a write's fan-out. The node's fault injection is armed
 * (`crashMidWrite`): the next write it coordinates is sent to the other replicas, then the node
 * kills itself before its own copy is written and before the client is answered. The nemesis
 * makes that write itself: on a set key it replicates, a blind add through the node, then an add
 * with that add's context (the context names the node, so it coordinates), which replaces the
 * first version on the others but never reaches the node's own disk; a second add with that
 * context goes through the node at the same time, while it dies. The node is restarted on
 * its data dir and a blind add goes through it again: the crashed write's version must not be
 * taken for one the node's new version has seen, or the first, acknowledged, add is lost with it.
 * When a workload's write took the crash instead, the sequence is tried again on another key.
 */
import { pick } from '@tessera/core';
import { type FaultDeps, runningMembers, type Started } from './nemesis-types.js';
import { addAfter, type SetProbe, setHolds } from './probes.js';
import { putAdd } from './workloads/set.js';

/** How long the armed node has to die once the write is sent (the workloads' writes may crash it first). */
const CRASH_WAIT_MS = 10_000;
const ATTEMPTS = 3;

export async function crashWrite(deps: FaultDeps): Promise<Started> {
  const { cluster, random } = deps;
  const node = pick(random, runningMembers(deps));
  const keys: string[] = [];
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const { probe, reached } = await crashOnce(deps, node);
    keys.push(probe.key);
    await cluster.start(node);
    await addAfter(deps.probes, probe);
    if (reached) break;
  }
  return { detail: `${node} crashed writing ${keys.join(', ')}`, nodes: [node], end: async () => {} };
}

/**
 * One try: arm the node, send the write that should crash it, wait for it to die. `reached`: the
 * write was not acknowledged and another replica holds its version (so it, not a workload's write,
 * took the crash).
 */
async function crashOnce(deps: FaultDeps, node: string): Promise<{ probe: SetProbe; reached: boolean }> {
  const { cluster, probes } = deps;
  const found = await probes.keyOn('set', 'crash-write', [node], node);
  if (found === undefined) throw new Error(`no probe key replicated on ${node}`);
  const probe = { ...found, node };
  const target = probes.target(node);
  const first = probes.nextId();
  const context = await putAdd(probes.recorder, probe.key, first, target);
  if (context !== undefined) await probes.waitHeld(probe.key, probe.replicas, setHolds(first));
  await cluster.api(node).armCrashMidWrite();
  const carried = context === undefined ? undefined : { carried: [first], context };
  // Two adds at once: one takes the crash; the other, in its group or after it before the kill,
  // must not be stamped with the crashed version's dot (the replicas holding that version would
  // take it for the other, and an acknowledged add would be lost).
  // Each from its own process: a history process runs one op at a time.
  const recorders = [probes.recorder, { ...probes.recorder, process: `${probes.recorder.process}-2` }];
  const adds = [probes.nextId(), probes.nextId()];
  const acknowledged = await Promise.all(
    adds.map(async (add, i) => (await putAdd(recorders[i]!, probe.key, add, target, carried)) !== undefined),
  );
  if (!(await cluster.waitExited(node, CRASH_WAIT_MS))) {
    await cluster
      .api(node)
      .clearFaults()
      .catch(() => {});
    throw new Error(
      `${node} was armed with crashMidWrite but still ran ${CRASH_WAIT_MS} ms after a write through it`,
    );
  }
  const others = probe.replicas.filter((id) => id !== node);
  const held = await Promise.all(others.map((id) => cluster.localValues(id, probe.key).catch(() => [])));
  const crashed = (add: number, i: number) => !acknowledged[i] && held.some(setHolds(add));
  return { probe, reached: adds.some(crashed) };
}
