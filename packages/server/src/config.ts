/**
 * A node's configuration: one zod schema with defaults. Units are last in names.
 * Sources, later ones winning: defaults, `--config FILE` (JSON), command-line flags.
 */
import { DURABILITIES, TesseraError } from '@tessera/core';
import { z } from 'zod';
import { HEAP_GROWING_PERCENT_DEFAULT } from './node/heap-growth.js';
import { COMPACTION_NICE_DEFAULT } from './storage/compaction-priority.js';
import { KEY_FILTER_BYTES_DEFAULT } from './storage/key-filter.js';
import { STATE_CACHE_BYTES_DEFAULT } from './storage/stored-states.js';

export const hostPort = z
  .string()
  .regex(/^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/, 'expected HOST:PORT, e.g. 127.0.0.1:7000')
  .refine((v) => Number(v.slice(v.lastIndexOf(':') + 1)) <= 65535, 'port must be 0..65535');

/** A web origin as browsers send it in `Origin` (scheme, host, port if not the default; no path), or `*`. */
export const corsOrigin = z
  .string()
  .refine(
    (v) => v === '*' || isOrigin(v),
    'expected a web origin such as https://shop.example.com or http://localhost:3000 (no path, no trailing slash), or *',
  );

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

export const nodeIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'node ids are 1 to 64 characters of A-Z a-z 0-9 . _ -');

/** A bearer token or shared secret: printable ASCII, long enough not to be guessed. */
export const secretSchema = z
  .string()
  .regex(/^[\x21-\x7e]+$/, 'use printable ASCII without spaces (e.g. the output of `openssl rand -hex 32`)')
  .min(16, 'use at least 16 characters (e.g. `openssl rand -hex 32`)')
  .max(4096);

const tlsFiles = { certFile: z.string().min(1), keyFile: z.string().min(1) };

/** Security settings (docs/security.md). Certificates and keys are read from files at start. */
export const securitySchema = {
  /** TLS for the HTTP API; with caFile, clients must also present a certificate it signed. */
  httpTls: z
    .object({ ...tlsFiles, caFile: z.string().min(1).optional() })
    .strict()
    .optional(),
  /** Mutual TLS between peers: each side presents certFile and accepts only certificates caFile signed. */
  peerTls: z
    .object({ ...tlsFiles, caFile: z.string().min(1) })
    .strict()
    .optional(),
  /** Bearer token for the client API (and /metrics). Set it from a file or env, not a flag. */
  token: secretSchema.optional(),
  /** Bearer token for /v1/admin/* (it also works for client calls). */
  adminToken: secretSchema.optional(),
  /** Shared secret proving membership on peer calls when peerTls is off (HMAC, never sent). */
  clusterSecret: secretSchema.optional(),
  /** Allows binding a non-loopback address without token or peer authentication. */
  insecure: z.boolean().default(false),
};

/**
 * The largest `valueBytesMax`: a value must reach the other replicas whole, with its key, clock and
 * dots, in one peer message (MESSAGE_BYTES_MAX_DEFAULT, 4 MiB, less the room `messageRoomBytes`
 * keeps for framing; transport/pipe-client.ts). A test keeps the two in step.
 */
export const VALUE_BYTES_MAX_LIMIT = 4 * 1024 * 1024 - 128 * 1024;
/**
 * The largest state (a key's siblings and clock, encoded) a client's write may leave: every replica
 * must get it whole, with its key, in one peer message. A write that would grow a key past it is
 * refused with VALUE_TOO_LARGE before anything is stored or sent (storage/stored-state.ts).
 */
export const STATE_BYTES_MAX = 4 * 1024 * 1024 - 72 * 1024;

export const configSchema = z
  .object({
    nodeId: nodeIdSchema,
    /** host:port for the HTTP API. */
    http: hostPort,
    /** host:port for peer gRPC traffic. */
    peer: hostPort,
    /**
     * host:port other machines reach the HTTP API at, as this node's member record carries it (what
     * /v1/status and clients see). Default: `http`. Needed when binding a wildcard (0.0.0.0, ::) or
     * behind NAT or a container network.
     */
    advertiseHttp: hostPort.optional(),
    /** host:port peers dial for this node's gRPC endpoint. Default: `peer`. */
    advertisePeer: hostPort.optional(),
    dataDir: z.string().min(1),
    seeds: z.array(hostPort).max(16).default([]),
    /** Replicas per key. */
    n: z.number().int().min(1).max(16).default(3),
    r: z.number().int().min(1).max(16).default(2),
    w: z.number().int().min(1).max(16).default(2),
    /**
     * Q: equal partitions of the ring, fixed when the cluster is created (PARTITIONS_DEFAULT if not
     * given). Given on a node of an existing cluster, it must be the cluster's.
     */
    partitions: z.number().int().min(1).max(4096).optional(),
    storage: z.enum(['leveldb', 'memory']).default('leveldb'),
    /**
     * 'process': a write survives a crash of the node process (LevelDB log written, not fsynced).
     * 'fsync-one': the coordinator also fsyncs its own copy before acknowledging, the other
     * replicas do not (the paper's "durable write", 6.1). 'fsync': every replica fsyncs every write.
     */
    durability: z.enum(DURABILITIES).default('process'),
    /**
     * The weakest `durability` any member may run with, recorded cluster-wide when the cluster is
     * created ('process' if not given). Given on a node of an existing cluster, it must be the cluster's.
     */
    durabilityFloor: z.enum(DURABILITIES).optional(),
    valueBytesMax: z
      .number()
      .int()
      .min(1)
      .max(VALUE_BYTES_MAX_LIMIT, {
        message: `valueBytesMax must be at most ${VALUE_BYTES_MAX_LIMIT} bytes: a value travels between nodes whole, with its key and clock, in one peer message of at most 4 MiB. Keep large blobs elsewhere and store a reference`,
      })
      .default(1024 * 1024),
    siblingsMax: z.number().int().min(1).max(10_000).default(100),
    /**
     * Version vector entries per key, at most: one per actor (node life) that wrote the key. A write
     * that would grow a vector past it is refused with CLOCK_TOO_LARGE; vectors are never pruned
     * (docs/consistency.md, "Version vectors").
     */
    vvEntriesMax: z.number().int().min(4).max(256).default(64),
    requestTimeoutMs: z.number().int().min(10).max(120_000).default(2_000),
    /** Peer RPC deadline for replica reads and writes inside one request. */
    peerTimeoutMs: z.number().int().min(10).max(120_000).default(1_000),
    /**
     * Nagle-style coalescing of replica writes: while a peer's pipe has calls waiting for replies,
     * a batch of fewer than 16 writes waits up to this long for more (fewer, fuller messages at
     * partial load); reads never wait; 0 sends each batch at the end of its event-loop tick.
     */
    pipeHoldMs: z.number().int().min(0).max(20).default(1),
    /**
     * Nagle-style coalescing of storage writes: while writes keep coming, a group of fewer than 8
     * waits up to this long for more before it goes to LevelDB as one batch (fewer batches, and
     * fewer fsyncs, at partial load); a write to an idle node never waits; 0 (the default) writes
     * each group at the end of its event-loop tick. Measured trade in docs/benchmarks.md.
     */
    commitHoldMs: z.number().int().min(0).max(20).default(0),
    gossipIntervalMs: z.number().int().min(50).max(60_000).default(1_000),
    /** How long a peer that failed a call is skipped before it is tried again. */
    peerRetryMs: z.number().int().min(50).max(60_000).default(2_000),
    /** Requests coordinated at once by this node; past it, new ones get 503. */
    inflightMax: z.number().int().min(1).max(100_000).default(5_000),
    /** Peer gRPC calls served at once; past it a call is refused with OVERLOADED. */
    peerInflightMax: z.number().int().min(1).max(1_000_000).default(10_000),
    /** HTTP connections open at once; a connection past it is closed as it arrives (see docs/operations.md). */
    httpConnectionsMax: z.number().int().min(1).max(1_000_000).default(10_000),
    /** A client must send a request's headers within this, or gets 408 and is disconnected (slowloris). */
    httpHeadersTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
    /** A client must send a whole request, body included, within this. */
    httpRequestTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
    /** A connection with no traffic either way for this long is closed; keep it above the longest request deadline. */
    httpIdleTimeoutMs: z.number().int().min(100).max(3_600_000).default(60_000),
    /** An idle keep-alive connection is closed after this. */
    httpKeepAliveTimeoutMs: z.number().int().min(100).max(3_600_000).default(72_000),
    /** Hints held for down replicas, at most; past it new hints are refused (see docs/operations.md). */
    hintsMax: z.number().int().min(1).max(10_000_000).default(100_000),
    hintBytesMax: z
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024 * 1024)
      .default(256 * 1024 * 1024),
    /**
     * The nice value of LevelDB's background (flush and compaction) thread, Linux only: its bursts
     * then wait for the event loop instead of delaying it; 0 leaves its priority alone.
     */
    compactionNice: z.number().int().min(0).max(19).default(COMPACTION_NICE_DEFAULT),
    /**
     * How far the JavaScript heap's old generation may grow past what the last full collection
     * kept, in percent, before the next (node/heap-growth.ts): fewer full collections, each a burst
     * of late requests, for a higher peak heap; 0 leaves it to V8.
     */
    heapGrowingPercent: z.number().int().min(0).max(1_000).default(HEAP_GROWING_PERCENT_DEFAULT),
    /** Memory for recently read and written keys' states (storage/state-cache.ts); 0 turns the cache off. */
    stateCacheBytesMax: z
      .number()
      .int()
      .min(0)
      .max(16 * 1024 * 1024 * 1024)
      .default(STATE_CACHE_BYTES_DEFAULT),
    /**
     * Memory for the filter of the keys this node stores (storage/key-filter.ts): the read before a
     * write of a key it never held, and a get of such a key, skip the engine; 0 turns it off.
     */
    keyFilterBytesMax: z
      .number()
      .int()
      .min(0)
      .max(1024 * 1024 * 1024)
      .default(KEY_FILTER_BYTES_DEFAULT),
    /** Hints older than this are dropped undelivered; keep it well below tombstoneGraceMs. */
    hintTtlMs: z
      .number()
      .int()
      .min(1_000)
      .max(30 * 24 * 3600 * 1000)
      .default(6 * 3600 * 1000),
    /** Mean time between two anti-entropy exchanges started by this node (jittered; back to back while they find work). */
    antiEntropyIntervalMs: z.number().int().min(10).max(3_600_000).default(1_000),
    /** Deadline of each anti-entropy peer call (a peer may build its tree first). */
    antiEntropyTimeoutMs: z.number().int().min(100).max(120_000).default(5_000),
    /** Keys repaired per exchange; the rest waits for the next one. */
    antiEntropyKeysPerExchangeMax: z.number().int().min(1).max(1_000_000).default(1_000),
    antiEntropyBytesPerExchangeMax: z
      .number()
      .int()
      .min(64 * 1024)
      .max(1024 * 1024 * 1024)
      .default(8 * 1024 * 1024),
    /** A tombstone is kept at least this long after its delete (docs/consistency.md). */
    tombstoneGraceMs: z
      .number()
      .int()
      .min(1_000)
      .max(365 * 24 * 3600 * 1000)
      .default(24 * 3600 * 1000),
    handoffIntervalMs: z.number().int().min(50).max(600_000).default(1_000),
    /** Hints sent to one target per handoff round. */
    handoffBatchMax: z.number().int().min(1).max(10_000).default(256),
    /** How often a node also gossips with one of its seeds (paper 4.8.2). */
    seedGossipIntervalMs: z.number().int().min(50).max(600_000).default(5_000),
    /** How often ring changes are advanced: proposals, commits, partition pulls (paper 4.9). */
    transferIntervalMs: z.number().int().min(10).max(60_000).default(250),
    /** A joining node that has not confirmed its partitions this long, and is down, is dropped from the change. */
    joinConfirmTimeoutMs: z
      .number()
      .int()
      .min(1_000)
      .max(24 * 3600 * 1000)
      .default(120_000),
    /** Keys per page of a partition transfer; one page is one admission of the background gate. */
    transferPageKeys: z.number().int().min(1).max(100_000).default(256),
    /** A receiver waits this long after first seeing a ring change before pulling, so writes reach both rings. */
    /** A committed ring holds this long before a node drops partitions it no longer replicates. */
    retireDelayMs: z.number().int().min(0).max(3_600_000).default(30_000),
    transferStartDelayMs: z.number().int().min(0).max(600_000).default(1_000),
    /** Deadline of one transfer page stream. */
    transferTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
    /** Background work units (a hint delivered, a key repaired) per second when the foreground is fast. */
    backgroundRateMaxPerSec: z.number().int().min(1).max(1_000_000).default(5_000),
    backgroundRateMinPerSec: z.number().int().min(1).max(1_000_000).default(100),
    /** Foreground p99 latency above which background work is slowed (paper 6.5). */
    foregroundLatencyTargetMs: z.number().int().min(1).max(60_000).default(50),
    /** Enables POST /v1/admin/faults (a test and demo tool: this node drops its traffic to listed peers). Never in production. */
    faultInjection: z.boolean().default(false),
    /** Fault injection only: this node's clock runs this many ms ahead (negative: behind). */
    clockOffsetMs: z
      .number()
      .int()
      .min(-24 * 3600 * 1000)
      .max(24 * 3600 * 1000)
      .default(0),
    /**
     * Web page origins allowed to call the HTTP API from a browser (CORS; docs/browser.md), e.g.
     * `https://shop.example.com`; `*` allows every origin (development only). Empty: no CORS headers,
     * so browsers let only pages served by this node's own origin read its answers.
     */
    corsOrigins: z.array(corsOrigin).max(64).default([]),
    /** Dial these peers at another address than the one they advertise (NAT, proxies): nodeId to HOST:PORT. */
    peerDialOverrides: z
      .record(nodeIdSchema, hostPort)
      .refine((o) => Object.keys(o).length <= 1024, 'at most 1024 peerDialOverrides')
      .default({}),
    /**
     * Strong namespaces (docs/transactions.md): every key `<namespace>/…` is linearizable, takes
     * conditions and transactions, and never has siblings. Every node of a cluster must declare the
     * same list; a node that does not see a key as strong refuses its consensus messages.
     */
    strongNamespaces: z
      .array(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a namespace is 1 to 64 of A-Z a-z 0-9 _ . -'))
      .max(64)
      .default([]),
    /** A transaction holds its keys at most this long; after it, anyone who finds it pending cancels it. */
    txnTimeoutMs: z.number().int().min(500).max(60_000).default(5_000),
    /** Deadline of a strong request (a get, put, delete or transaction) when the client gives none. */
    strongTimeoutMs: z.number().int().min(100).max(120_000).default(5_000),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ...securitySchema,
  })
  .strict()
  .refine((c) => !isWildcard(c.advertiseHttp ?? c.http), {
    message:
      'this node would advertise a wildcard HTTP address (0.0.0.0 or ::), which no one can dial: pass --advertise-http HOST:PORT (advertiseHttp) with an address other machines reach it at',
    path: ['advertiseHttp'],
  })
  .refine((c) => !isWildcard(c.advertisePeer ?? c.peer), {
    message:
      'this node would advertise a wildcard peer address (0.0.0.0 or ::), which no peer can dial: pass --advertise-peer HOST:PORT (advertisePeer) with an address the other nodes reach it at',
    path: ['advertisePeer'],
  })
  .refine((c) => c.r <= c.n && c.w <= c.n, { message: 'r and w must be at most n' })
  .refine((c) => c.httpHeadersTimeoutMs <= c.httpRequestTimeoutMs, {
    message: 'httpHeadersTimeoutMs must be at most httpRequestTimeoutMs',
  })
  .refine((c) => c.clockOffsetMs === 0 || c.faultInjection, {
    message:
      'clockOffsetMs is a fault-injection tool: set faultInjection: true to use it (never in production)',
  })
  .refine((c) => c.hintTtlMs < c.tombstoneGraceMs, {
    message: 'hintTtlMs must be below tombstoneGraceMs, or a late hint could bring a collected delete back',
  })
  .refine((c) => c.token === undefined || c.adminToken !== undefined, {
    message: 'a client token needs an admin token too (--admin-token-file), or admin calls would be open',
  })
  .refine((c) => c.token === undefined || c.token !== c.adminToken, {
    message: 'the admin token must differ from the client token',
  });

export type Config = z.infer<typeof configSchema>;

/** Q of a cluster created without `partitions`. */
export const PARTITIONS_DEFAULT = 64;

/** True for HOST:PORT whose host means "every interface" (0.0.0.0, ::, [::]): bindable, not dialable. */
export function isWildcard(address: string): boolean {
  const host = address.slice(0, address.lastIndexOf(':')).replace(/^\[|\]$/g, '');
  return host === '0.0.0.0' || /^[0:]+$/.test(host);
}

/** The addresses this node advertises in its member record: the advertise settings, else the bind addresses. */
export function advertised(config: Pick<Config, 'http' | 'peer' | 'advertiseHttp' | 'advertisePeer'>): {
  http: string;
  peer: string;
} {
  return { http: config.advertiseHttp ?? config.http, peer: config.advertisePeer ?? config.peer };
}
export type ConfigInput = z.input<typeof configSchema>;

export function parseConfig(input: unknown): Config {
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`);
    throw new TesseraError('BAD_REQUEST', `Invalid configuration: ${issues.join('; ')}`, { issues });
  }
  return parsed.data;
}
