/**
 * Key choice for read workloads: uniform, or zipfian as in YCSB (Gray et al., "Quickly generating
 * billion-record synthetic databases", SIGMOD 1994): rank 0 is the hottest key, rank i is chosen
 * with probability proportional to 1 / (i + 1)^theta.
 */
import type { Rng } from '@tessera/core';

export type KeyDistribution = 'uniform' | 'zipfian';

/** YCSB's default skew. */
export const ZIPF_THETA_DEFAULT = 0.99;

export interface KeyChooser {
  /** A key index in [0, count). */
  next(): number;
}

export function createKeyChooser(
  distribution: KeyDistribution,
  count: number,
  rng: Rng,
  theta = ZIPF_THETA_DEFAULT,
): KeyChooser {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`key count must be >= 1, got ${count}`);
  if (distribution === 'uniform') return { next: () => Math.floor(rng() * count) };
  return new ZipfianChooser(count, theta, rng);
}

/** The generalized harmonic number: sum over i = 1..count of 1 / i^theta. */
export function zeta(count: number, theta: number): number {
  let sum = 0;
  for (let i = 1; i <= count; i++) sum += 1 / i ** theta;
  return sum;
}

export class ZipfianChooser implements KeyChooser {
  private readonly alpha: number;
  private readonly zetaCount: number;
  private readonly eta: number;
  private readonly halfPowTheta: number;

  constructor(
    private readonly count: number,
    private readonly theta: number,
    private readonly rng: Rng,
  ) {
    if (!(theta > 0 && theta < 1)) throw new RangeError(`zipfian theta must be in (0, 1), got ${theta}`);
    this.alpha = 1 / (1 - theta);
    this.zetaCount = zeta(count, theta);
    const zeta2 = zeta(2, theta);
    this.eta = (1 - (2 / count) ** (1 - theta)) / (1 - zeta2 / this.zetaCount);
    this.halfPowTheta = 0.5 ** theta;
  }

  /** The exact probability of a rank, for checks. */
  probability(rank: number): number {
    return 1 / (rank + 1) ** this.theta / this.zetaCount;
  }

  next(): number {
    const u = this.rng();
    const uz = u * this.zetaCount;
    if (uz < 1) return 0;
    if (uz < 1 + this.halfPowTheta) return Math.min(1, this.count - 1);
    const rank = Math.floor(this.count * (this.eta * u - this.eta + 1) ** this.alpha);
    return Math.min(rank, this.count - 1);
  }
}
