#!/usr/bin/env node
/** `pnpm bench`: the benchmark CLI. Everything it prints goes to stdout; failures to stderr. */
import { AB_USAGE, abCommand } from './ab.js';
import { AUTOCANNON_USAGE, autocannonCommand } from './autocannon.js';
import { runBench } from './bench.js';
import { parseBenchArgs, transactionsModeArgs, USAGE, UsageError } from './options.js';
import { writeResults } from './output.js';
import { chartsCommand, paperCommand } from './paper/main.js';
import { PAPER_USAGE } from './paper/options.js';
import { PROBE_USAGE, probeCommand } from './probe/command.js';
import { createProgress } from './progress.js';
import { renderMarkdown } from './report.js';
import { transactionsCommand } from './txn/main.js';
import { TXN_USAGE } from './txn/options.js';

async function main(argv: readonly string[]): Promise<number> {
  const sub = SUBCOMMANDS.get(argv[0] ?? '');
  if (sub !== undefined) return runSubcommand(sub, argv.slice(1));
  const transactionsArgs = transactionsModeArgs(argv);
  if (transactionsArgs !== undefined)
    return runSubcommand(SUBCOMMANDS.get('transactions')!, transactionsArgs);
  let options: ReturnType<typeof parseBenchArgs>;
  try {
    options = parseBenchArgs(argv);
  } catch (err) {
    if (err instanceof UsageError || isParseArgsError(err)) {
      process.stderr.write(`bench: ${(err as Error).message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const controller = stopOnSignals();
  let report: Awaited<ReturnType<typeof runBench>>;
  try {
    report = await runBench(options, {
      log: out,
      progress: createProgress(process.stdout),
      signal: controller.signal,
    });
  } catch (err) {
    // A refusal before anything ran (a busy machine): its message says what to do.
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`bench: ${err.message}\n`);
    return 2;
  }
  const files = await writeResults(report, options.outDir);
  process.stdout.write(`\n${renderMarkdown(report)}\n`);
  out(`Results: ${files.markdownPath}\n         ${files.jsonPath}`);
  return controller.signal.aborted ? 130 : 0;
}

interface Subcommand {
  readonly run: typeof paperCommand;
  readonly usage: string;
}

const SUBCOMMANDS: ReadonlyMap<string, Subcommand> = new Map([
  ['paper', { run: paperCommand, usage: PAPER_USAGE }],
  ['charts', { run: chartsCommand, usage: PAPER_USAGE }],
  ['transactions', { run: transactionsCommand, usage: TXN_USAGE }],
  ['autocannon', { run: autocannonCommand, usage: AUTOCANNON_USAGE }],
  ['ab', { run: abCommand, usage: AB_USAGE }],
  ['probe', { run: probeCommand, usage: PROBE_USAGE }],
]);

/** `pnpm bench paper …`, `charts …`, `transactions …`, `autocannon …`, `ab …` and `probe …`. */
async function runSubcommand(command: Subcommand, argv: readonly string[]): Promise<number> {
  const controller = stopOnSignals();
  try {
    return await command.run(argv, {
      out,
      progress: createProgress(process.stdout),
      signal: controller.signal,
    });
  } catch (err) {
    if (err instanceof UsageError || isParseArgsError(err)) {
      process.stderr.write(`bench: ${(err as Error).message}\n\n${command.usage}`);
      return 2;
    }
    throw err;
  }
}

/** Ctrl-C stops early (the run still writes what it measured); a second one quits at once. */
function stopOnSignals(): AbortController {
  const controller = new AbortController();
  const onSignal = (): void => {
    if (controller.signal.aborted) process.exit(130);
    out('\nStopping early (again to quit at once)…');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return controller;
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

function isParseArgsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
