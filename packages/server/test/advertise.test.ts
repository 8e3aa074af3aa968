import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalNode } from '../src/cli/local-cluster.js';
import { isWildcard, parseConfig } from '../src/config.js';
import { cli, DIST_CLI, freePortBlock, waitFor, waitForSettledRing } from './helpers.js';

interface MemberRow {
  nodeId: string;
  http: string;
  peer: string;
  status: string;
}

async function members(url: string): Promise<MemberRow[]> {
  const res = await fetch(`${url}/v1/status`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { members: MemberRow[] }).members;
}

/** The first value `probe` gives (not undefined) before the deadline (helpers' waitFor polls it). */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 8_000): Promise<T> {
  let value: T | undefined;
  await waitFor(
    async () => {
      value = await probe();
      return value !== undefined;
    },
    timeoutMs,
    what,
  );
  return value as T;
}

let dir: string;
let h0: number;
let p0: number;
let n0: LocalNode;
let n1: LocalNode;

/** n0 binds every interface and advertises `host`; n1 is a plain loopback node. */
function wildcardNode(host: string): LocalNode {
  return new LocalNode(
    {
      nodeId: 'n0',
      host: '127.0.0.1',
      httpPort: h0,
      peerPort: p0,
      dataDir: join(dir, 'n0'),
      // Its own address as its seed, as a StatefulSet's shared seed list has it: it creates the cluster.
      seeds: [`${host}:${p0}`],
      extraArgs: [
        '--http',
        `0.0.0.0:${h0}`,
        '--peer',
        `0.0.0.0:${p0}`,
        '--advertise-http',
        `${host}:${h0}`,
        '--advertise-peer',
        `${host}:${p0}`,
        '--insecure',
        '--log-level',
        'warn',
      ],
    },
    DIST_CLI,
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tessera-advertise-'));
  const base = await freePortBlock(4);
  [h0, p0] = [base, base + 2];
  n0 = wildcardNode('127.0.0.1');
  n1 = new LocalNode(
    {
      nodeId: 'n1',
      host: '127.0.0.1',
      httpPort: base + 1,
      peerPort: base + 3,
      dataDir: join(dir, 'n1'),
      seeds: [`127.0.0.1:${p0}`],
      extraArgs: ['--log-level', 'warn'],
    },
    DIST_CLI,
  );
  await n0.start();
  await n1.start();
  await waitForSettledRing([n0, n1], 2, 15_000);
}, 25_000);

afterAll(async () => {
  await Promise.all([n0?.kill(), n1?.kill()]);
  await rm(dir, { recursive: true, force: true });
});

describe('advertised addresses', () => {
  it('a node bound on 0.0.0.0 shows its advertised addresses in every node’s /v1/status', async () => {
    const want = { nodeId: 'n0', http: `127.0.0.1:${h0}`, peer: `127.0.0.1:${p0}` };
    for (const node of [n0, n1]) {
      const rows = await until('n0 and n1 listed', async () => {
        const all = await members(node.url);
        return all.length === 2 ? all : undefined;
      });
      expect(rows.find((m) => m.nodeId === 'n0')).toMatchObject(want);
      for (const m of rows) expect(isWildcard(m.http) || isWildcard(m.peer)).toBe(false);
    }
  });

  it('a restart with other advertised addresses reaches the peers by gossip, and they dial the new one', async () => {
    await n0.stop();
    n0 = wildcardNode('127.0.0.2');
    await n0.start();
    const seen = await until('n1 sees n0’s new addresses, up', async () => {
      const row = (await members(n1.url)).find((m) => m.nodeId === 'n0');
      return row?.http === `127.0.0.2:${h0}` && row.status === 'up' ? row : undefined;
    });
    expect(seen).toMatchObject({ http: `127.0.0.2:${h0}`, peer: `127.0.0.2:${p0}` });
    // n1 reaches n0 at the new peer address: a write through n1 is stored on both.
    const put = await fetch(`${n1.url}/v1/kv/advertise?w=2`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ value: 'x' }),
    });
    expect(put.status, await put.text()).toBeLessThan(300);
  });
});

describe('wildcard addresses are never advertised', () => {
  it('the config refuses them and names the flag to pass', () => {
    const base = { nodeId: 'x', dataDir: '/tmp/x' };
    expect(() => parseConfig({ ...base, http: '0.0.0.0:7000', peer: '127.0.0.1:8000' })).toThrow(
      /--advertise-http/,
    );
    expect(() => parseConfig({ ...base, http: '127.0.0.1:7000', peer: '[::]:8000' })).toThrow(
      /--advertise-peer/,
    );
    expect(() =>
      parseConfig({ ...base, http: '127.0.0.1:7000', peer: '127.0.0.1:8000', advertisePeer: ':::8000' }),
    ).toThrow(/--advertise-peer/);
    const ok = parseConfig({
      ...base,
      http: '0.0.0.0:7000',
      peer: '[::]:8000',
      advertiseHttp: 'db1.example.com:7000',
      advertisePeer: '10.0.0.1:8000',
    });
    expect(ok.advertiseHttp).toBe('db1.example.com:7000');
  });

  it('`tessera start` bound on 0.0.0.0 without --advertise-http exits with that message', async () => {
    const started = await cli([
      'start',
      '--node-id',
      'x',
      '--http',
      '0.0.0.0:1',
      '--peer',
      '127.0.0.1:2',
      '--data-dir',
      join(dir, 'x'),
      '--storage',
      'memory',
      '--insecure',
    ]);
    expect(started.code).toBe(1);
    expect(started.out).toContain('wildcard HTTP address');
    expect(started.out).toContain('--advertise-http');
  });
});
