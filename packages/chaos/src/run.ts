/**
 * One chaos run: start the cluster behind the proxies (create the bank's accounts), run the
 * workloads while the nemesis breaks things, heal, wait for the ring to settle, read every plain
 * key from every replica until they agree, read every strong key and settle every transfer left
 * unknown (strong-final.ts), then check the history and write the summary and the timeline.
 */
import { setMaxListeners } from 'node:events';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRng } from '@tessera/core';
import { check } from './checker/index.js';
import type { CheckReport } from './checker/types.js';
import { CHAOS_NODE_SETTINGS, ChaosCluster } from './cluster.js';
import { finalReads, waitForSettledRing } from './final.js';
import { History, type WeakWorkload, type Workload } from './history.js';
import { type FaultKind, Nemesis } from './nemesis.js';
import type { ChaosOptions } from './options.js';
import { strongFinal } from './strong-final.js';
import { formatSummary } from './summary.js';
import { renderTimeline } from './timeline.js';
import { BANK_DEFAULTS, BankLedger, bankStep, setupBank } from './workloads/bank.js';
import { cartStep } from './workloads/cart.js';
import { lwwStep } from './workloads/lww.js';
import { PinnedClients } from './workloads/pinned.js';
import { registerStep } from './workloads/register.js';
import { setStep } from './workloads/set.js';
import { type StrongRoutes, strongRoutes } from './workloads/strong-http.js';
import {
  createClient,
  type Isolation,
  runWorker,
  type Step,
  type WorkerContext,
} from './workloads/worker.js';

/** Listeners on the run's stop signals at most: a few per worker, of up to 9 workers per workload. */
const LISTENERS_MAX = 200;

const SETTLE_AT_START_MS = 60_000;
/** Bound on creating the bank's accounts at the start. */
const BANK_SETUP_MS = 30_000;
/** How long the run waits for ops in flight at the end before aborting them. */
const DRAIN_MS = 15_000;
const PROGRESS_MS = 1_000;

export interface ChaosResult {
  readonly report: CheckReport;
  readonly summary: string;
  readonly runDir: string;
  /** How many windows of each fault kind ran. */
  readonly faults: Readonly<Record<string, number>>;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const runDir = join(
    options.outDir,
    `${new Date().toISOString().replace(/[:.]/g, '-')}-seed${options.seed}`,
  );
  const nodesDir = join(runDir, 'nodes');
  await mkdir(nodesDir, { recursive: true });
  const history = new History(join(runDir, 'history.jsonl'));
  const random = createRng(options.seed);
  const spares = options.faults.includes('membership') ? 1 : 0;
  const cluster = await ChaosCluster.create({
    members: options.nodes,
    spares,
    dir: nodesDir,
    cliPath: options.cliPath,
    random: createRng(options.seed ^ 0x5bd1e995),
    logLevel: options.nodeLogLevel,
    network: options.netns ? 'netns' : 'proxy',
  });
  let counter = 0;
  const nextId = (): number => ++counter;
  let nemesis: Nemesis | undefined;
  try {
    await cluster.startAll();
    if (!(await waitForSettledRing(cluster, cluster.initialMembers, SETTLE_AT_START_MS)))
      throw new Error(`the initial cluster did not settle; see the node logs in ${nodesDir}`);
    nemesis = new Nemesis({
      cluster,
      history,
      random,
      faults: options.faults,
      windowMs: options.faultHoldMs,
      gapMs: options.faultGapMs,
      clockSkewMaxMs: options.clockSkewMaxMs,
      // A leave may take the ring one below its initial size (N=3 needs no more than 3 members).
      membersMin: options.nodes - 1,
      tombstoneGraceMs: CHAOS_NODE_SETTINGS.tombstoneGraceMs,
      nextId,
      bank: options.workloads.includes('bank'),
    });
    const live = nemesis;
    const routes = strongRoutes({
      members: () => live.members(),
      running: (id) => cluster.running(id),
      url: (id) => cluster.url(id),
      crashTarget: () => live.transactionCrashTarget(),
    });
    // The strong workloads draw their nodes from a random source of their own, so a seed's weak run stays as it was.
    const strongRandom = createRng(options.seed ^ 0x2545f491);
    let ledger: BankLedger | undefined;
    if (options.workloads.includes('bank')) {
      ledger = new BankLedger(BANK_DEFAULTS);
      const rec = { process: 'bank-setup', history };
      await setupBank(rec, routes, strongRandom, ledger.setup, BANK_SETUP_MS);
    }
    const chaos = await runPhase({ options, cluster, history, nemesis, random, nextId, routes, ledger });
    history.add({ kind: 'phase', atMs: history.now(), phase: 'heal' });
    await nemesis.healAll();
    const healedAtMs = history.now();
    const members = nemesis.finalMembers();
    const settled = await waitForSettledRing(cluster, members, options.convergeTimeoutS * 1000);
    history.add({ kind: 'phase', atMs: history.now(), phase: settled ? 'settled' : 'unsettled' });
    history.add({ kind: 'phase', atMs: history.now(), phase: 'final-read' });
    await finalReads({
      cluster,
      history,
      observer: members[0] ?? 'n0',
      n: 3,
      keys: chaos.keys,
      healedAtMs,
      timeoutMs: options.convergeTimeoutS * 1000,
    });
    if (options.workloads.some((w) => w === 'register' || w === 'bank')) {
      history.add({ kind: 'phase', atMs: history.now(), phase: 'strong-final' });
      await strongFinal({
        history,
        routes,
        random: strongRandom,
        registerKeys: chaos.registerKeys,
        ...(ledger === undefined ? {} : { ledger }),
        timeoutMs: options.convergeTimeoutS * 1000,
      });
    }
    history.add({ kind: 'phase', atMs: history.now(), phase: 'done' });
    await history.close();
    const report = check(history.events);
    const faults = countFaults(history);
    const summary = formatSummary(report, {
      seed: options.seed,
      durationS: options.durationS,
      faults,
      nemesisFailures: nemesis.failures,
      runDir,
    });
    await writeFile(join(runDir, 'summary.json'), `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(join(runDir, 'summary.txt'), summary);
    await writeFile(
      join(runDir, 'timeline.html'),
      renderTimeline(history.events, report, `Tessera chaos run, seed ${options.seed}`),
    );
    await cluster.stop();
    if (report.valid && !options.keepData) await removeData(cluster, nodesDir);
    return { report, summary, runDir, faults };
  } finally {
    await nemesis?.close();
    await cluster.stop();
    await history.close();
  }
}

interface PhaseResult {
  /** Every plain key an op touched, with its workload (the final reads read them from each replica). */
  readonly keys: Map<string, WeakWorkload>;
  /** Every strong register key an op touched. */
  readonly registerKeys: string[];
}

interface PhaseDeps {
  readonly options: ChaosOptions;
  readonly cluster: ChaosCluster;
  readonly history: History;
  readonly nemesis: Nemesis;
  readonly random: () => number;
  readonly nextId: () => number;
  readonly routes: StrongRoutes;
  readonly ledger: BankLedger | undefined;
}

async function runPhase(deps: PhaseDeps): Promise<PhaseResult> {
  const { options, cluster, history, nemesis, random, nextId, routes, ledger } = deps;
  const stop = new AbortController();
  const hardStop = new AbortController();
  // Every worker's pauses and calls listen on these (15 workers by default: more than Node's 10).
  setMaxListeners(LISTENERS_MAX, stop.signal, hardStop.signal);
  const urls = cluster.initialMembers.map((id) => cluster.url(id));
  const workers: Promise<void>[] = [];
  const clients: ReturnType<typeof createClient>[] = [];
  const pinned = new PinnedClients((node) => cluster.url(node));
  const isolation = isolationClients(nemesis, pinned);
  for (const workload of options.workloads) {
    for (let i = 0; i < options.workersPerWorkload; i++) {
      const client = createClient(urls);
      clients.push(client);
      const skewMs = options.faults.includes('clock') ? workerSkewMs(i, options.clockSkewMaxMs) : 0;
      const ctx: WorkerContext = {
        process: `${workload}-${i}`,
        client,
        history,
        random: createRng(Math.floor(random() * 2 ** 32)),
        clockMs: () => Date.now() + skewMs,
        nextId,
        keysPerEpoch: options.keysPerEpoch,
        signal: hardStop.signal,
        isolation,
        strong: routes,
      };
      workers.push(runWorker(ctx, stepFor(workload, ledger), options.thinkMs, stop.signal));
    }
  }
  history.add({ kind: 'phase', atMs: history.now(), phase: 'chaos' });
  const untilMs = history.now() + options.durationS * 1000;
  const progress = setInterval(
    () => options.onProgress?.(progressLine(history, untilMs, nemesis)),
    PROGRESS_MS,
  );
  try {
    await nemesis.run(untilMs, stop.signal);
    const restMs = untilMs - history.now();
    if (restMs > 0) await sleep(restMs);
    stop.abort();
    const drained = Promise.all(workers);
    const timer = setTimeout(() => hardStop.abort(), DRAIN_MS);
    await drained;
    clearTimeout(timer);
  } finally {
    clearInterval(progress);
    stop.abort();
    hardStop.abort();
    await Promise.all([...clients.map((c) => c.close()), pinned.close()]);
  }
  const keys = new Map<string, WeakWorkload>();
  const registerKeys = new Set<string>();
  for (const e of history.events) {
    if (e.kind !== 'op') continue;
    if (e.workload === 'register') registerKeys.add(e.key);
    else if (e.workload !== 'bank') keys.set(e.key, e.workload);
  }
  return { keys, registerKeys: [...registerKeys] };
}

/** The workers' view of the isolate fault: clients bound to the node cut off (R=W=1) and to one on the other side. */
function isolationClients(nemesis: Nemesis, pinned: PinnedClients): () => Isolation | undefined {
  return () => {
    const state = nemesis.isolation();
    if (state === undefined) return undefined;
    const { node, other } = state;
    return { node, weak: pinned.get(node, true), other, otherClient: pinned.get(other) };
  };
}

function stepFor(workload: Workload, ledger: BankLedger | undefined): Step {
  switch (workload) {
    case 'set':
      return setStep();
    case 'cart':
      return cartStep();
    case 'lww':
      return lwwStep();
    case 'register':
      return registerStep();
    case 'bank':
      if (ledger === undefined) throw new Error('the bank runs without its accounts');
      return bankStep(ledger);
  }
}

/** Workers 1 and 2 of each workload write with clocks ahead and behind (the clock fault). */
function workerSkewMs(index: number, skewMaxMs: number): number {
  return [0, skewMaxMs / 2, -skewMaxMs / 2][index % 3] ?? 0;
}

function progressLine(history: History, untilMs: number, nemesis: Nemesis): string {
  let ok = 0;
  let fail = 0;
  let info = 0;
  for (const e of history.events) {
    if (e.kind !== 'op') continue;
    if (e.type === 'ok') ok++;
    else if (e.type === 'fail') fail++;
    else if (e.type === 'info') info++;
  }
  const at = Math.min(history.now(), untilMs);
  const active = nemesis.active();
  return `${(at / 1000).toFixed(0).padStart(4)}s/${(untilMs / 1000).toFixed(0)}s  ops ok ${ok} fail ${fail} info ${info}  faults: ${active.length === 0 ? '-' : active.join('; ')}`;
}

function countFaults(history: History): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of history.events)
    if (e.kind === 'fault' && e.type === 'start') counts[e.fault] = (counts[e.fault] ?? 0) + 1;
  return counts;
}

/** Keeps the node logs, drops the data dirs (they can be large). */
async function removeData(cluster: ChaosCluster, nodesDir: string): Promise<void> {
  await Promise.all(cluster.ids.map((id) => rm(join(nodesDir, id), { recursive: true, force: true })));
}

export type { FaultKind };
