import { describe, expect, it } from 'vitest';
import type { Buckets } from './prom-text.js';
import { GROWTH_BYTES_MIN } from './soak-memory.js';
import {
  machineMinutes,
  type NodeSample,
  nodeMinutes,
  type SampleRound,
  type SoakNodeMinute,
  soakMinutes,
  soakVerdict,
} from './soak-minutes.js';
import { renderSoak, verdictLines } from './soak-report.js';
import { SoakSampler } from './soak-sampler.js';
import type { WindowStats } from './windows.js';

const MIB = 1024 * 1024;

/** A node's window: steady figures unless `fields` says otherwise. */
function nodeMinute(minute: number, fields: Partial<SoakNodeMinute> = {}): SoakNodeMinute {
  return {
    minute,
    node: 'n0',
    cpuCores: 0.9,
    waitShare: 0.2,
    heapUsedMinBytes: 50 * MIB,
    heapUsedMaxBytes: 90 * MIB,
    rssMaxBytes: 200 * MIB,
    anonMaxBytes: 150 * MIB,
    ...fields,
  };
}

function window(startS: number, count: number, p99Ms = 20): WindowStats {
  return { startS, count, meanMs: 5, p50Ms: 4, p99Ms, p999Ms: p99Ms * 2, maxMs: p99Ms * 3 };
}

/** Cumulative delay buckets (1 ms, 10 ms, +Inf) after `fast` delays under 1 ms and `slow` of 1-10 ms. */
function loop(fast: number, slow: number): Buckets {
  return {
    upperBounds: [0.001, 0.01, Number.POSITIVE_INFINITY],
    cumulative: [fast, fast + slow, fast + slow],
  };
}

describe('soak windows', () => {
  it('gives throughput per window against the first, keeps empty windows, and sizes a short last one', () => {
    // 60 s windows over 150 s: the third lasts 30 s; the second had no successful operation at all.
    const minutes = soakMinutes([window(0, 120_000), window(60, 0), window(120, 60_000)], 60, 150);
    expect(minutes.map((m) => [m.minute, m.lengthS, m.opsPerSec, m.vsFirst])).toEqual([
      [1, 60, 2000, 1],
      [2, 60, 0, 0],
      [3, 30, 2000, 1],
    ]);
    // A window the runner never saw (nothing started in it) is still a row.
    expect(soakMinutes([window(0, 600)], 10, 30).map((m) => m.ops)).toEqual([600, 0, 0]);
  });

  it('cuts node samples into windows: CPU and event-loop delay across each, heap and RSS extremes within', () => {
    // Two samples per 10 s window (every 5 s); the run stopped early at round 5 (25 s).
    const sample = (i: number): NodeSample => ({
      cpuMs: i * 2_500, // half a core
      waitMs: i * 1_000, // waiting for a core a fifth of the time
      heapUsedBytes: (i % 2 === 0 ? 40 : 60) * MIB,
      rssBytes: (100 + i) * MIB,
      anonBytes: (80 + i) * MIB,
      loop: loop(i * 500, i >= 3 ? 1_000 : 0), // slow delays between rounds 2 and 3: the second window
    });
    const rounds: SampleRound[] = [0, 1, 2, 3, 4, 5].map((index) => ({
      index,
      nodes: { n0: sample(index) },
    }));
    const rows = nodeMinutes(rounds, 2, 5);
    expect(rows.map((r) => r.minute)).toEqual([1, 2, 3]);
    expect(rows[0]).toMatchObject({
      cpuCores: 0.5,
      waitShare: 0.2,
      heapUsedMinBytes: 40 * MIB,
      heapUsedMaxBytes: 60 * MIB,
    });
    expect(rows[0]!.rssMaxBytes).toBe(102 * MIB);
    expect(rows[1]!.anonMaxBytes).toBe(84 * MIB);
    expect(rows[0]!.loop!.p999Ms).toBeLessThan(1);
    expect(rows[1]!.loop!.p999Ms).toBeGreaterThan(5);
    // The last, partial window runs from round 4 to round 5.
    expect(rows[2]).toMatchObject({ cpuCores: 0.5, rssMaxBytes: 105 * MIB });
    expect(rows[2]!.loop!.p999Ms).toBeLessThan(1);
  });
});

describe('soak verdict', () => {
  const steady = (k: number) => nodeMinute(k);

  it('passes within 10% of the first full window and flat memory; a partial last window is left out', () => {
    const minutes = soakMinutes([window(0, 6_000), window(60, 5_460), window(120, 10)], 60, 130);
    const v = soakVerdict(minutes, [steady(1), steady(2), steady(3)], 60);
    expect(v).toMatchObject({ fullMinutes: 2, throughputOk: true, memoryGrew: false });
    expect(v.lowest).toMatchObject({ minute: 2, opsPerSec: 91 });
    expect(verdictLines(v, 'minute').join('\n')).toMatch(
      /lowest minute 2 at 91 ops\/s \(-9\.0%\): OK[\s\S]*: flat/,
    );
  });

  it('calls a sag below 90% and growth beyond 10% and 16 MiB', () => {
    const minutes = soakMinutes([window(0, 6_000), window(60, 6_600), window(120, 5_340)], 60, 180);
    const leaking = { ...steady(3), heapUsedMinBytes: 50 * MIB + GROWTH_BYTES_MIN + MIB };
    const v = soakVerdict(minutes, [steady(1), steady(2), leaking], 60);
    expect(v.lowest).toMatchObject({ minute: 3 });
    expect(v.throughputOk).toBe(false);
    expect(v.memory[0]).toMatchObject({ node: 'n0', grew: true });
    expect(v.memoryGrew).toBe(true);
    // Growth under 16 MiB is noise, whatever its share.
    const small = { ...steady(3), heapUsedMinBytes: 50 * MIB + 15 * MIB };
    expect(soakVerdict(minutes, [steady(1), small], 60).memoryGrew).toBe(false);
  });

  it('gives no verdict with fewer than two full windows', () => {
    const v = soakVerdict(soakMinutes([window(0, 100)], 60, 60), [], 60);
    expect(v.throughputOk).toBeUndefined();
    expect(verdictLines(v, 'minute')[0]).toMatch(/none/);
  });
});

describe('soak memory', () => {
  const minute = (k: number, anonMib: number) =>
    nodeMinute(k, { rssMaxBytes: (anonMib + 50) * MIB, anonMaxBytes: anonMib * MIB });
  const minutes = soakMinutes(
    [0, 60, 120, 180, 240, 300].map((s) => window(s, 6_000)),
    60,
    360,
  );

  /** The verdict of six full minutes whose anonymous RSS reads `anonMib`, minute by minute. */
  const verdictOf = (anonMib: readonly number[]) =>
    soakVerdict(
      minutes,
      anonMib.map((a, i) => minute(i + 1, a)),
      60,
    );

  it('tells a warm-up (growth in the first half only) from a leak (growth in both halves)', () => {
    const warm = verdictOf([150, 170, 185, 186, 187, 188]);
    expect(warm.memoryGrew).toBe(true);
    expect(warm.memoryLater).toMatchObject({ fromMinute: 4, grew: false });
    const leak = verdictOf([150, 170, 190, 210, 230, 250]);
    expect(leak.memoryGrew).toBe(true);
    expect(leak.memoryLater).toMatchObject({ fromMinute: 4, grew: true });
    const lines = verdictLines(warm, 'minute').join('\n');
    expect(lines).toMatch(/Verdict, memory[^\n]*: GREW/);
    expect(lines).toMatch(
      /Memory from the middle full minute \(4\) to the last[^\n]*anon 186 → 188 \(\+2\)[^\n]*: flat\./,
    );
  });

  it('gives no later half with fewer than four full windows', () => {
    const three = soakMinutes(
      [0, 60, 120].map((s) => window(s, 6_000)),
      60,
      180,
    );
    expect(
      soakVerdict(
        three,
        [1, 2, 3].map((k) => minute(k, 150)),
        60,
      ).memoryLater,
    ).toBeUndefined();
  });
});

describe('the machine per soak window', () => {
  const node = (minute: number, name: string, cpuCores: number) =>
    nodeMinute(minute, { node: name, cpuCores });

  it("gives each window its speed probe and the nodes' summed CPU per operation", () => {
    // 10 s windows, three rounds each, each with a probe: a window's figure is their median.
    const minutes = soakMinutes([window(0, 20_000), window(10, 10_000)], 10, 20);
    // Two cores; the host takes a twentieth of the ticks in the first window, none in the second.
    const ticks = (total: number, steal: number) => ({ total, idle: 0, steal, cores: 2 });
    const rounds: SampleRound[] = [
      { index: 0, nodes: {}, speedProbeMs: 300, cpuTicks: ticks(0, 0) },
      { index: 1, nodes: {}, speedProbeMs: 80 },
      { index: 2, nodes: {}, speedProbeMs: 75 },
      { index: 3, nodes: {}, speedProbeMs: 160, cpuTicks: ticks(2_000, 100) },
      { index: 4, nodes: {} },
      { index: 5, nodes: {}, speedProbeMs: 150, cpuTicks: ticks(3_000, 100) },
    ];
    const nodes = [node(1, 'n0', 0.8), node(1, 'n1', 0.2), node(2, 'n0', 0.8), node(2, 'n1', 0.2)];
    const machine = machineMinutes(rounds, 3, minutes, nodes);
    // One core in all: 1e6 µs per s over 2,000 and then 1,000 ops/s.
    expect(machine).toEqual([
      { minute: 1, speedProbeMs: 80, nodeCpuUsPerOp: 500, stealCores: 0.1 },
      { minute: 2, speedProbeMs: 155, nodeCpuUsPerOp: 1000, stealCores: 0 },
    ]);
    // Half the throughput on a machine about half as fast: a sag by the verdict, hardly one for the machine's speed.
    const v = soakVerdict(minutes, nodes, 10, machine);
    expect(v.throughputOk).toBe(false);
    expect(v.adjustedLowest?.minute).toBe(2);
    expect(v.adjustedLowest?.vsFirst).toBeCloseTo(155 / 160, 6);
    const text = renderSoak({ windowS: 10, sampleS: 5, minutes, nodes, machine, verdict: v });
    expect(text).toMatch(/\| 2 \| 10–20 \| 1,000 \| 50\.0% \|.*\| 1000 \| 155 \| 0\.00 \|/);
    expect(text).toMatch(/\| 1 \|.*\| 500 \| 80 \| 0\.10 \|/);
    expect(text).toContain('| 1 | n0 | 0.80 | 0.20 | 50–90 |');
    expect(verdictLines(v, 'minute').join('\n')).toMatch(
      /SAG[\s\S]*machine's speed[^\n]*lowest minute 2 at -3\.1%/,
    );
  });

  it('makes no machine-adjusted figure when a window has no probe', () => {
    const minutes = soakMinutes([window(0, 20_000), window(10, 10_000)], 10, 20);
    const machine = machineMinutes([{ index: 1, nodes: {}, speedProbeMs: 80 }], 2, minutes, []);
    expect(machine[1]).toEqual({ minute: 2, nodeCpuUsPerOp: 0 });
    expect(soakVerdict(minutes, [], 10, machine).adjustedLowest).toBeUndefined();
  });

  it('takes the speed probe on every round, and a failed probe leaves its round without one', async () => {
    let calls = 0;
    let twice: () => void = () => {};
    const probedTwice = new Promise<void>((resolve) => {
      twice = resolve;
    });
    const sampler = new SoakSampler(5, async () => {
      calls++;
      if (calls === 2) twice();
      if (calls === 1) throw new Error('worker failed');
      return 70;
    });
    sampler.start();
    await Promise.race([
      probedTwice,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no second probe in 5 s')), 5_000)),
    ]);
    const rounds = await sampler.stop();
    // Round 0's probe failed: it has none; round 1 has the second probe's time.
    expect(rounds[0]!.speedProbeMs).toBeUndefined();
    expect(rounds[1]!.speedProbeMs).toBe(70);
  });

  it.runIf(process.platform === 'linux')(
    "reads each node's CPU and wait for a core, and the machine's ticks, on every round",
    async () => {
      const sampler = new SoakSampler(1_000);
      // This process stands in for a node; its /metrics is nowhere (refused at once).
      sampler.watch('self', 'http://127.0.0.1:9', process.pid);
      sampler.start();
      const [round] = await sampler.stop();
      expect(round?.cpuTicks?.cores).toBeGreaterThan(0);
      expect(round?.nodes.self?.cpuMs).toBeGreaterThan(0);
      expect(round?.nodes.self?.waitMs).toBeGreaterThanOrEqual(0);
      expect(round?.nodes.self?.heapUsedBytes).toBeUndefined();
    },
  );
});
