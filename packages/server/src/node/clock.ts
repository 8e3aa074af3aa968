/** The node's wall clock: `Date.now`, shifted by `clockOffsetMs` under fault injection (clock-skew tests). */
import type { Config } from '../config.js';

export function nodeClock(config: Pick<Config, 'clockOffsetMs' | 'faultInjection'>): () => number {
  const offsetMs = config.faultInjection ? config.clockOffsetMs : 0;
  return offsetMs === 0 ? Date.now : () => Date.now() + offsetMs;
}
