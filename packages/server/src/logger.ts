import { TesseraError } from '@tessera/core';
import { type Logger, pino } from 'pino';

export type { Logger };

/**
 * Fields never written to the log: credentials in headers and metadata, and the secret config
 * fields, at the top level or one object down (e.g. `{ config }`). See docs/security.md.
 */
export const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.headers.authorization',
  'token',
  'adminToken',
  'clusterSecret',
  '*.token',
  '*.adminToken',
  '*.clusterSecret',
  '*["tessera-auth"]',
];

/** Lines of an unexpected error's stack kept in a log line (a whole one runs to kilobytes). */
const STACK_LINES_MAX = 6;

/**
 * How an error reads in a log line: a Tessera error (expected: a peer down, a refusal) by its code
 * and message only; anything else with its type, code and the top of its stack.
 */
export function logError(err: unknown): Record<string, unknown> {
  if (err instanceof TesseraError) return { code: err.code, message: err.message };
  if (!(err instanceof Error)) return { message: String(err) };
  const code = (err as { code?: unknown }).code;
  return {
    type: err.name,
    message: err.message,
    ...(code === undefined ? {} : { code }),
    ...(err.stack === undefined ? {} : { stack: err.stack.split('\n').slice(0, STACK_LINES_MAX).join('\n') }),
  };
}

/** The root logger: pino JSON on stdout. Components take a child: `log.child({ component: 'gossip' })`. */
export function createLogger(options: { level?: string; nodeId?: string } = {}): Logger {
  return pino({
    level: options.level ?? 'info',
    base: options.nodeId ? { nodeId: options.nodeId } : {},
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: logError },
  });
}

/** A logger that discards everything, for tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
