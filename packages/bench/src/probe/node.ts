/**
 * One node of the replication-shape probe (`pnpm bench probe`): issue 18's "200-line probe with
 * Tessera's replication shape", the floor of what this machine allows for it. A fastify front on
 * `/v1/kv/:key`, and under it only the shape: every put and get goes to all three nodes (the
 * coordinator's own LevelDB and two peers, N=3), answered once two have (W=2, R=2). The calls of
 * one event-loop tick leave as one frame per peer (probe/frames.ts) and meet LevelDB as one batch
 * (puts) and one `getMany` (gets), on the coordinator and on each peer alike. No clocks, contexts,
 * siblings, Merkle trees, hints, metrics or validation: what Tessera does beyond this is its cost.
 *
 * Args: `--id ID --http PORT --peer PORT --dir DIR [--peers HOST:PORT,HOST:PORT]` (a node without
 * peers only serves them). Prints `{"http":N,"peer":N}` once listening.
 */
import { connect, createServer, type Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { ClassicLevel } from 'classic-level';
import Fastify from 'fastify';
import {
  decodeCalls,
  decodeReplies,
  encodeCalls,
  encodeReplies,
  frameReader,
  GET,
  type Kind,
  type ProbeCall,
  type ProbeReply,
  PUT,
} from './frames.js';

const { values: args } = parseArgs({
  options: {
    id: { type: 'string', default: 'n0' },
    http: { type: 'string', default: '0' },
    peer: { type: 'string', default: '0' },
    dir: { type: 'string' },
    peers: { type: 'string', default: '' },
  },
});
if (args.dir === undefined) throw new Error('--dir is required');

const db = new ClassicLevel<string, Uint8Array>(args.dir, { keyEncoding: 'utf8', valueEncoding: 'view' });
await db.open();
const NOTHING = new Uint8Array(0);

/** One batch of calls against this node's LevelDB: the puts in one batch, the gets in one getMany. */
async function apply(calls: readonly ProbeCall[]): Promise<ProbeReply[]> {
  const puts = calls.filter((c) => c.kind === PUT);
  const gets = calls.filter((c) => c.kind === GET);
  const [, found] = await Promise.all([
    puts.length === 0 ? undefined : db.batch(puts.map((p) => ({ type: 'put', key: p.key, value: p.value }))),
    gets.length === 0 ? [] : db.getMany(gets.map((g) => g.key)),
  ]);
  const replies: ProbeReply[] = puts.map((p) => ({ id: p.id, value: NOTHING }));
  gets.forEach((g, i) => {
    replies.push({ id: g.id, value: found[i] });
  });
  return replies;
}

/** Feeds a socket's bytes to `read`; a malformed frame ends the connection, not the process. */
function onFrames(socket: Socket, read: (chunk: Buffer) => void): void {
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    try {
      read(chunk);
    } catch {
      socket.destroy();
    }
  });
}

const peerServer = createServer({ noDelay: true }, (socket) => {
  onFrames(
    socket,
    frameReader((frame) => {
      // A copy: the frame's bytes belong to the socket's chunk, and LevelDB holds values past this tick.
      void apply(decodeCalls(Buffer.from(frame))).then(
        (replies) => socket.write(encodeReplies(replies)),
        () => socket.destroy(),
      );
    }),
  );
});
await new Promise<void>((resolve) => peerServer.listen(Number(args.peer), '127.0.0.1', resolve));

/** A call's answer: the value (undefined: the node holds none), or FAILED when its node could not answer. */
const FAILED = Symbol('failed');
type Done = (value: Uint8Array | undefined | typeof FAILED) => void;

interface Link {
  readonly socket: Socket;
  closed: boolean;
  outbox: ProbeCall[];
  readonly waiting: Map<number, Done>;
}

function link(address: string): Link {
  const [host, port] = address.split(':');
  const socket = connect({ host: host ?? '127.0.0.1', port: Number(port), noDelay: true });
  const peer: Link = { socket, closed: false, outbox: [], waiting: new Map() };
  onFrames(
    socket,
    frameReader((frame) => {
      for (const reply of decodeReplies(frame)) {
        const done = peer.waiting.get(reply.id);
        peer.waiting.delete(reply.id);
        done?.(reply.value);
      }
    }),
  );
  socket.on('close', () => {
    // The probe does not reconnect: every call waiting on this peer fails, and every later one.
    peer.closed = true;
    for (const done of peer.waiting.values()) done(FAILED);
    peer.waiting.clear();
  });
  return peer;
}

const peers = args.peers
  .split(',')
  .filter((a) => a.length > 0)
  .map(link);
let nextId = 1;
let local: (ProbeCall & { readonly done: Done })[] = [];
let flushQueued = false;

function flush(): void {
  flushQueued = false;
  const calls = local;
  local = [];
  const doneOf = new Map(calls.map((c) => [c.id, c.done]));
  void apply(calls).then(
    (replies) => {
      for (const r of replies) doneOf.get(r.id)?.(r.value);
    },
    () => {
      for (const c of calls) c.done(FAILED);
    },
  );
  for (const peer of peers) {
    if (peer.outbox.length === 0) continue;
    peer.socket.write(encodeCalls(peer.outbox));
    peer.outbox = [];
  }
}

/** Sends the call to this node and every peer; resolves with the first two answers, or fails with 503 once two cannot come. */
function quorum(kind: Kind, key: string, value: Uint8Array): Promise<(Uint8Array | undefined)[]> {
  return new Promise((resolve, reject) => {
    if (peers.length === 0) {
      // n1 and n2 run without peers: they only serve n0, the coordinator of every request.
      reject(
        Object.assign(new Error('this probe node only answers its peers; send requests to n0'), {
          statusCode: 503,
        }),
      );
      return;
    }
    const answers: (Uint8Array | undefined)[] = [];
    let failures = 0;
    const done: Done = (v) => {
      if (v === FAILED) {
        // This node and its peers: once fewer than two can answer, the request fails.
        if (peers.length + 1 - ++failures === 1)
          reject(Object.assign(new Error('fewer than two nodes can answer'), { statusCode: 503 }));
        return;
      }
      answers.push(v);
      if (answers.length === 2) resolve(answers);
    };
    local.push({ id: nextId++, kind, key, value, done });
    for (const peer of peers) {
      if (peer.closed) {
        done(FAILED);
        continue;
      }
      const id = nextId++;
      peer.waiting.set(id, done);
      peer.outbox.push({ id, kind, key, value });
    }
    if (!flushQueued) {
      flushQueued = true;
      setImmediate(flush);
    }
  });
}

const app = Fastify({ logger: false });
const members = ['n0', 'n1', 'n2'].map((nodeId) => ({ nodeId, http: '', status: 'up' }));
const status = {
  nodeId: args.id,
  pid: process.pid,
  n: 3,
  r: 2,
  w: 2,
  durability: 'process',
  probe: true,
  members,
};
app.get('/v1/status', async () => status);
app.put<{ Params: { key: string }; Body: { value?: unknown } }>('/v1/kv/:key', async (req) => {
  await quorum(PUT, req.params.key, Buffer.from(JSON.stringify(req.body.value ?? null)));
  return {};
});
app.get<{ Params: { key: string } }>('/v1/kv/:key', async (req, reply) => {
  const answers = await quorum(GET, req.params.key, NOTHING);
  const value = answers.find((a) => a !== undefined && a.length > 0);
  if (value === undefined) return reply.code(404).send({ error: { code: 'NOT_FOUND' } });
  reply.type('application/json');
  return `{"siblings":[{"value":${Buffer.from(value).toString()}}],"context":"-"}`;
});
const address = await app.listen({ host: '127.0.0.1', port: Number(args.http) });
const peerAddress = peerServer.address();
const peerPort = typeof peerAddress === 'object' && peerAddress !== null ? peerAddress.port : 0;
process.stdout.write(`${JSON.stringify({ http: Number(new URL(address).port), peer: peerPort })}\n`);

const stop = (): void => {
  void app
    .close()
    .then(() => db.close())
    .then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
