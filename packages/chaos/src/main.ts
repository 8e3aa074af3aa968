#!/usr/bin/env node
/** `pnpm chaos`: one chaos run; exits 1 when the checker finds a violation (docs/testing.md). */
import { ChaosUsageError, chaosOptions, parseChaosArgs, USAGE } from './options.js';
import { runChaos } from './run.js';

async function main(): Promise<number> {
  const parsed = parseChaosArgs(process.argv.slice(2));
  if (parsed === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const tty = process.stderr.isTTY === true;
  let lastLineMs = 0;
  const options = chaosOptions(parsed, {
    onProgress: (line) => {
      if (tty) process.stderr.write(`\r${line.slice(0, (process.stderr.columns ?? 120) - 1).padEnd(80)}`);
      else if (Date.now() - lastLineMs >= 10_000) {
        lastLineMs = Date.now();
        process.stderr.write(`${line}\n`);
      }
    },
  });
  process.stdout.write(
    `chaos: seed ${options.seed}, ${options.durationS}s, ${options.nodes} nodes, workloads ${options.workloads.join(',')}, faults ${options.faults.join(',')}${options.netns ? ', in network namespaces' : ''}\n`,
  );
  const result = await runChaos(options);
  if (tty) process.stderr.write('\n');
  process.stdout.write(result.summary);
  return result.report.valid ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    // A bad option is the user's to fix: its message says how. Anything else is ours: its stack.
    const text =
      err instanceof ChaosUsageError
        ? err.message
        : err instanceof Error
          ? (err.stack ?? err.message)
          : String(err);
    process.stderr.write(`chaos: ${text}\n`);
    process.exit(2);
  },
);
