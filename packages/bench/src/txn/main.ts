/** The `transactions` subcommand of `pnpm bench`. */
import type { SubcommandIo } from '../paper/main.js';
import { parseTxnArgs, TXN_USAGE } from './options.js';
import { renderTxnMarkdown } from './report.js';
import { runTransactions, writeTxnResults } from './run.js';

export async function transactionsCommand(argv: readonly string[], io: SubcommandIo): Promise<number> {
  const options = parseTxnArgs(argv);
  if (options.help) {
    io.out(TXN_USAGE);
    return 0;
  }
  const report = await runTransactions(options, { log: io.out, progress: io.progress, signal: io.signal });
  const files = await writeTxnResults(report, options.outDir);
  io.out(`\n${renderTxnMarkdown(report)}`);
  io.out(`Results: ${files.markdownPath}\n         ${files.jsonPath}`);
  return io.signal.aborted ? 130 : 0;
}
