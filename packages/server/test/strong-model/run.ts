/**
 * One run of the strong-key model: the plan's clients and faults for ACTIVE_MS of simulated time,
 * then every fault heals and the cluster settles (nodes up and rebuilt, the ring change committed
 * everywhere, every client answered), and every majority of each key's primaries must hold what
 * the clients saw. Then time passes every transaction's expiry with only the recovery sweep at
 * work: every transaction record must be committed or cancelled and no key may hold the intent of
 * a pending one. Last, every node reads every key (the reads join the history), the history must
 * be linearizable key by key, and the bank's invariants must hold.
 */
import { createRng, decodeTxnRecord, type Register, txnRecordKey } from '@tessera/core';
import { checkBank, checkHistories, checkQuorums, type LinearizabilityStats } from './checks.js';
import { Cluster } from './cluster.js';
import { type Hooks, TIMING } from './node.js';
import { ACCOUNT_KEYS, ACTIVE_MS, COLD_KEYS, type Plan, STOCK_KEYS } from './plan.js';
import { START_MS } from './sim.js';
import { Workload } from './workload.js';

/** After the heal, how long the cluster has to settle. */
const SETTLE_MS = 30_000;
/** Past the latest expiry (clocks stepped up to 3 s ahead when intents were placed) with sweeps. */
const SWEEP_MS = TIMING.txnTimeoutMs + 3_000 + 3_000;

export interface Verdict {
  readonly problems: string[];
  readonly events: readonly string[];
  readonly stats: LinearizabilityStats & { simEvents: number; messages: number; transfers: number };
}

export async function runPlan(plan: Plan, hooks: Hooks = {}): Promise<Verdict> {
  const cluster = new Cluster(plan, createRng(plan.seed), hooks);
  const workload = new Workload(cluster);
  const { sim } = cluster;
  const stats = { ops: 0, cutOff: 0, simEvents: 0, messages: 0, transfers: 0 };
  const problems: string[] = [];
  try {
    await cluster.start(plan);
    workload.start(plan.clients, plan.coldAtMs);
    await sim.runUntil(START_MS + ACTIVE_MS);
    cluster.heal();
    if (!(await sim.runUntil(sim.now + SETTLE_MS, () => workload.done && cluster.settled()))) {
      problems.push(`not settled ${SETTLE_MS} ms after the heal (clients done: ${workload.done})`);
    } else {
      problems.push(...(await checkQuorums(cluster, workload.history)));
      await sim.runUntil(sim.now + SWEEP_MS);
      problems.push(...(await checkLeftovers(cluster, workload)));
      problems.push(...(await finalReads(cluster, workload)));
      problems.push(...checkHistories(workload.history, stats));
    }
  } finally {
    cluster.stop();
  }
  stats.simEvents = sim.events;
  stats.messages = cluster.net.stats.sent;
  stats.transfers = workload.transfers.length;
  return { problems, events: cluster.events, stats };
}

/** Runs the simulation until `promise` settles; its result. */
async function drive<T>(cluster: Cluster, promise: Promise<T>): Promise<T> {
  let settled = false;
  const watched = promise.finally(() => {
    settled = true;
  });
  watched.catch(() => undefined);
  await cluster.sim.runUntil(cluster.sim.now + 4 * TIMING.requestTimeoutMs, () => settled);
  if (!settled) throw new Error('a final read got no answer');
  return watched;
}

/** A linearizable read of `key`'s register as it is, intent and all, through node n1. */
async function rawRead(cluster: Cluster, key: string): Promise<Register> {
  const read = cluster.nodes[0]!.call((p, deadline) =>
    p.proposer.change(key, () => ({ result: 0 }), deadline),
  );
  return (await drive(cluster, read)).register;
}

async function checkLeftovers(cluster: Cluster, workload: Workload): Promise<string[]> {
  const problems: string[] = [];
  const txns = new Set([...workload.txnIds, ...cluster.txnIds]);
  for (const key of [...STOCK_KEYS, ...ACCOUNT_KEYS]) {
    const { intent } = await rawRead(cluster, key);
    if (intent !== undefined) txns.add(intent.txn);
  }
  for (const txn of txns) {
    const record = decodeTxnRecord((await rawRead(cluster, txnRecordKey(txn))).value);
    if (record?.status === 'pending')
      problems.push(`transaction ${txn} is still pending after its expiry and the sweeps`);
  }
  return problems;
}

/**
 * A final get of every key through every node at once (each node's first look, before another's
 * read repairs what it sees), then the bank check on n1's reads of the accounts.
 */
async function finalReads(cluster: Cluster, workload: Workload): Promise<string[]> {
  const { sim } = cluster;
  const reads = cluster.nodes.map((node) =>
    node.call(async (p, deadline) => {
      const items = [];
      for (const key of [...STOCK_KEYS, ...COLD_KEYS, ...ACCOUNT_KEYS]) {
        const callMs = sim.now;
        const register = await p.keys.get(key, deadline);
        const output = register.value === undefined ? {} : { value: register.value };
        const read = { ok: true as const, ...output, version: register.version };
        workload.history.push({
          key,
          process: -1,
          input: { f: 'read' },
          callMs,
          returnMs: sim.now,
          output: read,
        });
        items.push({ key, register });
      }
      return items;
    }),
  );
  const items = (await drive(cluster, Promise.all(reads)))[0]!;
  return checkBank(workload, {
    items: items.filter((i) => (ACCOUNT_KEYS as readonly string[]).includes(i.key)),
  });
}
