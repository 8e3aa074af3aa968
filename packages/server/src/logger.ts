import { type Logger, pino } from 'pino';

export type { Logger };

/** The root logger: pino JSON on stdout. Components take a child: `log.child({ component: 'gossip' })`. */
export function createLogger(options: { level?: string; nodeId?: string } = {}): Logger {
  return pino({ level: options.level ?? 'info', base: options.nodeId ? { nodeId: options.nodeId } : {} });
}

/** A logger that discards everything, for tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
