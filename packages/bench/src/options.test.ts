import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseBenchArgs, transactionsModeArgs, UsageError } from './options.js';
import { isLoopbackUrl } from './ports.js';

describe('bench options', () => {
  it('defaults to W, C, A on one node for 10 s', () => {
    const o = parseBenchArgs([]);
    expect(o.workloads).toEqual(['W', 'C', 'A']);
    expect(o.targets).toEqual(['one']);
    expect([o.durationS, o.warmupS, o.connections, o.valueBytes, o.keys]).toEqual([10, 2, 50, 150, 10_000]);
    expect([o.n, o.r, o.w, o.nodes, o.bare]).toEqual([3, 2, 2, 3, true]);
    // An open loop warms up longer: a fresh cluster needs about 3.5 s to keep its schedule.
    expect(parseBenchArgs(['--rate', '5000']).warmupS).toBe(5);
    expect(parseBenchArgs(['--rate', '5000', '--warmup-s', '1']).warmupS).toBe(1);
  });

  it('--workload transactions selects the transactions mode and hands it the other flags', () => {
    expect(transactionsModeArgs(['--workload', 'transactions', '--quick'])).toEqual(['--quick']);
    expect(transactionsModeArgs(['--rate', '50', '--workloads=Transactions'])).toEqual(['--rate', '50']);
    expect(transactionsModeArgs(['--workloads', 'W,C'])).toBeUndefined();
    expect(transactionsModeArgs([])).toBeUndefined();
    expect(() => parseBenchArgs(['--workloads', 'W,transactions'])).toThrow(/run alone/);
  });

  it('--soak runs workload A for 10 minutes in 60 s windows, without the bare baseline', () => {
    const o = parseBenchArgs(['--soak']);
    expect([o.soak, o.workloads, o.durationS, o.windowS, o.warmupS, o.bare]).toEqual([
      true,
      ['A'],
      600,
      60,
      10,
      false,
    ]);
    const q = parseBenchArgs(['--soak', '--quick', '--workloads', 'B']);
    expect([q.workloads, q.durationS, q.windowS, q.keys]).toEqual([['B'], 30, 10, 2000]);
    expect(() => parseBenchArgs(['--soak', '--workloads', 'A,C'])).toThrow(/one workload/);
    expect(() => parseBenchArgs(['--soak', '--duration-s', '30'])).toThrow(/--window-s 60 is longer/);
    expect(() => parseBenchArgs(['--window-s', '10'])).toThrow(/--soak only/);
    expect(() => parseBenchArgs(['--soak', '--duration-s', '7201'])).toThrow(UsageError);
  });

  it('--quick shortens phases unless told otherwise', () => {
    const o = parseBenchArgs(['--quick']);
    expect([o.durationS, o.warmupS, o.keys]).toEqual([3, 1, 2000]);
    expect(parseBenchArgs(['--quick', '--duration-s', '5']).durationS).toBe(5);
  });

  it('takes lists, both targets and --no-bare', () => {
    const o = parseBenchArgs([
      '--workloads',
      'a,b',
      '--target',
      'both',
      '--no-bare',
      '--url',
      'http://127.0.0.1:7000/',
    ]);
    expect(o.workloads).toEqual(['A', 'B']);
    expect(o.targets).toEqual(['one', 'spread']);
    expect(o.bare).toBe(false);
    expect(o.urls).toEqual(['http://127.0.0.1:7000']);
  });

  it('rejects bad values with a usage error', () => {
    expect(() => parseBenchArgs(['--workloads', 'Z'])).toThrow(UsageError);
    expect(() => parseBenchArgs(['--connections', '0'])).toThrow(UsageError);
    expect(() => parseBenchArgs(['--rate', '0'])).toThrow(UsageError);
    expect(parseBenchArgs(['--rate', '2500']).ratePerSec).toBe(2500);
    expect(parseBenchArgs([]).ratePerSec).toBeUndefined();
    expect(() => parseBenchArgs(['--r', '4'])).toThrow(UsageError);
    expect(() => parseBenchArgs(['--url', 'http://10.0.0.5:7000'])).toThrow(/loopback/);
  });

  it('sends load to loopback only', () => {
    expect(isLoopbackUrl('http://127.0.0.1:7000')).toBe(true);
    expect(isLoopbackUrl('http://localhost:7000')).toBe(true);
    expect(isLoopbackUrl('http://[::1]:7000')).toBe(true);
    expect(isLoopbackUrl('http://192.168.1.2:7000')).toBe(false);
    expect(isLoopbackUrl('http://example.com')).toBe(false);
  });

  it('--routing client sends to replicas and excludes --target; --durability is checked and local only', () => {
    expect(parseBenchArgs(['--routing', 'client']).targets).toEqual(['replica']);
    expect(parseBenchArgs(['--routing', 'server', '--target', 'spread']).targets).toEqual(['spread']);
    expect(() => parseBenchArgs(['--routing', 'client', '--target', 'one'])).toThrow(UsageError);
    expect(() => parseBenchArgs(['--routing', 'nearest'])).toThrow(UsageError);
    expect(parseBenchArgs([]).durability).toBeUndefined();
    expect(parseBenchArgs(['--durability', 'fsync-one']).durability).toBe('fsync-one');
    expect(() => parseBenchArgs(['--durability', 'sometimes'])).toThrow(UsageError);
    expect(() => parseBenchArgs(['--durability', 'fsync', '--url', 'http://127.0.0.1:7000'])).toThrow(
      UsageError,
    );
  });

  it('--node-config is a readable file, for local nodes only, given to them by its absolute path', () => {
    const file = fileURLToPath(import.meta.url);
    expect(parseBenchArgs([]).nodeConfig).toBeUndefined();
    expect(parseBenchArgs(['--node-config', relative(process.cwd(), file)]).nodeConfig).toBe(file);
    expect(() => parseBenchArgs(['--node-config', '/nonexistent/tessera.json'])).toThrow(/no readable file/);
    expect(() => parseBenchArgs(['--node-config', file, '--url', 'http://127.0.0.1:7000'])).toThrow(
      /cannot be used with --url/,
    );
  });
});
