/** Starts and stops the bare fastify baseline server as a child process. */
import { fileURLToPath } from 'node:url';
import { startHelper } from './child.js';

const SERVER_PATH = fileURLToPath(new URL('./bare-server.js', import.meta.url));

export interface BareServer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export async function startBareServer(valueBytes: number): Promise<BareServer> {
  const server = await startHelper(
    SERVER_PATH,
    ['0', String(valueBytes)],
    'the bare fastify server',
    (line) => (typeof line.port === 'number' ? line.port : undefined),
  );
  return {
    url: `http://127.0.0.1:${server.ready}`,
    pid: server.child.pid ?? 0,
    stop: server.stop,
  };
}
