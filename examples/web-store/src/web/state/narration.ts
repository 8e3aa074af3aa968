/** What the story player says and how far it got. */

export type NarrationStatus = 'playing' | 'done' | 'stopped' | 'failed';

export interface Narration {
  readonly status: NarrationStatus;
  /** The guide's step being played (1 to 5), 0 before the first. */
  readonly step: number;
  readonly text: string;
}

export const STORY_STEPS = 5;
