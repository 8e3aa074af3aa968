/**
 * Starts and stops the story player. "Play" opens a fresh cart in split-screen (`?play=1`), where
 * the page starts playing once it has loaded; "Stop" ends it. Whether it ends, is stopped or fails,
 * the player heals the cluster.
 */
import type { AppState } from '../state/app-state.js';
import type { Narration } from '../state/narration.js';
import type { Store } from '../state/store.js';
import { newCartId } from '../tab.js';
import { playStory, type StoryDeps } from './script.js';
import { Stopped } from './timing.js';

export class StoryPlayer {
  private running: AbortController | undefined;

  constructor(
    private readonly store: Store<AppState>,
    private readonly deps: () => StoryDeps,
    private readonly healNow: () => Promise<void>,
  ) {}

  /** A fresh cart in split-screen that plays the story as soon as it has loaded. */
  static openFresh(): void {
    const here = new URLSearchParams(location.search);
    const next = new URLSearchParams({ view: 'split', play: '1' });
    const speed = here.get('storySpeed');
    if (speed !== null) next.set('storySpeed', speed);
    location.assign(`/c/${newCartId()}?${next.toString()}`);
  }

  get playing(): boolean {
    return this.running !== undefined;
  }

  async play(): Promise<void> {
    if (this.running !== undefined) return;
    const controller = new AbortController();
    this.running = controller;
    let ending: Narration | undefined;
    try {
      await playStory(this.deps(), controller.signal);
    } catch (err) {
      const stopped = err instanceof Stopped;
      const step = this.store.get().narration?.step ?? 0;
      ending = stopped
        ? { status: 'stopped', step, text: 'Stopped. The cluster is healed.' }
        : {
            status: 'failed',
            step,
            text: `${err instanceof Error ? err.message : String(err)} The cluster is healed.`,
          };
      this.store.update((s) => ({
        ...s,
        narration: {
          status: 'playing',
          step,
          text: stopped ? 'Stopping: healing the cluster…' : 'Healing the cluster…',
        },
      }));
    } finally {
      await this.healNow().catch(() => {});
      this.running = undefined;
      if (ending !== undefined) {
        const last = ending;
        this.store.update((s) => ({ ...s, narration: last }));
      }
    }
  }

  stop(): void {
    this.running?.abort();
  }
}
