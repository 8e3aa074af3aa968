/**
 * Property-based fuzzing of the peer gRPC API of a real node process, through a raw grpc-js
 * client that sends bytes as they are: random bytes, truncated and mutated valid messages, and
 * well-formed messages with absurd field values, to every method. Every call is answered with a
 * status other than INTERNAL or UNKNOWN (with the Tessera code in trailing metadata), the node
 * stays up with bounded memory, and the keys it held before read back identical.
 *
 * A new RPC is covered by adding a row to `peerMethods` (fuzz-grpc-cases.ts).
 */
import { Client, credentials, type ServiceError, status } from '@grpc/grpc-js';
import { encodeState, isNodeErrorCode, PEER_DECODE_LIMITS, type Sibling } from '@tessera/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pb from '../src/transport/generated/tessera/peer/v1/peer.js';
import { broken, FUZZED_KEYS, type MethodCase, peerMethods } from './fuzz-grpc-cases.js';
import { MiB, send, watchRss } from './fuzz-kit.js';
import { memberMetadata } from './grpc-kit.js';
import { startCluster, type TestCluster } from './helpers.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const CALL_TIMEOUT_MS = 5_000;
/**
 * One property's whole run: RUNS calls, each bounded by CALL_TIMEOUT_MS. The Pipe's properties
 * ran out 30 s, then 120 s, in CI while a merge of states with thousands of siblings was quadratic
 * (see the regression below); they take 0.3-2 s since.
 */
const PROPERTY_TIMEOUT_MS = 120_000;
const RSS_BYTES_MAX = 500 * MiB;

let cluster: TestCluster;
let url: string;
let peer: string;
let clusterId: string;
let client: Client;
let rss: ReturnType<typeof watchRss>;
const known = new Map<string, string>();

beforeAll(async () => {
  cluster = await startCluster(1, ['--n', '1', '--r', '1', '--w', '1', '--value-bytes-max', '65536']);
  url = cluster.nodes[0]!.url;
  peer = cluster.nodes[0]!.peerAddress;
  rss = watchRss(cluster.nodes[0]!.pid!);
  clusterId = ((await (await fetch(`${url}/v1/status`)).json()) as { clusterId: string }).clusterId;
  client = new Client(peer, credentials.createInsecure(), { 'grpc.max_send_message_length': 64 * MiB });
  for (const key of ['known-a', 'known-ü', 'fuzz-a']) {
    const put = await send(url, 'PUT', `/v1/kv/${encodeURIComponent(key)}`, {
      body: JSON.stringify({ value: { key } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(put.status).toBe(200);
    if (key.startsWith('known')) known.set(key, await localRead(key));
  }
}, 60_000);

afterAll(async () => {
  client?.close();
  await rss?.stop();
  await cluster?.destroy();
});

async function localRead(key: string): Promise<string> {
  return (await send(url, 'GET', `/v1/kv/${encodeURIComponent(key)}?local=true`)).text;
}

interface Outcome {
  readonly code: number;
  readonly tesseraCode: string | undefined;
  readonly details: string;
}

/** One call with the request bytes as they are. */
function call(path: string, bytes: Uint8Array, stream: boolean): Promise<Outcome> {
  const identity = (b: Buffer): Buffer => b;
  const deadline = Date.now() + CALL_TIMEOUT_MS;
  const outcome = (err: ServiceError | null): Outcome => ({
    code: err?.code ?? status.OK,
    tesseraCode: err?.metadata?.get('tessera-code')[0]?.toString(),
    details: err?.details ?? '',
  });
  return new Promise((resolve) => {
    if (!stream) {
      client.makeUnaryRequest(
        path,
        identity,
        identity,
        Buffer.from(bytes),
        memberMetadata(cluster.nodes[0]!.spec.nodeId),
        { deadline },
        (err) => resolve(outcome(err)),
      );
      return;
    }
    const call = client.makeServerStreamRequest(
      path,
      identity,
      identity,
      Buffer.from(bytes),
      memberMetadata(cluster.nodes[0]!.spec.nodeId),
      {
        deadline,
      },
    );
    call.on('data', () => {});
    call.on('error', (err: ServiceError) => resolve(outcome(err)));
    call.on('end', () => resolve(outcome(null)));
  });
}

/**
 * One replication-pipe stream carrying the bytes as one message. Calls refused inside the stream
 * come back as PipeErrors: the first one (or an INTERNAL one) stands for the outcome.
 */
function callPipe(bytes: Uint8Array): Promise<Outcome> {
  const identity = (b: Buffer): Buffer => b;
  return new Promise((resolve) => {
    let refused: Outcome | undefined;
    const stream = client.makeBidiStreamRequest(
      pb.PeerService.pipe.path,
      identity,
      identity,
      memberMetadata(cluster.nodes[0]!.spec.nodeId),
      {
        deadline: Date.now() + CALL_TIMEOUT_MS,
      },
    );
    stream.on('data', (data: Buffer) => {
      for (const reply of pb.PipeResponse.decode(data).replies) {
        if (reply.error === undefined || refused?.tesseraCode === 'INTERNAL') continue;
        refused = {
          code: status.INVALID_ARGUMENT,
          tesseraCode: reply.error.code,
          details: reply.error.message,
        };
      }
    });
    stream.on('error', (err: ServiceError) =>
      resolve({
        code: err.code,
        tesseraCode: err.metadata?.get('tessera-code')[0]?.toString(),
        details: err.details,
      }),
    );
    stream.on('end', () => resolve(refused ?? { code: status.OK, tesseraCode: undefined, details: '' }));
    stream.write(Buffer.from(bytes));
    stream.end();
  });
}

function callCase(c: MethodCase, bytes: Uint8Array): Promise<Outcome> {
  return c.bidi === true ? callPipe(bytes) : call(c.path, bytes, c.stream === true);
}

/** Codes a node may answer a hostile or broken peer with; never INTERNAL or UNKNOWN. */
const ACCEPTABLE = new Set<number>([
  status.OK,
  status.INVALID_ARGUMENT,
  status.NOT_FOUND,
  status.FAILED_PRECONDITION,
  status.RESOURCE_EXHAUSTED,
  status.UNAVAILABLE,
  status.DEADLINE_EXCEEDED,
  status.PERMISSION_DENIED,
  status.UNIMPLEMENTED,
]);

function expectAnswered(outcome: Outcome, what: string): void {
  expect(ACCEPTABLE.has(outcome.code), `${what}: status ${outcome.code} ${outcome.details}`).toBe(true);
  // Every refusal but grpc-js's own size check carries the Tessera code.
  if (
    outcome.code !== status.OK &&
    !(outcome.code === status.RESOURCE_EXHAUSTED && outcome.tesseraCode === undefined)
  ) {
    expect(
      isNodeErrorCode(outcome.tesseraCode),
      `${what}: tessera-code ${outcome.tesseraCode} (${outcome.details})`,
    ).toBe(true);
    expect(outcome.tesseraCode).not.toBe('INTERNAL');
  }
}

const METHODS = peerMethods(() => clusterId);

describe('peer gRPC fuzzing', () => {
  describe.each(METHODS)('$name', (method) => {
    const { name, requests } = method;
    it(
      'answers well-formed requests with absurd field values without INTERNAL',
      async () => {
        await fc.assert(
          fc.asyncProperty(requests, async (request) => {
            expectAnswered(
              await callCase(method, request),
              `${name} ${Buffer.from(request).toString('hex').slice(0, 120)}`,
            );
          }),
          { numRuns: RUNS },
        );
      },
      PROPERTY_TIMEOUT_MS,
    );

    it(
      'answers random, truncated and mutated bytes without INTERNAL',
      async () => {
        await fc.assert(
          fc.asyncProperty(broken(requests), async (request) => {
            expectAnswered(
              await callCase(method, request),
              `${name} ${Buffer.from(request).toString('hex').slice(0, 120)}`,
            );
          }),
          { numRuns: RUNS },
        );
      },
      PROPERTY_TIMEOUT_MS,
    );

    it('refuses a message above the 4 MiB limit with RESOURCE_EXHAUSTED', async () => {
      const outcome = await callCase(method, new Uint8Array(5 * MiB).fill(0x0a));
      expect(outcome.code).toBe(status.RESOURCE_EXHAUSTED);
    });
  });

  describe('regressions', () => {
    const replicate = (key: string, sibling: Partial<Sibling>): Promise<Outcome> =>
      call(
        pb.PeerService.replicate.path,
        pb.ReplicateRequest.encode({
          key,
          state: encodeState({
            vv: [{ node: 'ghost', counter: 1, timestampMs: 1 }],
            siblings: [
              {
                dot: { node: 'ghost', counter: 1 },
                lastModifiedMs: 1,
                value: new TextEncoder().encode('1'),
                ...sibling,
              },
            ],
          }),
        }).finish(),
        false,
      );

    it('refuses a replicated state whose time no Date holds (reads of the key used to fail with 500)', async () => {
      const outcome = await replicate('fuzz-time', { lastModifiedMs: 2 ** 53 - 1 });
      expect(outcome.code).toBe(status.INVALID_ARGUMENT);
      expect((await send(url, 'GET', '/v1/kv/fuzz-time?local=true')).status).toBe(404);
    });

    it('refuses a replicated or forwarded value that is not JSON (it was stored and spliced into reads)', async () => {
      expect((await replicate('fuzz-json', { value: new TextEncoder().encode('not json') })).code).toBe(
        status.INVALID_ARGUMENT,
      );
      const forwarded = pb.CoordinateRequest.encode({
        key: 'fuzz-json',
        value: new TextEncoder().encode('{'),
        timeoutMs: 1_000,
      }).finish();
      expect((await call(pb.PeerService.coordinate.path, forwarded, false)).code).toBe(
        status.INVALID_ARGUMENT,
      );
      expect((await send(url, 'GET', '/v1/kv/fuzz-json?local=true')).status).toBe(404);
    });

    it('answers a TransferPartition that does not decode, or names no partition, at once (it used to hang to the deadline or be INTERNAL)', async () => {
      const started = Date.now();
      expect((await call(pb.PeerService.transferPartition.path, Uint8Array.from([125, 0]), true)).code).toBe(
        status.INVALID_ARGUMENT,
      );
      const missing = pb.TransferPartitionRequest.encode({ partition: 64, keysMax: 1 }).finish();
      const outcome = await call(pb.PeerService.transferPartition.path, missing, true);
      expect(outcome.tesseraCode).toBe('CLUSTER_MISMATCH');
      const invalid = pb.TransferPartitionRequest.encode({ partition: 0, keysMax: 0 }).finish();
      expect((await call(pb.PeerService.transferPartition.path, invalid, true)).code).toBe(
        status.INVALID_ARGUMENT,
      );
      expect(Date.now() - started).toBeLessThan(CALL_TIMEOUT_MS);
    });
    it('merges a pipe message of states with thousands of siblings well within the deadline (each merge used to be quadratic, and the pipe stalled for seconds)', async () => {
      const count = PEER_DECODE_LIMITS.siblingsMax;
      const state = encodeState({
        vv: [{ node: 'ghost', counter: count, timestampMs: 1 }],
        siblings: Array.from({ length: count }, (_, i) => ({
          dot: { node: 'ghost', counter: i + 1 },
          lastModifiedMs: 1,
          value: new TextEncoder().encode(`${i}`),
        })),
      });
      const calls = Array.from({ length: 16 }, (_, id) => ({ id, replicate: { key: 'fuzz-c', state } }));
      const started = Date.now();
      const outcome = await callPipe(pb.PipeRequest.encode({ calls }).finish());
      expect(outcome.code, outcome.details).toBe(status.OK);
      expect(Date.now() - started).toBeLessThan(CALL_TIMEOUT_MS);
    });
  });

  it('answers reads of the keys the fuzzing wrote to with well-formed JSON', async () => {
    for (const key of FUZZED_KEYS) {
      for (const query of ['?local=true', '']) {
        const reply = await send(url, 'GET', `/v1/kv/${key}${query}`);
        expect(reply.status, `${key}${query}: ${reply.text.slice(0, 300)}`).toBeLessThan(500);
        expect(() => JSON.parse(reply.text), `${key}${query}: ${reply.text.slice(0, 300)}`).not.toThrow();
      }
    }
  });

  it('still holds every key it held, byte for byte, serves peers, and stayed within bounded memory', async () => {
    for (const [key, body] of known) expect(await localRead(key)).toBe(body);
    const read = await call(
      pb.PeerService.read.path,
      pb.ReadRequest.encode({ key: 'known-a' }).finish(),
      false,
    );
    expect(read.code).toBe(status.OK);
    expect((await send(url, 'GET', '/health')).status).toBe(200);
    expect(await rss.stop()).toBeLessThan(RSS_BYTES_MAX);
  });
});
