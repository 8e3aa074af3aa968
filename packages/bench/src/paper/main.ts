/** The `paper` and `charts` subcommands of `pnpm bench`. */
import { latestSources, writeCharts } from '../charts/write.js';
import type { ProgressSink } from '../progress.js';
import { PAPER_USAGE, parseChartsArgs, parsePaperArgs } from './options.js';
import { renderPaperMarkdown } from './report.js';
import { runPaper, writePaperResults } from './run.js';

export interface SubcommandIo {
  out(line: string): void;
  readonly progress: ProgressSink;
  readonly signal: AbortSignal;
}

export async function paperCommand(argv: readonly string[], io: SubcommandIo): Promise<number> {
  const options = parsePaperArgs(argv);
  if (options.help) {
    io.out(PAPER_USAGE);
    return 0;
  }
  const report = await runPaper(options, { log: io.out, progress: io.progress, signal: io.signal });
  const files = await writePaperResults(report, options.outDir);
  io.out(`\n${renderPaperMarkdown(report)}`);
  io.out(`Results: ${files.markdownPath}\n         ${files.jsonPath}`);
  if (options.imagesDir !== undefined) await chartsFrom(options.outDir, options.imagesDir, io);
  return io.signal.aborted ? 130 : 0;
}

export async function chartsCommand(argv: readonly string[], io: SubcommandIo): Promise<number> {
  const options = parseChartsArgs(argv);
  if (options.help) {
    io.out(PAPER_USAGE);
    return 0;
  }
  return (await chartsFrom(options.resultsDir, options.imagesDir, io)) ? 0 : 1;
}

async function chartsFrom(resultsDir: string, imagesDir: string, io: SubcommandIo): Promise<boolean> {
  const sources = await latestSources(resultsDir);
  const written = await writeCharts(sources, imagesDir);
  if (written.length === 0) {
    io.out(`No paper-*.json in ${resultsDir}: run \`pnpm bench paper\` first.`);
    return false;
  }
  for (const [experiment, report] of Object.entries(sources)) {
    io.out(`Chart ${experiment}: from the run of ${report.startedAt}`);
  }
  io.out(`Charts:\n${written.map((p) => `  ${p}`).join('\n')}`);
  return true;
}
