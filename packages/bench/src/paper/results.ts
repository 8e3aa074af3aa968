/** The shape of a `pnpm bench paper` run, as written to bench-results/paper-<time>.json. */
import type { MachineInfo } from '../results.js';
import type { Revision } from '../revision.js';
import type { Fig8Result } from './fig8.js';
import type { CoordinationResult, DivergenceResult, DurabilityResult } from './model.js';

export interface PaperReport {
  readonly kind: 'paper';
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly revision: Revision;
  readonly machine: MachineInfo;
  readonly quick: boolean;
  readonly fig8?: Fig8Result;
  readonly divergence?: DivergenceResult;
  readonly coordination?: CoordinationResult;
  readonly durability?: DurabilityResult;
}

/** The paper's published figures, for side-by-side tables. */
export const PAPER_TABLE2 = {
  server: { readP999Ms: 68.9, writeP999Ms: 68.5, readMeanMs: 3.9, writeMeanMs: 4.02 },
  client: { readP999Ms: 30.4, writeP999Ms: 30.4, readMeanMs: 1.55, writeMeanMs: 1.9 },
} as const;

/** Section 6.3: shares of requests that saw 1, 2, 3 and 4 versions over 24 hours of the shopping cart. */
export const PAPER_VERSION_SHARES = [0.9994, 0.0000057, 0.0000047, 0.0000009] as const;
