/**
 * `pnpm bench probe`: the same run as `pnpm bench` (the bare fastify phases on both sides, the
 * same load and tables), against the replication-shape probe (probe/node.ts) instead of Tessera.
 * Its ratios are what this machine allows for issue 18's shape today: three processes, N=3 R=2
 * W=2, one frame per peer and one LevelDB batch per tick, and nothing else.
 */
import { runBench } from '../bench.js';
import { parseBenchArgs, USAGE, UsageError } from '../options.js';
import { writeResults } from '../output.js';
import type { SubcommandIo } from '../paper/main.js';
import { renderMarkdown } from '../report.js';
import { startProbeCluster } from './cluster.js';

export const PROBE_USAGE = `Usage: pnpm bench probe [options]

Runs pnpm bench's phases (workloads W,C unless --workloads says otherwise; the bare fastify phases
before and after) against three processes of the replication-shape probe instead of Tessera: every
put and get goes to all three (N=3) and is answered at two (W=2, R=2), one frame per peer and one
LevelDB batch per event-loop tick, with no clocks, contexts, Merkle trees, hints, metrics or
validation. Its ratios are the floor this machine sets for that shape, in the same minutes.
Takes pnpm bench's options below, except those that choose or configure the cluster: --url,
--nodes, --n, --r, --w, --durability, --routing, --target, --soak and --cpu-prof-dir.

${USAGE.slice(USAGE.indexOf('  --workloads'))}`;

const CLUSTER_FLAGS = [
  '--url',
  '--nodes',
  '--n',
  '--r',
  '--w',
  '--durability',
  '--routing',
  '--target',
  '--soak',
  '--cpu-prof-dir',
];

export async function probeCommand(argv: readonly string[], io: SubcommandIo): Promise<number> {
  const refused = argv.find((a) => CLUSTER_FLAGS.some((flag) => a === flag || a.startsWith(`${flag}=`)));
  if (refused !== undefined) {
    throw new UsageError(`${refused.split('=')[0]}: pnpm bench probe runs its own three probe nodes.`);
  }
  // A --workloads given later replaces this default (parseArgs keeps an option's last value).
  const parsed = parseBenchArgs(['--workloads', 'W,C', ...argv]);
  if (parsed.help) {
    io.out(PROBE_USAGE);
    return 0;
  }
  const cluster = await startProbeCluster();
  try {
    const report = await runBench({ ...parsed, urls: cluster.urls }, { ...io, log: io.out });
    const files = await writeResults(report, parsed.outDir);
    io.out(`\n${renderMarkdown(report)}\n`);
    io.out(`Results: ${files.markdownPath}\n         ${files.jsonPath}`);
    return io.signal.aborted ? 130 : 0;
  } finally {
    await cluster.stop();
  }
}
