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

/** The root logger: pino JSON on stdout. Components take a child: `log.child({ component: 'gossip' })`. */
export function createLogger(options: { level?: string; nodeId?: string } = {}): Logger {
  return pino({
    level: options.level ?? 'info',
    base: options.nodeId ? { nodeId: options.nodeId } : {},
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  });
}

/** A logger that discards everything, for tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
