/**
 * Free loopback ports for local nodes: the black-box tests, `pnpm bench` and `pnpm chaos` start
 * node processes (and proxies) on ports found here.
 */
import { createServer } from 'node:net';

const ATTEMPTS_MAX = 50;
const LOW = 20_000;
const SPAN = 6_000;

/**
 * The first of `count` consecutive free ports on 127.0.0.1. Under vitest each worker draws from
 * its own range of 6,000 ports, so parallel test files never race for ports.
 * A port can still be taken while its node is down (by an outgoing connection): restarts retry.
 */
export async function freePortBlock(count: number): Promise<number> {
  const worker = Number(process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? 0);
  const low = worker > 0 ? LOW + ((worker - 1) % 6) * SPAN : LOW;
  const high = worker > 0 ? low + SPAN : LOW + 6 * SPAN;
  for (let attempt = 0; attempt < ATTEMPTS_MAX; attempt++) {
    const base = low + Math.floor(Math.random() * (high - low - count));
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
