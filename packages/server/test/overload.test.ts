/**
 * Overload: a node given more concurrent requests than inflightMax sheds the excess with 503
 * OVERLOADED and Retry-After (before reading their bodies), keeps its memory bounded, and serves
 * normally once the load stops. The same for peer calls past peerInflightMax.
 */
import { connect, type Socket } from 'node:net';
import { Client, credentials, type ServiceError, status } from '@grpc/grpc-js';
import { encodeState } from '@tessera/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pb from '../src/transport/generated/tessera/peer/v1/peer.js';
import { expectClientReply, MiB, parseRaw, type RawReply, send, sendRaw, watchRss } from './fuzz-kit.js';
import { memberMetadata } from './grpc-kit.js';
import { configFile, startCluster, type TestCluster, waitFor } from './helpers.js';

const INFLIGHT_MAX = 8;
const PEER_INFLIGHT_MAX = 4;
const RSS_BYTES_MAX = 400 * MiB;

let cluster: TestCluster;
let url: string;

beforeAll(async () => {
  const config = await configFile({ inflightMax: INFLIGHT_MAX, peerInflightMax: PEER_INFLIGHT_MAX });
  cluster = await startCluster(1, [
    '--config',
    config,
    '--n',
    '1',
    '--r',
    '1',
    '--w',
    '1',
    '--durability',
    'fsync',
  ]);
  url = cluster.nodes[0]!.url;
}, 60_000);

afterAll(async () => {
  await cluster?.destroy();
});

const put = (key: string, value: unknown, ownConnection = false): Promise<RawReply> =>
  send(url, 'PUT', `/v1/kv/${encodeURIComponent(key)}`, {
    body: JSON.stringify({ value }),
    headers: { 'content-type': 'application/json' },
    ownConnection,
  });

function expectOverloaded(reply: RawReply, what: string): void {
  expect(reply.status, what).toBe(503);
  expect(reply.headers['retry-after'], what).toBe('1');
  expect(JSON.parse(reply.text)).toMatchObject({
    error: { code: 'OVERLOADED', message: expect.any(String) },
  });
}

/** Requests whose headers arrived and whose body never does: each holds an admission until closed. */
async function holdSlots(count: number): Promise<Socket[]> {
  const port = Number(new URL(url).port);
  const sockets = Array.from({ length: count }, (_, i) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `PUT /v1/kv/held-${i} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
    );
    return socket;
  });
  await waitFor(
    async () =>
      /tessera_inflight_requests (\d+)/.exec((await send(url, 'GET', '/metrics')).text)?.[1] === `${count}`,
    5_000,
    `${count} requests in flight`,
  );
  return sockets;
}

describe('overload', () => {
  it('sheds requests past inflightMax with 503 OVERLOADED and Retry-After, before reading their bodies', async () => {
    const held = await holdSlots(INFLIGHT_MAX);
    try {
      expectOverloaded(await put('refused', 1, true), 'PUT past the limit');
      expectOverloaded(
        await send(url, 'GET', '/v1/kv/refused', { ownConnection: true }),
        'GET past the limit',
      );
      // A body declared and never sent: the refusal does not wait for it.
      const { text } = await sendRaw(
        url,
        `PUT /v1/kv/refused HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${60 * 1024}\r\n\r\n`,
        2_000,
      );
      expect(parseRaw(text)[0]?.status).toBe(503);
      // Health and metrics stay reachable while client calls are shed.
      expect((await send(url, 'GET', '/health', { ownConnection: true })).status).toBe(200);
    } finally {
      for (const socket of held) socket.destroy();
    }
    await waitFor(async () => (await put('after-hold', 1)).status === 200, 5_000, 'the node serves again');
  });

  it('under a burst far above its limit answers only 200 or 503 OVERLOADED, with bounded memory, then serves normally', async () => {
    const rss = watchRss(cluster.nodes[0]!.pid!);
    const replies = await Promise.all(
      Array.from({ length: 400 }, (_, i) => put(`burst-${i % 50}`, { i, pad: 'x'.repeat(2_000) }, true)),
    );
    const max = await rss.stop();
    const counts = new Map<number, number>();
    for (const [i, reply] of replies.entries()) {
      counts.set(reply.status, (counts.get(reply.status) ?? 0) + 1);
      if (reply.status === 503) expectOverloaded(reply, `burst ${i}`);
      else expect(reply.status, `burst ${i}: ${reply.text.slice(0, 200)}`).toBe(200);
    }
    expect(counts.get(503) ?? 0).toBeGreaterThan(0);
    expect(counts.get(200) ?? 0).toBeGreaterThan(0);
    expect(max).toBeLessThan(RSS_BYTES_MAX);
    // Load gone: everything served, nothing left counted in flight.
    for (let i = 0; i < 20; i++) expectClientReply(await put(`after-${i}`, i), 'after the burst');
    expect((await send(url, 'GET', '/v1/kv/after-19')).status).toBe(200);
    const metrics = (await send(url, 'GET', '/metrics')).text;
    expect(metrics).toMatch(/tessera_inflight_requests 0/);
    expect(metrics).toMatch(/tessera_requests_total\{op="put",outcome="OVERLOADED"\} [1-9]/);
  });

  it('sheds peer calls past peerInflightMax with RESOURCE_EXHAUSTED / OVERLOADED, and serves peers after', async () => {
    const client = new Client(cluster.nodes[0]!.peerAddress, credentials.createInsecure());
    const identity = (b: Buffer): Buffer => b;
    const replicate = (i: number): Promise<ServiceError | null> => {
      const request = pb.ReplicateRequest.encode({
        key: `peer-${i}`,
        state: encodeState({
          vv: [{ node: 'n9', counter: 1, timestampMs: 1 }],
          siblings: [
            { dot: { node: 'n9', counter: 1 }, lastModifiedMs: 1, value: new TextEncoder().encode(`${i}`) },
          ],
        }),
      }).finish();
      return new Promise((resolve) =>
        client.makeUnaryRequest(
          pb.PeerService.replicate.path,
          identity,
          identity,
          Buffer.from(request),
          memberMetadata(cluster.nodes[0]!.spec.nodeId),
          { deadline: Date.now() + 10_000 },
          (err) => resolve(err),
        ),
      );
    };
    try {
      const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => replicate(i)));
      const refused = outcomes.filter((e) => e !== null);
      for (const e of refused) {
        expect(e.code).toBe(status.RESOURCE_EXHAUSTED);
        expect(e.metadata.get('tessera-code')[0]).toBe('OVERLOADED');
      }
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.length).toBeLessThan(200);
      expect(await replicate(1_000)).toBeNull();
    } finally {
      client.close();
    }
  });
});
