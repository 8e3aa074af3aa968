#!/usr/bin/env node
/**
 * `pnpm bench:path`: the CPU that Tessera's own code spends per operation, in one process, without
 * sockets, HTTP or the peer protocol: three nodes' real coordinators, replica stores (LevelDB in a
 * temp dir), hint stores and peer handlers, each peer called directly. 50 workers keep one
 * operation each in flight, as `pnpm bench` does. No other process, socket or peer protocol is in
 * its figures, so its profile shows Tessera's own code; the figures still move with the machine's
 * speed (docs/benchmarks.md), so compare two builds by alternating them.
 *
 *   put      W: puts of fresh keys through n0 (its coordinator, its store and both peers' stores)
 *   get      C: zipfian gets through n0 of 10,000 keys written first (reads of all three, read repair)
 *   replica  one replica's write path alone: decodePeerState and ReplicaStore.merge, 8 fresh keys
 *            at a time, as a pipe message brings them
 *   level    the same puts as LevelDB batches alone (what `replica` costs without Tessera's code)
 *
 * Usage: node packages/server/scripts/path-bench.mjs [put|get|replica|level ...] [--ops N] [--rounds R]
 * Prints µs of CPU per operation, each round and the median: the main thread's on Linux (LevelDB's
 * and V8's helper threads left out), else the whole process's.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  applyWrite,
  claim,
  createRing,
  decodePeerState,
  EMPTY_CONTEXT,
  EMPTY_STATE,
  encodeState,
  utf8,
} from '@tessera/core';
import { ClassicLevel } from 'classic-level';
import { MerkleResponder } from '../dist/anti-entropy/responder.js';
import { ClusterView } from '../dist/cluster/cluster-view.js';
import { PeerDirectory } from '../dist/cluster/peers.js';
import { Coordinator } from '../dist/coordinator/coordinator.js';
import { silentLogger } from '../dist/logger.js';
import { Incarnation } from '../dist/node/incarnation.js';
import { PeerHandler } from '../dist/node/peer-handler.js';
import { HintStore } from '../dist/storage/hint-store.js';
import { LevelEngine } from '../dist/storage/level-engine.js';
import { ReplicaStore } from '../dist/storage/replica-store.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { ops: { type: 'string', default: '40000' }, rounds: { type: 'string', default: '5' } },
});
const MODES = positionals.length === 0 ? ['put', 'get'] : positionals;
const OPS = Number(values.ops);
const ROUNDS = Number(values.rounds);
for (const mode of MODES) {
  if (!['put', 'get', 'replica', 'level'].includes(mode)) throw new Error(`unknown mode ${mode}`);
}
if (!(OPS >= 1000 && ROUNDS >= 1)) throw new Error('--ops at least 1000, --rounds at least 1');

const WORKERS = 50;
const LOADED_KEYS = 10_000;
const BATCH = 8;
const PARTITIONS = 64;
const NODES = ['n0', 'n1', 'n2'];
const SETTINGS = {
  n: 3,
  r: 2,
  w: 2,
  valueBytesMax: 1 << 20,
  vvEntriesMax: 32,
  requestTimeoutMs: 10_000,
  peerTimeoutMs: 10_000,
};
const log = silentLogger();
const value = utf8(JSON.stringify('x'.repeat(148)));

/** A peer client that calls the peer's handler directly, a microtask later. */
function directClient(handlers, to) {
  const peer = () => handlers.get(to);
  const later = (call) => Promise.resolve().then(call);
  return {
    address: `${to}:2`,
    read: (key) => later(() => peer().read(key)),
    replicate: (key, state, _timeoutMs, hint) => {
      const copy = state.slice(); // as the pipe's decoder hands the handler bytes of its own
      return later(() => peer().replicate(key, copy, hint));
    },
    coordinate: (request) => later(() => peer().coordinate(request)),
    gossip: (state) => later(() => peer().gossip(state)),
    join: (member) => later(() => peer().join(member)),
    merkleHashes: (...args) => later(() => peer().merkleHashes(...args)),
    merkleKeys: (request) => later(() => peer().merkleKeys(request)),
    transferPage: () => Promise.reject(new Error('path-bench moves no partitions')),
    close() {},
  };
}

/** Engines opened by the current round, closed at its end. */
const opened = [];

async function openStore(dir) {
  const engine = new LevelEngine(dir);
  await engine.open();
  opened.push(() => engine.close());
  const store = new ReplicaStore(engine, { partitionCount: PARTITIONS, sync: false, stateBytesMax: 4 << 20 });
  await store.open();
  await store.keyFilterBuilt();
  return { engine, store };
}

async function openCluster(dir) {
  let ring = createRing(PARTITIONS, NODES[0]);
  for (const id of NODES.slice(1)) ring = claim(ring, id, SETTINGS.n);
  const members = NODES.map((nodeId) => ({
    nodeId,
    http: `${nodeId}:1`,
    peer: `${nodeId}:2`,
    status: 'member',
    incarnation: 1,
  }));
  const state = { clusterId: 'path-bench', ring, members };
  const handlers = new Map();
  const coordinators = [];
  for (const id of NODES) {
    const { engine, store } = await openStore(join(dir, id));
    const view = new ClusterView(engine);
    await view.load(id);
    await view.set(state);
    const peers = new PeerDirectory(
      id,
      (address) => directClient(handlers, address.split(':')[0]),
      50,
      Date.now,
      log,
    );
    peers.sync(state);
    const hints = new HintStore(engine, {
      hintsMax: 10_000,
      hintBytesMax: 1 << 26,
      sync: false,
      now: Date.now,
    });
    await hints.open();
    const incarnation = await Incarnation.open(engine, { node: id });
    const deps = {
      self: id,
      settings: SETTINGS,
      ring: () => ring,
      store,
      hints,
      peers,
      now: Date.now,
      incarnation,
      log,
    };
    const coordinator = new Coordinator(deps);
    const handler = new PeerHandler(id, view, log);
    const merkle = new MerkleResponder({ self: id, n: SETTINGS.n, ring: () => ring, store });
    handler.ready({ store, coordinator, hints, merkle });
    handlers.set(id, handler);
    coordinators.push(coordinator);
  }
  return coordinators[0];
}

const MAIN_THREAD_SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

/** This process's CPU so far (µs), and its main thread's where Linux tells it (else undefined). */
function cpuNow() {
  const { user, system } = process.cpuUsage();
  let mainUs;
  try {
    // The first field: ns the thread has run on a CPU.
    mainUs = Number(readFileSync(MAIN_THREAD_SCHEDSTAT, 'utf8').split(' ')[0]) / 1000;
  } catch {
    mainUs = undefined;
  }
  return { allUs: user + system, mainUs: Number.isFinite(mainUs) ? mainUs : undefined };
}

/** CPU µs per operation between two `cpuNow` readings: the main thread's if known, else all threads'. */
function perOp(before, after, count) {
  const us = before.mainUs === undefined ? after.allUs - before.allUs : after.mainUs - before.mainUs;
  return us / count;
}

/** CPU µs per operation of `count` operations, `WORKERS` in flight. */
async function measure(count, op) {
  let next = 0;
  const worker = async () => {
    while (next < count) await op(next++);
  };
  const before = cpuNow();
  await Promise.all(Array.from({ length: WORKERS }, worker));
  return perOp(before, cpuNow(), count);
}

/** Eight fresh keys' states at a time, as n0 would send them (made before the clock starts); `apply` stores them. */
async function batches(count, offset, apply) {
  const groups = [];
  for (let i = 0; i < count; i += BATCH) {
    const calls = [];
    for (let j = 0; j < BATCH; j++) {
      const next = applyWrite(EMPTY_STATE, {
        actor: 'n0',
        context: EMPTY_CONTEXT,
        value,
        nowMs: 1000,
        vvEntriesMax: 10,
      });
      calls.push([`path-k${offset + i + j}`, encodeState(next)]);
    }
    groups.push(calls);
  }
  const before = cpuNow();
  for (const calls of groups) await apply(calls);
  return perOp(before, cpuNow(), count);
}

async function round(mode, dir) {
  if (mode === 'put' || mode === 'get') {
    const n0 = await openCluster(dir);
    let fresh = 0;
    const put = () => n0.write(`path-w${fresh++}`, { value });
    if (mode === 'put') {
      await measure(OPS / 2, put); // warm-up
      return measure(OPS, put);
    }
    await measure(LOADED_KEYS, (i) => n0.write(`path-k${i}`, { value }));
    // YCSB-like skew: about two thirds of the reads go to a tenth of the keys.
    const get = () => n0.get(`path-k${Math.floor(Math.random() ** 3 * LOADED_KEYS)}`);
    await measure(OPS / 2, get);
    return measure(OPS, get);
  }
  if (mode === 'replica') {
    const { store } = await openStore(dir);
    const apply = (calls) =>
      Promise.all(calls.map(([k, b]) => store.merge(k, decodePeerState(b), b.slice())));
    await batches(OPS / 2, 0, apply);
    return batches(OPS, 1e7, apply);
  }
  const db = new ClassicLevel(dir, { keyEncoding: 'utf8', valueEncoding: 'view' });
  await db.open();
  opened.push(() => db.close());
  const apply = (calls) => db.batch(calls.map(([key, bytes]) => ({ type: 'put', key, value: bytes })));
  await batches(OPS / 2, 0, apply);
  return batches(OPS, 1e7, apply);
}

for (const mode of MODES) {
  const figures = [];
  for (let r = 0; r < ROUNDS; r++) {
    const dir = await mkdtemp(join(tmpdir(), 'tessera-path-bench-'));
    try {
      figures.push(await round(mode, dir));
    } finally {
      await Promise.all(opened.splice(0).map((close) => close()));
      await rm(dir, { recursive: true, force: true });
    }
  }
  const median = [...figures].sort((a, b) => a - b)[Math.floor(figures.length / 2)];
  const each = figures.map((f) => f.toFixed(1)).join(', ');
  process.stdout.write(`${mode}: ${median.toFixed(1)} µs of CPU per operation (median of ${each})\n`);
}
process.exit(0);
