/**
 * Strong keys across ring changes (docs/transactions.md, "Ring changes"): compare-and-set writers
 * keep going while a fourth node joins, another node leaves, and a third is killed and removed; the
 * history of every key must be linearizable (core linearizability checker).
 */
import { join } from 'node:path';
import { checkRegisterHistory, type Operation, type RegisterInput, type RegisterOutput } from '@tessera/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalNode } from '../src/cli/local-cluster.js';
import {
  configFile,
  DIST_CLI,
  freePortBlock,
  http,
  kvPath,
  startCluster,
  type TestCluster,
  waitForSettledRing,
} from './helpers.js';

const SETTINGS = {
  peerRetryMs: 300,
  gossipIntervalMs: 200,
  transferStartDelayMs: 300,
  peerTimeoutMs: 500,
  retireDelayMs: 300,
};
const KEYS = ['stock/r0', 'stock/r1', 'stock/r2'];
let cluster: TestCluster;
let joined: LocalNode | undefined;
let config: string;

beforeAll(async () => {
  config = await configFile(SETTINGS);
  cluster = await startCluster(3, ['--strong', 'stock', '--partitions', '16', '--config', config]);
}, 60_000);

afterAll(async () => {
  await joined?.kill();
  await cluster?.destroy();
});

type Entry = Operation<RegisterInput, RegisterOutput> & { key: string };

/** One writer: read a key, then compare-and-set it to a value of its own, until `stop`. */
async function writer(process: number, urls: () => string[], history: Entry[], stop: { done: boolean }) {
  for (let i = 0; !stop.done; i++) {
    const key = KEYS[(process + i) % KEYS.length]!;
    const list = urls();
    const base = list[(process + i) % list.length]!;
    const readAt = Date.now();
    const read = await http(base, 'GET', kvPath(key, '?missing=ok&timeoutMs=3000')).catch(() => undefined);
    if (read?.status === 200) {
      const { value, version } = read.body as { value?: unknown; version: string };
      history.push({
        key,
        process,
        input: { f: 'read' },
        callMs: readAt,
        returnMs: Date.now(),
        output: {
          ok: true,
          version: Number(version),
          ...(value === undefined ? {} : { value: JSON.stringify(value) }),
        },
      });
      const value2 = `p${process}-${i}`;
      const callMs = Date.now();
      const res = await http(base, 'PUT', kvPath(key, '?timeoutMs=3000'), {
        json: { value: value2 },
        headers: { 'if-match': `"${version}"` },
      }).catch(() => undefined);
      const input: RegisterInput = {
        f: 'cas',
        expectVersion: Number(version),
        value: JSON.stringify(value2),
      };
      if (res?.status === 200) {
        history.push({
          key,
          process,
          input,
          callMs,
          returnMs: Date.now(),
          output: { ok: true, version: Number(res.body.version) },
        });
      } else if (res?.status === 412) {
        const current = (res.body.error as { details: { currentVersion: string } }).details.currentVersion;
        history.push({
          key,
          process,
          input,
          callMs,
          returnMs: Date.now(),
          output: { ok: false, version: Number(current) },
        });
      } else {
        // No answer, or 503 after the round may have half run: the outcome is unknown.
        history.push({ key, process, input, callMs, returnMs: undefined, output: undefined });
      }
    }
  }
}

describe('strong keys while the ring changes', () => {
  it('a join, a leave, and a kill -9 then remove under compare-and-set writers: every key stays linearizable', async () => {
    const history: Entry[] = [];
    const stop = { done: false };
    let live = [...cluster.nodes];
    const urls = () => live.map((n) => n.url);
    const writers = [0, 1, 2, 3].map((p) => writer(p, urls, history, stop));
    const httpPort = await freePortBlock(2);
    joined = new LocalNode(
      {
        nodeId: 'n3',
        host: '127.0.0.1',
        httpPort,
        peerPort: httpPort + 1,
        dataDir: join(cluster.dir, 'n3'),
        seeds: [cluster.nodes[0]!.peerAddress],
        extraArgs: ['--log-level', 'warn', '--strong', 'stock', '--config', config],
      },
      DIST_CLI,
    );
    await joined.start();
    live = [...cluster.nodes, joined];
    await waitForSettledRing(live, 4, 40_000);
    const leaving = cluster.nodes[1]!;
    expect((await http(leaving.url, 'POST', '/v1/admin/leave', { json: {} })).status).toBe(200);
    live = live.filter((n) => n !== leaving);
    await waitForSettledRing(live, 3, 40_000);
    // A primary dies (kill -9) and is removed for good: its partitions move to the survivors.
    const dead = live[0]!;
    live = live.filter((n) => n !== dead);
    await dead.kill();
    expect(
      (await http(live[0]!.url, 'POST', '/v1/admin/remove', { json: { nodeId: dead.spec.nodeId } })).status,
    ).toBe(200);
    await waitForSettledRing(live, 2, 40_000);
    stop.done = true;
    await Promise.all(writers);

    const verdicts = checkRegisterHistory(history);
    for (const [key, verdict] of verdicts)
      expect(verdict, `${key}: ${verdict.explanation ?? ''}`).toMatchObject({ ok: true });
    const acked = history.filter((e) => e.input.f === 'cas' && e.output?.ok === true).length;
    expect(acked, 'compare-and-sets acknowledged during the changes').toBeGreaterThan(10);
  }, 120_000);
});
