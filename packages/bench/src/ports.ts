/** Free loopback ports for the nodes the harness starts. */
import { createServer } from 'node:net';

const PORT_LOW = 20_000;
const PORT_SPAN = 30_000;
const ATTEMPTS_MAX = 50;

/** The first of `count` consecutive free ports on 127.0.0.1 (checked one by one). */
export async function freePortBlock(count: number): Promise<number> {
  for (let attempt = 0; attempt < ATTEMPTS_MAX; attempt++) {
    const base = PORT_LOW + Math.floor(Math.random() * (PORT_SPAN - count));
    if (await allFree(base, count)) return base;
  }
  throw new Error(`no block of ${count} free ports found on 127.0.0.1`);
}

async function allFree(base: number, count: number): Promise<boolean> {
  for (let port = base; port < base + count; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (!free) return false;
  }
  return true;
}

/** Whether a URL points at this machine's loopback: the only place this harness sends load. */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
