/**
 * One benchmark run: the bare fastify baseline, then the cluster (started here or given by URL):
 * a load phase if a read workload needs keys, then each workload for each target mode; then the
 * bare baseline again, so that a ratio compares the cluster with the machine before and after it
 * (on a shared VM one phase of a minute can run a third slower than the next).
 */
import { loadavg } from 'node:os';
import { createRng, type Rng } from '@tessera/core';
import type { Pool } from 'undici';
import { startBareServer } from './bare.js';
import { attachCluster, type Cluster, type NodeHandle, startLocalCluster } from './cluster.js';
import {
  bareDriver,
  type KeyCounter,
  LOAD_PHASE_MAX_MS,
  type LoadTarget,
  loadDriver,
  workloadDriver,
} from './drivers.js';
import { createPool } from './http.js';
import { createKeyChooser } from './keys.js';
import { LoopDelayProbe } from './loop-probe.js';
import { machineInfo } from './machine.js';
import type { BenchOptions } from './options.js';
import { ProcessSampler } from './proc-sampler.js';
import type { ProgressSink } from './progress.js';
import { checkQuietMachine } from './quiet-machine.js';
import { BARE_AFTER, type BenchReport, computeRatios, type PhaseResult, type TargetMode } from './results.js';
import { currentRevision } from './revision.js';
import { createKeyRouter, type KeyRouter } from './routing.js';
import { type Driver, type PhaseContext, type PhasePlan, runPhase } from './runner.js';
import { machineMinutes, nodeMinutes, type SampleRound, soakMinutes, soakVerdict } from './soak-minutes.js';
import { SoakSampler, sampleEveryMs } from './soak-sampler.js';
import { probeMs, speedProbeMsOffThread } from './speed-probe.js';
import { DISTINCT_VALUES, makeValues, putBody } from './values.js';
import { wakeProbe } from './wake-probe.js';
import { needsLoadedKeys, WORKLOADS } from './workloads.js';

export interface BenchIo {
  /** One line of news for the person running the benchmark. */
  log(line: string): void;
  readonly progress: ProgressSink;
  readonly signal: AbortSignal;
}

/** Above this 1-minute load average at the start, the run says the machine is busy. */
const BUSY_LOAD_AVERAGE = 1;

export async function runBench(options: BenchOptions, io: BenchIo): Promise<BenchReport> {
  const startedAt = new Date().toISOString();
  const loadAverageStart = loadavg();
  const revision = await currentRevision();
  const busy = await checkQuietMachine(options.force, io.log);
  if (!busy && loadAverageStart[0]! > BUSY_LOAD_AVERAGE) {
    io.log(
      `Note: the 1-minute load average is ${loadAverageStart[0]!.toFixed(2)}: other work on this machine will lower the figures.`,
    );
  }
  // Before anything of the run starts: what a wake-up from idle costs on this machine now.
  const wake = wakeProbe();
  const processes = new ProcessSampler();
  processes.watch({ name: 'bench', pid: process.pid });
  processes.start();
  const loopDelay = new LoopDelayProbe();
  const ctx: PhaseContext = { progress: io.progress, processes, loopDelay, signal: io.signal };
  const soak = options.soak ? soakSampler(options.windowS * 1000) : undefined;
  let soakRounds: readonly SampleRound[] = [];
  const rng = createRng(options.seed);
  const values = makeValues(options.valueBytes, DISTINCT_VALUES, rng);
  const phases: PhaseResult[] = [];
  const record = (result: PhaseResult): void => {
    phases.push(result);
    io.log(summaryLine(result));
  };
  try {
    if (options.bare && !io.signal.aborted) {
      for (const result of await runBarePhases(options, values[0]!, ctx, io)) record(result);
    }
    const cluster = await openCluster(options, io);
    for (const node of cluster.nodes) {
      if (node.pid !== undefined) processes.watch({ name: node.nodeId, pid: node.pid });
      loopDelay.watch(node.nodeId, node.url);
      soak?.watch(node.nodeId, node.url, node.pid);
    }
    try {
      const hooks =
        soak === undefined ? {} : { soak, onSoakDone: (r: readonly SampleRound[]) => (soakRounds = r) };
      await runClusterPhases(options, cluster, { values, rng }, ctx, io, record, hooks);
    } finally {
      await cluster.stop();
    }
    if (options.bare && !io.signal.aborted) {
      for (const result of await runBarePhases(options, values[0]!, ctx, io, BARE_AFTER)) record(result);
    }
    return {
      startedAt,
      revision,
      finishedAt: new Date().toISOString(),
      machine: machineInfo(loadAverageStart, wake),
      settings: {
        workloads: options.workloads,
        targets: options.targets,
        distribution: options.distribution,
        keys: options.keys,
        valueBytes: options.valueBytes,
        connections: options.connections,
        ...(options.ratePerSec === undefined ? {} : { ratePerSec: options.ratePerSec }),
        durationS: options.durationS,
        warmupS: options.warmupS,
        seed: options.seed,
      },
      cluster: cluster.info,
      phases,
      // Open loop runs every phase, the bare ones too, at the same rate: their ratio says nothing.
      ratios: computeRatios(options.ratePerSec === undefined ? phases : []),
      rssMaxBytes: processes.runRssMaxBytes(),
      anonMaxBytes: processes.runAnonMaxBytes(),
      ...(soak === undefined ? {} : { soak: soakResult(options, phases.at(-1), soakRounds) }),
    };
  } finally {
    processes.stop();
  }
}

async function runClusterPhases(
  options: BenchOptions,
  cluster: Cluster,
  data: { readonly values: readonly string[]; readonly rng: Rng },
  ctx: PhaseContext,
  io: BenchIo,
  record: (result: PhaseResult) => void,
  hooks: SoakHooks,
): Promise<void> {
  const pools = new Map<TargetMode, Pool[]>();
  let router: KeyRouter | undefined;
  for (const mode of options.targets) {
    if (mode === 'replica') {
      router = await createKeyRouter(cluster.nodes[0]!.url, options.connections);
      pools.set(mode, [...router.pools]);
    } else pools.set(mode, targetPools(cluster.nodes, mode, options.connections));
  }
  // Unique per run, so runs against the same nodes never read each other's keys.
  const prefix = `b${Date.now().toString(36)}-`;
  const target = (mode: TargetMode): LoadTarget => {
    const base = { pools: pools.get(mode)!, prefix, ...data };
    return mode === 'replica' && router !== undefined ? { ...base, route: router.poolFor } : base;
  };
  const plan = (name: string, mode: TargetMode, driver: Driver): PhasePlan => ({
    head: { name, system: 'tessera', target: mode },
    workers: options.connections,
    warmupMs: options.warmupS * 1000,
    durationMs: options.durationS * 1000,
    driver,
  });
  try {
    const firstMode = options.targets[0]!;
    if (options.workloads.some((w) => needsLoadedKeys(WORKLOADS[w])) && !io.signal.aborted) {
      io.log(`Loading ${options.keys} keys of ${options.valueBytes} bytes…`);
      const driver = loadDriver(target(firstMode), options.keys);
      const load = { ...plan('load', firstMode, driver), warmupMs: 0, durationMs: LOAD_PHASE_MAX_MS };
      record(await runPhase({ ...load, untilDone: true }, ctx));
    }
    const fresh: KeyCounter = { next: 0 };
    for (const mode of options.targets) {
      for (const name of options.workloads) {
        if (io.signal.aborted) return;
        const keys = createKeyChooser(options.distribution, options.keys, data.rng);
        const driver = workloadDriver(WORKLOADS[name], target(mode), keys, fresh);
        // With --cpu-prof-dir, node n0's profile covers the measured part of the workloads.
        const rate = options.ratePerSec === undefined ? {} : { ratePerSec: options.ratePerSec };
        const { soak } = hooks;
        const onMeasureStart = (): void => {
          cluster.startProfiling();
          soak?.start();
        };
        const windows = soak === undefined ? {} : { windowMs: options.windowS * 1000 };
        const result = await runPhase(
          { ...plan(name, mode, driver), ...rate, ...windows, onMeasureStart },
          ctx,
        );
        if (soak !== undefined) hooks.onSoakDone?.(await soak.stop());
        record(result);
      }
    }
  } finally {
    for (const list of pools.values()) await Promise.all(list.map((p) => p.close()));
  }
}

async function runBarePhases(
  options: BenchOptions,
  value: string,
  ctx: PhaseContext,
  io: BenchIo,
  suffix = '',
) {
  const server = await startBareServer(options.valueBytes);
  io.log(`Bare fastify baseline at ${server.url} (pid ${server.pid})`);
  ctx.processes.watch({ name: 'bare', pid: server.pid });
  const pool = createPool(server.url, options.connections);
  const results: PhaseResult[] = [];
  try {
    for (const method of ['GET', 'POST'] as const) {
      if (ctx.signal.aborted) break;
      const plan: PhasePlan = {
        head: { name: `bare ${method}${suffix}`, system: 'bare-fastify', target: 'bare' },
        workers: options.connections,
        warmupMs: options.warmupS * 1000,
        durationMs: options.durationS * 1000,
        driver: bareDriver(pool, method, putBody(value)),
        // Open loop: the bare server at the same rate gives this machine's latency floor.
        ...(options.ratePerSec === undefined ? {} : { ratePerSec: options.ratePerSec }),
      };
      results.push(await runPhase(plan, ctx));
    }
  } finally {
    await pool.close();
    await server.stop();
    ctx.processes.unwatch('bare');
  }
  return results;
}

async function openCluster(options: BenchOptions, io: BenchIo): Promise<Cluster> {
  if (options.urls.length > 0) {
    const cluster = await attachCluster(options.urls);
    io.log(`Targeting ${cluster.nodes.map((n) => `${n.nodeId} ${n.url}`).join(', ')}`);
    return cluster;
  }
  io.log(`Starting ${options.nodes} Tessera nodes (N=${options.n} R=${options.r} W=${options.w})…`);
  return startLocalCluster({
    nodes: options.nodes,
    n: options.n,
    r: options.r,
    w: options.w,
    keepData: options.keepData,
    ...(options.durability === undefined ? {} : { durability: options.durability }),
    ...(options.nodeConfig === undefined ? {} : { config: options.nodeConfig }),
    ...(options.cpuProfDir === undefined ? {} : { cpuProfDir: options.cpuProfDir }),
    onNodeReady: (node, logPath) =>
      io.log(`  ${node.nodeId} ready at ${node.url}, pid ${node.pid}, log ${logPath}`),
  });
}

/** One pool to the first node, or one per node with the connections split between them. */
function targetPools(nodes: readonly NodeHandle[], mode: 'one' | 'spread', connections: number): Pool[] {
  if (mode === 'one') return [createPool(nodes[0]!.url, connections)];
  return nodes.map((node, i) => {
    const share = Math.floor(connections / nodes.length) + (i < connections % nodes.length ? 1 : 0);
    return createPool(node.url, Math.max(1, share));
  });
}

/** With --soak: the sampler that follows the workload phase, and where its rounds go when it ends. */
interface SoakHooks {
  readonly soak?: SoakSampler;
  readonly onSoakDone?: (rounds: readonly SampleRound[]) => void;
}

/**
 * The soak's sampler: every node and the machine's speed every few seconds (a probe costs about
 * 1-2% of one core at one per 5 s; a window's median of them follows the machine's spells).
 */
function soakSampler(windowMs: number): SoakSampler {
  return new SoakSampler(sampleEveryMs(windowMs), () => speedProbeMsOffThread());
}

function soakResult(options: BenchOptions, phase: PhaseResult | undefined, rounds: readonly SampleRound[]) {
  const sampleS = sampleEveryMs(options.windowS * 1000) / 1000;
  // The measured time ends when the last request in flight answers; none starts after --duration-s.
  const durationS = Math.min(options.durationS, (phase?.durationMs ?? 0) / 1000);
  const minutes = soakMinutes(phase?.windows ?? [], options.windowS, durationS);
  const samplesPerWindow = Math.round(options.windowS / sampleS);
  const nodes = nodeMinutes(rounds, samplesPerWindow, sampleS);
  const machine = machineMinutes(rounds, samplesPerWindow, minutes, nodes);
  return {
    windowS: options.windowS,
    sampleS,
    minutes,
    nodes,
    machine,
    verdict: soakVerdict(minutes, nodes, options.windowS, machine),
  };
}

function summaryLine(p: PhaseResult): string {
  const errors = Object.values(p.errors).reduce((a, b) => a + b, 0);
  const ms = (v: number): string => (Number.isFinite(v) ? v.toFixed(2) : '–');
  const loop = Object.entries(p.eventLoop ?? {}).map(([node, s]) => `${node} ${ms(s.p999Ms)}`);
  return (
    `${p.name} (${p.target}): ${Math.round(p.opsPerSec)} ops/s, p50 ${ms(p.latency.p50Ms)} ms, ` +
    `p99 ${ms(p.latency.p99Ms)} ms, p99.9 ${ms(p.latency.p999Ms)} ms, max ${ms(p.latency.maxMs)} ms, errors ${errors}` +
    (loop.length === 0 ? '' : `; event-loop delay p99.9 ms: ${loop.join(', ')}`) +
    (p.speedProbeMs === undefined ? '' : `; speed probe ${probeMs(p.speedProbeMs).toFixed(0)} ms`)
  );
}
