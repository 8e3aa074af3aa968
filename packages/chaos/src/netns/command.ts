/**
 * The commands the netns library runs (`ip`, `nft`, the `tessera` CLI): execFile with an argument
 * array, never a shell string, a deadline, and the command's stderr in the error.
 */
import { execFile, execFileSync } from 'node:child_process';

/** Bound on one command; `ip` and `nft` answer in milliseconds. */
const COMMAND_TIMEOUT_MS = 15_000;
/** Largest output read from one command. */
const OUTPUT_BYTES_MAX = 4 * 1024 * 1024;

export interface CommandOptions {
  /** Written to the command's stdin (e.g. an nft ruleset for `nft -f -`). */
  readonly input?: string;
  readonly timeoutMs?: number;
}

/** Runs `command args...`; resolves with stdout, rejects with the command line and its stderr. */
export function run(command: string, args: readonly string[], o: CommandOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      [...args],
      { timeout: o.timeoutMs ?? COMMAND_TIMEOUT_MS, maxBuffer: OUTPUT_BYTES_MAX, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err === null) resolve(stdout);
        else reject(new Error(`${[command, ...args].join(' ')} failed: ${stderr.trim() || err.message}`));
      },
    );
    // A command that exits without reading its input closes the pipe: that is not our error.
    child.stdin?.on('error', () => {});
    child.stdin?.end(o.input ?? '');
  });
}

/** The same, synchronously, ignoring failures: for cleanup in a process 'exit' handler. */
export function runQuietlySync(command: string, args: readonly string[]): void {
  try {
    execFileSync(command, [...args], { timeout: COMMAND_TIMEOUT_MS, stdio: 'ignore' });
  } catch {
    // best effort: the next run sweeps what is left (names.ts)
  }
}
