import { Writable } from 'node:stream';
import { TesseraError } from '@tessera/core';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { logError } from './logger.js';

function capture(): { lines: string[]; log: pino.Logger } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, log: pino({ base: { nodeId: 'n1' }, serializers: { err: logError } }, sink) };
}

describe('log lines of errors', () => {
  it('write a Tessera error as its code and message, without a stack', () => {
    const { lines, log } = capture();
    log.warn(
      { err: new TesseraError('PEER_UNAVAILABLE', 'Peer n2 is not reachable.') },
      'seed not reachable yet',
    );
    const line = JSON.parse(lines[0]!) as { err: Record<string, unknown> };
    expect(line.err).toEqual({ code: 'PEER_UNAVAILABLE', message: 'Peer n2 is not reachable.' });
  });

  it('cut an unexpected error stack to its top lines', () => {
    const { lines, log } = capture();
    const deep = (n: number): Error => (n === 0 ? new Error('boom') : deep(n - 1));
    log.warn({ err: deep(40) }, 'failed');
    expect(lines[0]!.length).toBeLessThan(1_000);
    const line = JSON.parse(lines[0]!) as { err: { message: string; stack: string } };
    expect(line.err.message).toBe('boom');
    expect(line.err.stack.split('\n')).toHaveLength(6);
  });
});
