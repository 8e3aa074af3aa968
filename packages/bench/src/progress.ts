/**
 * The progress line while a phase runs: on a TTY one line rewritten in place every second,
 * otherwise a plain line every few seconds (for logs and CI).
 */
import { formatCount, formatMs } from './format.js';

export interface ProgressSample {
  readonly phase: string;
  readonly elapsedMs: number;
  /** Warmup plus measured time, or undefined for phases that end when their work is done. */
  readonly totalMs: number | undefined;
  readonly warmup: boolean;
  readonly opsPerSec: number;
  readonly completedOps: number;
  readonly failedOps: number;
  readonly p99Ms: number;
}

export interface ProgressSink {
  update(sample: ProgressSample): void;
  /** The phase ended: finish the line. */
  done(): void;
}

const PLAIN_EVERY_MS = 5_000;

export function formatProgress(s: ProgressSample): string {
  const clock =
    s.totalMs === undefined
      ? `${(s.elapsedMs / 1000).toFixed(0)} s`
      : `${(s.elapsedMs / 1000).toFixed(0)}/${(s.totalMs / 1000).toFixed(0)} s`;
  return [
    `${s.phase.padEnd(22)} ${clock.padStart(7)}${s.warmup ? ' warmup' : '       '}`,
    `${formatCount(s.opsPerSec).padStart(7)} ops/s`,
    `p99 ${formatMs(s.p99Ms).padStart(6)} ms`,
    `ops ${formatCount(s.completedOps)}`,
    `errors ${formatCount(s.failedOps)}`,
  ].join('  ');
}

export function createProgress(stream: NodeJS.WriteStream): ProgressSink {
  if (stream.isTTY === true) {
    let shown = false;
    return {
      update(sample) {
        const width = Math.max(20, (stream.columns ?? 120) - 1);
        stream.write(`\r${formatProgress(sample).slice(0, width).padEnd(width)}`);
        shown = true;
      },
      done() {
        if (shown) stream.write('\n');
        shown = false;
      },
    };
  }
  let lastMs = Number.NEGATIVE_INFINITY;
  return {
    update(sample) {
      if (sample.elapsedMs - lastMs < PLAIN_EVERY_MS) return;
      lastMs = sample.elapsedMs;
      stream.write(`${formatProgress(sample)}\n`);
    },
    done() {
      lastMs = Number.NEGATIVE_INFINITY;
    },
  };
}

/** A sink that shows nothing. */
export const SILENT_PROGRESS: ProgressSink = { update() {}, done() {} };
