import { describe, expect, it } from 'vitest';
import { formatErrors, renderTable } from './format.js';
import {
  ProcessSampler,
  parseCpuMs,
  parseRssAnonBytes,
  parseRunQueueWaitMs,
  parseVmRssBytes,
} from './proc-sampler.js';
import { renderMarkdown, renderPhaseTable } from './report.js';
import { type BenchReport, computeRatios, type PhaseResult } from './results.js';

const MIB = 1024 * 1024;

function phase(name: string, system: PhaseResult['system'], opsPerSec: number): PhaseResult {
  const latency = { count: opsPerSec * 10, meanMs: 2, p50Ms: 1.5, p99Ms: 12.345, p999Ms: 20, maxMs: 31.9 };
  return {
    name,
    system,
    target: system === 'bare-fastify' ? 'bare' : 'one',
    durationMs: 10_000,
    ops: opsPerSec * 10,
    opsPerSec,
    latency,
    byOp: {},
    errors: {},
    siblings: { reads: 0, bySiblings: [0, 0, 0, 0] },
    processes: { n0: { rssMaxBytes: 180 * MIB, cpuMs: 9_000, cpuShare: 0.9, waitShare: 0.28 } },
  };
}

const phases: PhaseResult[] = [
  phase('bare GET', 'bare-fastify', 40_000),
  phase('bare POST', 'bare-fastify', 30_000),
  { ...phase('W', 'tessera', 3_000), speedProbeMs: { before: 77.4, after: 91.6 } },
  {
    ...phase('C', 'tessera', 10_000),
    errors: { TIMEOUT: 2, INSUFFICIENT_REPLICAS: 5 },
    siblings: { reads: 200, bySiblings: [150, 30, 10, 10] },
  },
];

const report: BenchReport = {
  startedAt: '2026-11-21T10:00:00.000Z',
  revision: { commit: 'abc123', dirty: false },
  finishedAt: '2026-11-21T10:01:00.000Z',
  machine: {
    cpus: 2,
    cpuModel: 'Test CPU',
    memoryBytes: 24 * 1024 * MIB,
    node: '20.20.2',
    platform: 'linux x64',
    loadAverageStart: [0.1, 0.2, 0.3],
    loadAverageEnd: [1, 1, 1],
  },
  settings: {
    workloads: ['W', 'C'],
    targets: ['one'],
    distribution: 'zipfian',
    keys: 1000,
    valueBytes: 150,
    connections: 50,
    durationS: 10,
    warmupS: 2,
    seed: 1,
  },
  cluster: { local: true, urls: [], nodeIds: ['n0', 'n1', 'n2'], n: 3, r: 2, w: 2 },
  phases,
  ratios: computeRatios(phases),
  rssMaxBytes: { n0: 190 * MIB },
};

describe('ratios', () => {
  it('divides W by bare POST and C by bare GET', () => {
    expect(report.ratios.putOverBarePost.one).toBeCloseTo(0.1, 12);
    expect(report.ratios.getOverBareGet.one).toBeCloseTo(0.25, 12);
  });

  it('divides by the mean of the bare phases before and after the cluster', () => {
    const after = [
      phase('bare GET (after)', 'bare-fastify', 20_000),
      phase('bare POST (after)', 'bare-fastify', 10_000),
    ];
    const ratios = computeRatios([...phases, ...after]);
    expect(ratios.putOverBarePost.one).toBeCloseTo(3_000 / 20_000, 12);
    expect(ratios.getOverBareGet.one).toBeCloseTo(10_000 / 30_000, 12);
    expect(renderMarkdown({ ...report, phases: [...phases, ...after], ratios })).toContain(
      'Each against the mean of the bare phases of its method',
    );
  });

  it('has none without the bare phases', () => {
    expect(computeRatios(phases.slice(2))).toEqual({ putOverBarePost: {}, getOverBareGet: {} });
  });
});

describe('Markdown rendering', () => {
  const markdown = renderMarkdown(report);

  it('renders one row per phase with aligned number columns', () => {
    expect(markdown).toContain(
      '| phase | target | ops/s | p50 ms | p99 ms | p99.9 ms | max ms | errors | reads with 1 / 2 / 3 / 4+ siblings |',
    );
    expect(markdown).toContain('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |');
    expect(markdown).toContain('| W | one | 3,000 | 1.50 | 12.3 | 20.0 | 31.9 | 0 | – |');
    expect(markdown).toContain(
      '| C | one | 10,000 | 1.50 | 12.3 | 20.0 | 31.9 | 7 (INSUFFICIENT_REPLICAS 5, TIMEOUT 2) | 75.0% / 15.0% / 5.0% / 5.0% |',
    );
  });

  it('renders ratios, per-process CPU and memory', () => {
    expect(markdown).toContain('| put (W) / bare fastify POST | one | 10.0% |');
    expect(markdown).toContain('| get (C) / bare fastify GET | one | 25.0% |');
    expect(markdown).toContain('| W (one) | n0 | 0.90 | 0.28 | 300 | 180 |');
    expect(markdown).toContain('Max RSS over the whole run (MiB): n0 190.');
    expect(markdown).toContain('load average 0.10 0.20 0.30 at start');
  });

  it('says how many cores sat idle and how many the host took, per phase', () => {
    const withMachine = phases.map((p) => ({ ...p, machineCpu: { idleCores: 0.321, stealCores: 0.036 } }));
    const md = renderMarkdown({ ...report, phases: withMachine });
    expect(md).toContain('Machine CPU (cores of');
    expect(md).toContain('W 0.32 idle, 0.04 stolen');
    expect(markdown).not.toContain('Machine CPU');
  });

  it('says how fast the machine ran around each probed phase', () => {
    expect(markdown).toContain('Speed probe (ms for 60,000 SHA-256 hashes on one core');
    expect(markdown).toContain('W 77.');
    expect(renderMarkdown({ ...report, phases: phases.slice(0, 2) })).not.toContain('Speed probe');
  });

  it("says when the nodes were the replication-shape probe's, not Tessera's", () => {
    expect(markdown).toContain('Cluster: 3 nodes (started by the harness), N=3 R=2 W=2.');
    const probed = renderMarkdown({ ...report, cluster: { ...report.cluster, local: false, probe: true } });
    expect(probed).toContain(
      "Cluster: 3 nodes of the replication-shape probe, not Tessera's (given by --url), N=3",
    );
  });

  it('says what a wake-up from idle cost, when the run measured it', () => {
    const withWake = {
      ...report,
      machine: { ...report.machine, wakeProbe: { busyUs: 12.4, afterIdleUs: 58.6 } },
    };
    expect(renderMarkdown(withWake)).toContain('took 12 µs of CPU back to back and 59 µs after 1 ms asleep');
    expect(markdown).not.toContain('Wake-up cost');
  });

  it('adds a row per operation kind under a mixed phase', () => {
    const stats = (opsPerSec: number) => ({ ops: opsPerSec * 10, opsPerSec, latency: phases[0]!.latency });
    const mixed = { ...phase('A', 'tessera', 700), byOp: { read: stats(350), rmw: stats(350) } };
    const table = renderPhaseTable([mixed]);
    expect(table).toContain('| A | one | 700 |');
    expect(table).toContain('| A: read | one | 350 | 1.50 | 12.3 | 20.0 | 31.9 |  |  |');
    expect(table).toContain('| A: rmw | one | 350 |');
  });

  it('escapes pipes in cells', () => {
    expect(renderTable(['a'], [['x|y']])).toBe('| a |\n| --- |\n| x\\|y |');
  });

  it('formats errors largest first', () => {
    expect(formatErrors({})).toBe('0');
    expect(formatErrors({ A: 1, B: 1200 })).toBe('1,201 (B 1,200, A 1)');
  });
});

describe('/proc parsing', () => {
  it('reads VmRSS in bytes', () => {
    expect(parseVmRssBytes('Name:\tnode\nVmRSS:\t  123456 kB\nVmData:\t1 kB\n')).toBe(123456 * 1024);
    expect(parseVmRssBytes('Name:\tnode\n')).toBeUndefined();
    expect(parseRssAnonBytes('VmRSS:\t  900 kB\nRssAnon:\t  300 kB\nRssFile:\t 600 kB\n')).toBe(300 * 1024);
  });

  it('reads utime plus stime, even when the command name has spaces', () => {
    const stat = '42 (node main) S 1 42 42 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 11 0 1000 0 0';
    expect(parseCpuMs(stat)).toBe(3_000);
  });

  it("reads the main thread's wait for a core from schedstat, in ms", () => {
    expect(parseRunQueueWaitMs('6990000000 2820000000 1063\n')).toBe(2_820);
    expect(parseRunQueueWaitMs('')).toBeUndefined();
  });
});

describe('process table', () => {
  it('shows a dash for the wait in results written before it was measured', () => {
    const old = phase('W', 'tessera', 3000);
    const { waitShare: _, ...stats } = old.processes.n0 ?? { rssMaxBytes: 0, cpuMs: 0, cpuShare: 0 };
    const md = renderMarkdown({ ...report, phases: [{ ...old, processes: { n0: stats } }] });
    expect(md).toContain('| W (one) | n0 | 0.90 | – | 300 | 180 |');
  });

  it.runIf(process.platform === 'linux')('measures how long a busy process waited for a core', async () => {
    const sampler = new ProcessSampler();
    sampler.watch({ name: 'self', pid: process.pid });
    await sampler.beginPhase();
    // Busy for 50 ms: on a core, or waiting for one.
    let spins = 0;
    for (const until = performance.now() + 50; performance.now() < until; ) spins++;
    expect(spins).toBeGreaterThan(0);
    const { self } = await sampler.endPhase();
    expect(self?.cpuShare).toBeGreaterThan(0);
    expect(self?.waitShare).toBeGreaterThanOrEqual(0);
    expect(self?.waitShare).toBeLessThan(1);
  });
});
