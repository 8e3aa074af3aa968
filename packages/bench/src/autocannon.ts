/**
 * `pnpm bench autocannon`: issue 18's cross-check of `pnpm bench`'s ratios with another load
 * generator. autocannon drives the bare fastify server (GET, POST of the same body), then a local
 * cluster with the load to n0: PUTs of fresh keys (workload W) and zipfian GETs of the first
 * `--keys` keys those PUTs wrote (workload C), then the bare server again. It prints each phase and
 * the two ratios, each against the mean of its bare phases before and after the cluster's (as
 * `pnpm bench` does); nothing is written to disk.
 */
import { parseArgs } from 'node:util';
import { createRng } from '@tessera/core';
import autocannon from 'autocannon';
import { startBareServer } from './bare.js';
import { startLocalCluster } from './cluster.js';
import { BARE_PATH } from './drivers.js';
import { formatCount, formatPercent, renderTable } from './format.js';
import { createKeyChooser } from './keys.js';
import { whole } from './options.js';
import type { SubcommandIo } from './paper/main.js';
import { checkQuietMachine } from './quiet-machine.js';
import { BARE_AFTER, type BareMethod, bareMean } from './results.js';
import { makeValue, putBody, VALUE_BYTES_MIN } from './values.js';

export const AUTOCANNON_USAGE = `Usage: pnpm bench autocannon [options]

Measures with autocannon (not the harness's own load generator), 50 connections by default:
bare fastify GET and POST, then a local three-node cluster (N=3 R=2 W=2), load to n0: PUTs of
fresh keys, then zipfian GETs of the first --keys of them, then bare GET and POST again. Prints the
ratios put / POST and get / GET, each against the mean of the two bare phases of its method.
About a minute and a half with the defaults.

  --connections C   connections, one request in flight each (default 50)
  --duration-s S    measured seconds per phase (default 10)
  --warmup-s S      unmeasured seconds before each phase (default 2)
  --value-bytes B   serialized size of each value (default 150)
  --keys K          the GETs read the first K keys the PUTs wrote (default 10000, as pnpm bench)
  --force           run even when other work keeps the machine busy
  -h, --help        this text
`;

interface AutocannonOptions {
  readonly help: boolean;
  readonly connections: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly valueBytes: number;
  readonly keys: number;
  readonly force: boolean;
}

export function parseAutocannonArgs(argv: readonly string[]): AutocannonOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      connections: { type: 'string', default: '50' },
      'duration-s': { type: 'string', default: '10' },
      'warmup-s': { type: 'string', default: '2' },
      'value-bytes': { type: 'string', default: '150' },
      keys: { type: 'string', default: '10000' },
      force: { type: 'boolean', default: false },
    },
  });
  return {
    help: values.help,
    connections: whole('--connections', values.connections, 1, 1_000),
    durationS: whole('--duration-s', values['duration-s'], 1, 600),
    warmupS: whole('--warmup-s', values['warmup-s'], 0, 60),
    valueBytes: whole('--value-bytes', values['value-bytes'], VALUE_BYTES_MIN, 1_000_000),
    keys: whole('--keys', values.keys, 1, 100_000_000),
    force: values.force,
  };
}

/** One phase's figures: requests per second and latency percentiles in ms. */
interface Phase {
  readonly name: string;
  readonly perSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  /** Responses other than 2xx, and connection errors (timeouts included). */
  readonly failed: number;
}

export async function autocannonCommand(argv: readonly string[], io: SubcommandIo): Promise<number> {
  const options = parseAutocannonArgs(argv);
  if (options.help) {
    io.out(AUTOCANNON_USAGE);
    return 0;
  }
  await checkQuietMachine(options.force, io.out);
  const value = makeValue(options.valueBytes, createRng(1));
  const body = putBody(value);
  const phases: Phase[] = [];
  const measure = async (name: string, opts: autocannon.Options): Promise<void> => {
    io.out(`${name}…`);
    const base = { connections: options.connections };
    if (options.warmupS > 0) await autocannon({ ...base, duration: options.warmupS, ...opts });
    const phase = summary(name, await autocannon({ ...base, duration: options.durationS, ...opts }));
    phases.push(phase);
    io.out(
      `  ${phase.perSec} requests/s, p50 ${phase.p50Ms} ms, p99 ${phase.p99Ms} ms, p99.9 ${phase.p999Ms} ms, failed ${phase.failed}`,
    );
  };

  const measureBare = async (suffix: string): Promise<void> => {
    const bare = await startBareServer(options.valueBytes);
    try {
      await measure(`bare GET${suffix}`, { url: `${bare.url}${BARE_PATH}` });
      await measure(`bare POST${suffix}`, {
        url: `${bare.url}${BARE_PATH}`,
        method: 'POST',
        body,
        headers: JSON_HEADERS,
      });
    } finally {
      await bare.stop();
    }
  };
  await measureBare('');
  const cluster = await startLocalCluster({ nodes: 3, n: 3, r: 2, w: 2, keepData: false });
  try {
    const url = cluster.nodes[0]!.url;
    const prefix = `ac${Date.now().toString(36)}-`;
    let written = 0;
    await measure(PUT_PHASE, {
      url,
      requests: [
        {
          method: 'PUT',
          setupRequest: (req) => ({ ...req, path: kvPath(prefix, written++), headers: JSON_HEADERS, body }),
        },
      ],
    });
    const keys = createKeyChooser('zipfian', Math.max(1, Math.min(written, options.keys)), createRng(2));
    await measure(GET_PHASE, {
      url,
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: kvPath(prefix, keys.next()) }) }],
    });
  } finally {
    await cluster.stop();
  }
  await measureBare(BARE_AFTER);
  const header = ['phase', 'requests/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'failed'];
  io.out(`\n${renderTable(header, phases.map(row), new Set([1, 2, 3, 4, 5]))}`);
  const { putOverPost, getOverGet } = autocannonRatios(phases);
  io.out(
    `\nput / bare POST ${formatPercent(putOverPost)}, get / bare GET ${formatPercent(getOverGet)} (each against the mean of the bare phases before and after the cluster's)`,
  );
  return io.signal.aborted ? 130 : 0;
}

const PUT_PHASE = 'Tessera PUT, fresh keys';
const GET_PHASE = 'Tessera GET, zipfian over those keys';

/**
 * Tessera's PUTs over the mean of the bare POST phases, its GETs over the bare GETs' (of those that
 * ran: a run stopped early has no bare phases after the cluster's); NaN when a side is missing.
 */
export function autocannonRatios(phases: readonly Pick<Phase, 'name' | 'perSec'>[]): {
  putOverPost: number;
  getOverGet: number;
} {
  const perSec = (name: string) => phases.find((p) => p.name === name)?.perSec ?? Number.NaN;
  const bare = (method: BareMethod) => bareMean(phases, method, (p) => p.perSec) ?? Number.NaN;
  return { putOverPost: perSec(PUT_PHASE) / bare('POST'), getOverGet: perSec(GET_PHASE) / bare('GET') };
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function kvPath(prefix: string, index: number): string {
  return `/v1/kv/${prefix}k${index}`;
}

function summary(name: string, result: autocannon.Result): Phase {
  return {
    name,
    perSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    p999Ms: result.latency.p99_9,
    failed: result.non2xx + result.errors,
  };
}

function row(p: Phase): string[] {
  return [
    p.name,
    formatCount(p.perSec),
    String(p.p50Ms),
    String(p.p99Ms),
    String(p.p999Ms),
    String(p.failed),
  ];
}
