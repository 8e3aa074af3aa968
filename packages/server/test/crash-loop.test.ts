/**
 * Crash safety with kill -9 under concurrent writes, repeatedly: every write a node acknowledged
 * (a 200 the client received) before the kill reads back after the restart, LevelDB (data and
 * hints, one database) opens cleanly every time, and hints held by a killed stand-in are still
 * delivered once everything is back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalNode } from '../src/cli/local-cluster.js';
import { send } from './fuzz-kit.js';
import { preferenceList, startCluster, type TestCluster, waitFor } from './helpers.js';

let cluster: TestCluster | undefined;

afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function put(base: string, key: string, value: unknown, context?: string) {
  const reply = await send(base, 'PUT', `/v1/kv/${encodeURIComponent(key)}`, {
    body: JSON.stringify(context === undefined ? { value } : { value, context }),
    headers: { 'content-type': 'application/json' },
    timeoutMs: 3_000,
  });
  return {
    status: reply.status,
    context: reply.status === 200 ? (JSON.parse(reply.text) as { context: string }).context : undefined,
  };
}

async function values(base: string, key: string, query = ''): Promise<unknown[] | undefined> {
  const reply = await send(base, 'GET', `/v1/kv/${encodeURIComponent(key)}${query}`);
  if (reply.status === 404) return undefined;
  expect(reply.status, `${key}: ${reply.text.slice(0, 200)}`).toBe(200);
  return (JSON.parse(reply.text) as { siblings: { value: unknown }[] }).siblings.map((s) => s.value);
}

/** Writers that keep `concurrency` blind puts of fresh keys in flight at `base` until stopped. */
function writeLoad(bases: () => string[], prefix: string, concurrency: number) {
  const acked = new Map<string, number>();
  let stopped = false;
  let seq = 0;
  const worker = async (w: number): Promise<void> => {
    while (!stopped) {
      const n = seq++;
      const key = `${prefix}-${n}`;
      const targets = bases();
      const result = await put(targets[w % targets.length]!, key, n).catch(() => undefined);
      if (result?.status === 200) acked.set(key, n);
      else await sleep(20);
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  return {
    acked,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** kill -9 after a random moment of load. */
async function killSoon(node: LocalNode, minMs: number, maxMs: number): Promise<void> {
  await sleep(minMs + Math.random() * (maxMs - minMs));
  await node.kill();
}

describe('crash safety', () => {
  it('keeps every acknowledged write through five kill -9 rounds under concurrent writes', async () => {
    cluster = await startCluster(1, ['--n', '1', '--r', '1', '--w', '1']);
    const node = cluster.nodes[0]!;
    const acked = new Map<string, number>();
    let chainContext: string | undefined;
    let chainAcked = -1;
    for (let round = 0; round < 5; round++) {
      const load = writeLoad(() => [node.url], `r${round}`, 12);
      // One causal chain: each write supersedes the one before, so after a crash the key must hold
      // the last acknowledged value or a later one, never an earlier one.
      let stopChain = false;
      const chain = (async () => {
        for (let n = chainAcked + 1; !stopChain; n++) {
          const result = await put(node.url, 'chain', n, chainContext).catch(() => undefined);
          if (result?.status !== 200) break;
          chainContext = result.context;
          chainAcked = n;
        }
      })();
      await killSoon(node, 200, 700);
      stopChain = true;
      await Promise.all([load.stop(), chain]);
      for (const [k, v] of load.acked) acked.set(k, v);
      // LevelDB must open cleanly after the crash: the node would exit while starting otherwise.
      await node.start();
      const missing = await lostWrites(node.url, load.acked);
      expect(missing, `round ${round}: acknowledged writes lost`).toEqual([]);
      const chainValues = (await values(node.url, 'chain')) as number[] | undefined;
      if (chainAcked >= 0) expect(Math.max(...(chainValues ?? [-1]))).toBeGreaterThanOrEqual(chainAcked);
      expect(load.acked.size, `round ${round}: writes acknowledged before the kill`).toBeGreaterThan(0);
    }
    // Every round's writes are still there at the end.
    expect(await lostWrites(node.url, acked)).toEqual([]);
  }, 60_000);

  it('delivers hints held by a stand-in that was killed -9 and restarted, and loses no acknowledged write', async () => {
    cluster = await startCluster(4);
    const [n0, n1, n2, n3] = cluster.nodes as [LocalNode, LocalNode, LocalNode, LocalNode];
    await n3.kill();
    const alive = [n0, n1, n2];
    const load = writeLoad(() => alive.filter((n) => n.running).map((n) => n.url), 'hinted', 8);
    // Wait until some node holds hints for n3, then kill the one holding the most, mid-writes.
    let holder: LocalNode | undefined;
    await waitFor(
      async () => {
        const held = await Promise.all(alive.map(async (n) => hintsHeld(n.url)));
        const most = Math.max(...held);
        holder = most >= 20 ? alive[held.indexOf(most)] : undefined;
        return holder !== undefined;
      },
      15_000,
      'a stand-in holds hints for the killed node',
    );
    await killSoon(holder!, 0, 300);
    // The writers go on while the stand-in is down: wait for more acknowledged writes.
    const before = load.acked.size;
    await waitFor(() => load.acked.size >= before + 10, 15_000, 'writes acknowledged past the kill');
    await load.stop();
    expect(load.acked.size).toBeGreaterThan(20);
    // The stand-in's LevelDB (data and hints) opens cleanly, and its hints are still there.
    await holder!.start();
    expect(await hintsHeld(holder!.url)).toBeGreaterThan(0);
    await n3.start();
    await waitFor(
      async () => (await Promise.all(cluster!.nodes.map((n) => hintsHeld(n.url)))).every((h) => h === 0),
      20_000,
      'every hint is delivered',
    );
    // Every acknowledged write reads back, and the node that was down holds those it replicates.
    expect(await lostWrites(n0.url, load.acked)).toEqual([]);
    const mine: string[] = [];
    for (const key of load.acked.keys())
      if ((await preferenceList(n0.url, key)).slice(0, 3).includes('n3')) mine.push(key);
    expect(mine.length).toBeGreaterThan(0);
    await waitFor(
      async () => {
        for (const key of mine) if ((await values(n3.url, key, '?local=true')) === undefined) return false;
        return true;
      },
      15_000,
      'the returned node holds every acknowledged write it replicates',
    );
  }, 90_000);
});

/** The acknowledged writes a read at `base` does not return, read 16 at a time. */
async function lostWrites(base: string, acked: ReadonlyMap<string, number>): Promise<string[]> {
  const entries = [...acked];
  const lost: string[] = [];
  for (let i = 0; i < entries.length; i += 16) {
    await Promise.all(
      entries.slice(i, i + 16).map(async ([key, value]) => {
        const got = await values(base, key);
        if (got === undefined || !got.includes(value)) lost.push(`${key}=${JSON.stringify(got)}`);
      }),
    );
  }
  return lost;
}

async function hintsHeld(base: string): Promise<number> {
  const reply = await send(base, 'GET', '/v1/status/repair');
  return (JSON.parse(reply.text) as { hints: { total: { count: number } } }).hints.total.count;
}
