/**
 * `tessera admin drain`: the node stops taking client requests, hands its hints over and exits
 * (POST /v1/admin/drain); this follows it (GET /v1/admin/drain) until it has exited.
 */
import { TesseraError } from '@tessera/core';
import type { AdminCall } from './admin-repair.js';

interface DrainAnswer {
  phase: 'serving' | 'draining' | 'drained' | 'timed-out';
  hints: { count: number; bytes: number };
  hintsAtStart?: number;
  redirected: number;
}

const DRAIN_TIMEOUT_MS_DEFAULT = 60_000;
const POLL_MS = 300;

export async function runDrain(call: AdminCall, timeout: string | undefined): Promise<number> {
  const timeoutMs = timeout === undefined ? DRAIN_TIMEOUT_MS_DEFAULT : Number(timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100)
    throw new TesseraError(
      'BAD_REQUEST',
      `--timeout-ms must be a whole number of milliseconds (100 or more).`,
    );
  let last = (await call('POST', '/v1/admin/drain', { timeoutMs })) as DrainAnswer;
  let shown = '';
  const show = (a: DrainAnswer): void => {
    const line = renderDrain(a);
    if (line !== shown) process.stdout.write(`${line}\n`);
    shown = line;
  };
  const end = Date.now() + timeoutMs + 30_000;
  while (Date.now() < end) {
    show(last);
    if (last.phase === 'timed-out')
      throw new TesseraError(
        'TIMEOUT',
        `The node still holds ${last.hints.count} hint(s) after ${timeoutMs} ms; it keeps refusing clients but does not exit. Run the drain again to wait longer, or DELETE /v1/admin/drain to serve again.`,
      );
    await new Promise((r) => setTimeout(r, POLL_MS));
    try {
      last = (await call('GET', '/v1/admin/drain')) as DrainAnswer;
    } catch (err) {
      if (!(TesseraError.is(err) && err.code === 'NODE_UNREACHABLE')) throw err;
      if (last.phase !== 'drained' && last.hints.count > 0) throw err;
      process.stdout.write('drained: the node has exited\n');
      return 0;
    }
  }
  throw new TesseraError('TIMEOUT', 'The node did not exit in time after its drain; check its log.');
}

export function renderDrain(a: DrainAnswer): string {
  const of = a.hintsAtStart === undefined ? '' : ` of ${a.hintsAtStart}`;
  const redirected =
    a.redirected > 0 ? `, ${a.redirected} given to other nodes for owners that are down` : '';
  return `${a.phase}: ${a.hints.count} hint(s) left${of}${redirected}`;
}
