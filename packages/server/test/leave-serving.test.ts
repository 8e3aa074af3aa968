/**
 * A leave as the clients of the leaving node see it (issue 16, item 4): they keep reading and
 * writing through it while its partitions move and while it hands over what it still holds after
 * the commit, never get FORBIDDEN, lose no acknowledged write, and once it has left get NODE_LEFT
 * naming the members to use. `tessera admin leave --wait` returns only once the node has handed
 * everything over, and status shows it leaving, then retiring, meanwhile.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configFile,
  DIST_CLI,
  http,
  kvPath,
  type SiblingBody,
  type StatusBody,
  startCluster,
  status,
  type TestCluster,
  waitFor,
} from './helpers.js';

const run = promisify(execFile);
const FAST = {
  transferStartDelayMs: 200,
  transferIntervalMs: 100,
  // Long enough that the retiring phase is seen by the status poller.
  retireDelayMs: 1_000,
  gossipIntervalMs: 200,
  handoffIntervalMs: 200,
};

interface Departure {
  phase: string;
  keysHeld: number | null;
  keysHandedOver: number;
  progress: number;
}
type Status = StatusBody & { departure: Departure | null };

let cluster: TestCluster | undefined;
let client: ReturnType<typeof keepUsing> | undefined;

beforeAll(async () => {
  // Three nodes keep the test short; N=2 so that the leave moves partitions (R=W=2: strict quorums).
  cluster = await startCluster(3, ['--n', '2', '--config', await configFile(FAST)]);
}, 30_000);

afterAll(async () => {
  await client?.stop();
  await cluster?.destroy();
});

/** Writes and reads through `url` until stopped: what was acknowledged, and every other answer. */
function keepUsing(url: string) {
  const acked = new Map<string, number>();
  const answers: string[] = [];
  let running = true;
  const step = async (i: number): Promise<void> => {
    const key = `leave-serving-${i}`;
    const put = await http(url, 'PUT', kvPath(key), { json: { value: { i } } });
    if (put.status === 200) acked.set(key, i);
    else answers.push(`PUT ${put.status} ${JSON.stringify(put.body.error)}`);
    const read = [...acked.keys()][Math.floor(Math.random() * acked.size)];
    if (read === undefined) return;
    const got = await http(url, 'GET', kvPath(read));
    const values = (got.body as unknown as SiblingBody).siblings?.map((s) => s.value);
    if (got.status !== 200) answers.push(`GET ${got.status} ${JSON.stringify(got.body.error)}`);
    else if (JSON.stringify(values) !== JSON.stringify([{ i: acked.get(read) }]))
      answers.push(`GET ${read}: ${JSON.stringify(values)}`);
  };
  const loop = (async () => {
    for (let i = 0; running; i++)
      await step(i).catch((err: unknown) => answers.push(`failed: ${String(err)}`));
  })();
  return {
    acked,
    answers,
    stop: async (): Promise<void> => {
      running = false;
      await loop;
    },
  };
}

describe('a leaving node keeps serving its clients', () => {
  it('serves through the leave and the handover, then answers NODE_LEFT; leave --wait waits for the handover', async () => {
    const [stay, leaver] = [cluster!.nodes.slice(0, 2), cluster!.nodes[2]!];
    const observer = stay[0]!;
    const using = keepUsing(leaver.url);
    client = using;
    await waitFor(() => using.acked.size >= 20, 5_000, 'the client wrote through the leaver');

    // What status shows meanwhile: the leaver as a peer lists it, and its own departure phase.
    const seenByPeer = new Set<string>();
    const seenBySelf = new Set<string>();
    let polling = true;
    const poller = waitFor(
      async () => {
        const [peerView, own] = await Promise.all([
          status(observer.url),
          status(leaver.url) as Promise<Status>,
        ]);
        const listed = peerView.members.find((m) => m.nodeId === leaver.spec.nodeId);
        if (listed !== undefined) seenByPeer.add(listed.status);
        if (own.departure !== null) seenBySelf.add(own.departure.phase);
        return !polling;
      },
      25_000,
      'admin leave returned',
    );

    const { stdout } = await run(
      process.execPath,
      [DIST_CLI, 'admin', 'leave', '--node', leaver.url, '--wait'],
      {
        timeout: 20_000,
      },
    );
    const atReturn = (await status(leaver.url)) as Status;
    polling = false;
    await poller;

    // --wait returned only after the handover ended, and showed its progress.
    expect(atReturn.departure?.phase).toBe('left');
    expect(atReturn.departure?.keysHeld).toBe(0);
    expect(stdout).toMatch(/retiring \[[#-]+\] \d+%/);
    expect(stdout).toContain('left the cluster: handed everything over');
    expect(seenByPeer).toContain('retiring');
    expect(seenBySelf).toEqual(new Set(['leaving', 'retiring', 'left']));

    // After it left: a clear answer naming the members, never FORBIDDEN.
    await waitFor(
      () => using.answers.some((a) => a.includes('NODE_LEFT')),
      5_000,
      'the client got NODE_LEFT',
    );
    await using.stop();
    const refused = await http(leaver.url, 'GET', kvPath('leave-serving-0'));
    expect(refused.status).toBe(503);
    const error = refused.body.error as { code: string; details: { members: string[] } };
    expect(error.code).toBe('NODE_LEFT');
    expect(error.details.members.sort()).toEqual(stay.map((n) => n.url.replace('http://', '')).sort());

    // Before it left every answer was a success; after, only NODE_LEFT.
    const firstLeft = using.answers.findIndex((a) => a.includes('NODE_LEFT'));
    expect(using.answers.slice(0, firstLeft)).toEqual([]);
    expect(using.answers.filter((a) => !a.includes('NODE_LEFT'))).toEqual([]);

    // No acknowledged write was lost: each reads back through the remaining members.
    const lost: string[] = [];
    for (const [key, i] of using.acked) {
      const got = await http(stay[i % stay.length]!.url, 'GET', kvPath(key));
      const values = (got.body as unknown as SiblingBody).siblings?.map((s) => s.value);
      if (JSON.stringify(values) !== JSON.stringify([{ i }]))
        lost.push(`${key}: ${got.status} ${JSON.stringify(values)}`);
    }
    expect(lost).toEqual([]);
    expect(using.acked.size).toBeGreaterThan(50);
  }, 30_000);
});
