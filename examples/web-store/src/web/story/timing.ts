/**
 * The story player's clock: pauses long enough to read each sentence aloud (normal), or next to
 * none (`?storySpeed=fast`, for tests); and waits on conditions of the page's state, never on time.
 */
import type { Store } from '../state/store.js';

export type StorySpeed = 'normal' | 'fast';

export function storySpeed(search: string): StorySpeed {
  return new URLSearchParams(search).get('storySpeed') === 'fast' ? 'fast' : 'normal';
}

/** Time to read `text`: about 200 words a minute, at least 3 s; 40 ms when fast. */
export function readingMs(text: string, speed: StorySpeed): number {
  if (speed === 'fast') return 40;
  const words = text.split(/\s+/).filter((w) => w !== '').length;
  return Math.max(3_000, words * 300);
}

export class Stopped extends Error {
  constructor() {
    super('The story was stopped.');
  }
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Stopped());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Stopped());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface WaitOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** Asks the store again (cart, cluster, replicas) meanwhile, so the condition is seen early. */
  readonly refresh: () => Promise<void>;
}

const REFRESH_MS = 400;

/** Resolves once `ready(state)` holds; rejects after the timeout (saying `what`) or on stop. */
export async function until<S>(
  store: Store<S>,
  what: string,
  ready: (state: S) => boolean,
  options: WaitOptions,
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (!ready(store.get())) {
    if (Date.now() > deadline) throw new Error(`The story waited too long for ${what}.`);
    await Promise.all([options.refresh().catch(() => {}), sleep(REFRESH_MS, options.signal)]);
  }
}
