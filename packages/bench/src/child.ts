/** Helper processes of the harness (the bare server, the probe's nodes): started, awaited, stopped. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

export interface Helper<Ready> {
  readonly child: ChildProcess;
  /** What the helper printed once ready. */
  readonly ready: Ready;
  stop(): Promise<void>;
}

/**
 * Runs `script` under this Node with `args` and waits for its first stdout line that `isReady`
 * accepts (a JSON object); killed after 10 s without one, or when it exits first.
 */
export async function startHelper<Ready>(
  script: string,
  args: readonly string[],
  name: string,
  isReady: (line: Record<string, unknown>) => Ready | undefined,
): Promise<Helper<Ready>> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const timer = setTimeout(() => child.kill('SIGKILL'), READY_TIMEOUT_MS);
  try {
    for await (const line of lines) {
      const ready = isReady(JSON.parse(line) as Record<string, unknown>);
      if (ready !== undefined) return { child, ready, stop: () => stopChild(child) };
    }
    throw new Error(`${name} exited before it listened`);
  } finally {
    clearTimeout(timer);
    lines.close();
  }
}

/** SIGTERM, then SIGKILL after 5 s; resolves once the process is gone. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
