/**
 * `pnpm bench transactions`: one local cluster started with `--strong <namespace>`, all load to
 * its first node. A load phase writes the keys the reads and the conditional puts use; then the
 * size sweep (Figures 5 and 6), the interleaved mix of single-item operations (Figures 7 and 8) and
 * the throughput phases, in that order.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createRng } from '@tessera/core';
import type { Pool } from 'undici';
import { createPool } from '../http.js';
import { machineInfo } from '../machine.js';
import { closePools, type ExperimentIo, uniquePrefix, withCluster } from '../paper/kit.js';
import type { ClusterInfo, PhaseResult } from '../results.js';
import { currentRevision } from '../revision.js';
import { type Driver, type PhaseContext, runPhase } from '../runner.js';
import { makeValues } from '../values.js';
import { TxnWorkload } from './drivers.js';
import { MIX_KINDS, type SweepPoint, THROUGHPUT_KINDS, type TxnReport, type TxnSettings } from './model.js';
import type { TxnOptions } from './options.js';
import { renderTxnMarkdown } from './report.js';

/** The load phase ends when every key is written; this only bounds it. */
const LOAD_PHASE_MAX_MS = 5 * 60_000;
const LOAD_CONNECTIONS = 16;
const DISTINCT_VALUES = 16;

interface Measured {
  cluster?: ClusterInfo;
  load?: PhaseResult;
  sweep: SweepPoint[];
  mix?: PhaseResult;
  throughput: PhaseResult[];
}

export async function runTransactions(options: TxnOptions, io: ExperimentIo): Promise<TxnReport> {
  const startedAt = new Date().toISOString();
  const loadAverageStart = loadavg();
  const revision = await currentRevision();
  const s = options.settings;
  // Filled as phases end, so Ctrl-C still reports what was measured.
  const measured: Measured = { sweep: [], throughput: [] };
  const flags = { durability: s.durability, strong: [s.namespace], keepData: options.keepData };
  await withCluster(s, flags, io, async (cluster, ctx) => {
    measured.cluster = cluster.info;
    const rng = createRng(s.seed);
    const work = new TxnWorkload({
      namespace: s.namespace,
      prefix: uniquePrefix('x'),
      readKeys: s.readKeys,
      condKeys: s.condKeys,
      values: makeValues(s.valueBytes, DISTINCT_VALUES, rng),
      rng,
    });
    const most = Math.max(LOAD_CONNECTIONS, s.sweepConnections, s.mixConnections, s.throughputConnections);
    const pool = createPool(cluster.nodes[0]!.url, most);
    try {
      await measure(s, work, pool, ctx, io, measured);
    } finally {
      await closePools([pool]);
    }
  });
  return {
    kind: 'transactions',
    startedAt,
    finishedAt: new Date().toISOString(),
    revision,
    machine: machineInfo(loadAverageStart),
    quick: options.quick,
    settings: s,
    ...(measured.cluster === undefined ? {} : { cluster: measured.cluster }),
    ...(measured.load === undefined ? {} : { load: measured.load }),
    sweep: measured.sweep,
    ...(measured.mix === undefined ? {} : { mix: measured.mix }),
    throughput: measured.throughput,
  };
}

async function measure(
  s: TxnSettings,
  work: TxnWorkload,
  pool: Pool,
  ctx: PhaseContext,
  io: ExperimentIo,
  out: Measured,
): Promise<void> {
  const phase = (name: string, workers: number, warmupS: number, durationS: number, driver: Driver) =>
    runPhase(
      {
        head: { name, system: 'tessera', target: 'one' },
        workers,
        warmupMs: warmupS * 1000,
        durationMs: durationS * 1000,
        driver,
      },
      ctx,
    );
  io.log(`Writing ${s.readKeys} strong and ${s.readKeys} plain keys to read, ${s.condKeys} to update…`);
  out.load = await runPhase(
    {
      head: { name: 'load', system: 'tessera', target: 'one' },
      workers: LOAD_CONNECTIONS,
      warmupMs: 0,
      durationMs: LOAD_PHASE_MAX_MS,
      untilDone: true,
      driver: work.loadDriver(pool),
    },
    ctx,
  );
  io.log(summary(out.load));
  // Unmeasured: every kind of operation once through the JIT before the first measured phase.
  if (!ctx.signal.aborted) await phase('warmup', 4, s.warmupS, 0.1, work.mixDriver(pool, MIX_KINDS));

  io.log(`\nFigures 5 and 6: ${s.sweepConnections} transaction(s) in flight, ${s.sweepS} s per size`);
  for (const items of s.items) {
    if (ctx.signal.aborted) return;
    const write = await phase(
      `transaction ${items}`,
      s.sweepConnections,
      s.sweepWarmupS,
      s.sweepS,
      work.sweepWriteDriver(pool, items),
    );
    io.log(summary(write));
    const point: SweepPoint = { items, write };
    out.sweep.push(point);
    if (ctx.signal.aborted) return;
    const read = await phase(
      `transactGet ${items}`,
      s.sweepConnections,
      s.sweepWarmupS,
      s.sweepS,
      work.sweepReadDriver(pool, items),
    );
    io.log(summary(read));
    out.sweep[out.sweep.length - 1] = { ...point, read };
  }

  if (ctx.signal.aborted) return;
  io.log(`\nFigures 7 and 8: ${s.mixRatePerSec} operations/s of six kinds, interleaved`);
  out.mix = await runPhase(
    {
      head: { name: 'mix', system: 'tessera', target: 'one' },
      workers: s.mixConnections,
      warmupMs: s.warmupS * 1000,
      durationMs: s.mixS * 1000,
      ratePerSec: s.mixRatePerSec,
      driver: work.mixDriver(pool, MIX_KINDS),
    },
    ctx,
  );
  for (const kind of MIX_KINDS) {
    const stats = out.mix.byOp[kind];
    if (stats !== undefined) io.log(`  ${kind}: ${stats.ops} ops, ${latencies(stats.latency)}`);
  }
  if (Object.keys(out.mix.errors).length > 0) io.log(`  errors: ${JSON.stringify(out.mix.errors)}`);

  if (!s.throughput) return;
  io.log(`\nThroughput: ${s.throughputConnections} connections, closed loop`);
  for (const kind of THROUGHPUT_KINDS) {
    if (ctx.signal.aborted) return;
    const result = await phase(
      kind,
      s.throughputConnections,
      Math.min(1, s.warmupS),
      s.throughputS,
      work.kindDriver(pool, kind),
    );
    io.log(summary(result));
    out.throughput.push(result);
  }
}

function latencies(l: PhaseResult['latency']): string {
  const ms = (v: number): string => (Number.isFinite(v) ? v.toFixed(2) : '–');
  return `p50 ${ms(l.p50Ms)} ms, p99 ${ms(l.p99Ms)} ms, max ${ms(l.maxMs)} ms`;
}

function summary(p: PhaseResult): string {
  const errors = Object.values(p.errors).reduce((a, b) => a + b, 0);
  return `${p.name}: ${p.ops} ops, ${Math.round(p.opsPerSec)}/s, ${latencies(p.latency)}, errors ${errors}`;
}

export async function writeTxnResults(
  report: TxnReport,
  dir: string,
): Promise<{ jsonPath: string; markdownPath: string }> {
  const outDir = resolve(dir);
  await mkdir(outDir, { recursive: true });
  const stem = join(outDir, `transactions-${report.startedAt.replace(/[:.]/g, '-')}`);
  await writeFile(`${stem}.json`, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(`${stem}.md`, renderTxnMarkdown(report));
  return { jsonPath: `${stem}.json`, markdownPath: `${stem}.md` };
}
