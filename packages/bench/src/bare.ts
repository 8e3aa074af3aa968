/** Starts and stops the bare fastify baseline server as a child process. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVER_PATH = fileURLToPath(new URL('./bare-server.js', import.meta.url));
const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

export interface BareServer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export async function startBareServer(valueBytes: number): Promise<BareServer> {
  const child = spawn(process.execPath, [SERVER_PATH, '0', String(valueBytes)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await readPort(child);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    stop: () => stopChild(child),
  };
}

async function readPort(child: ChildProcess): Promise<number> {
  const lines = createInterface({ input: child.stdout! });
  const timer = setTimeout(() => child.kill('SIGKILL'), READY_TIMEOUT_MS);
  try {
    for await (const line of lines) {
      const parsed = JSON.parse(line) as { port?: unknown };
      if (typeof parsed.port === 'number') return parsed.port;
    }
    throw new Error('the bare fastify server exited before it listened');
  } finally {
    clearTimeout(timer);
    lines.close();
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
