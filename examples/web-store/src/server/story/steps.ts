/**
 * The five steps of the paper's shopping-cart story, judged from what the store saw happen to one
 * cart (pure): the tabs that have it open and the nodes they are pinned to, the writes and the
 * nodes they went through, the split, the versions. A step is done when what it asks for really
 * happened, and stays done: healing the split does not undo having split it.
 */
import type { StepId, StoryWrite } from '../../shared/api.js';

export const STEPS: readonly StepId[] = ['two-items', 'two-tabs', 'split', 'both-sides', 'merged'];

export interface TabSeen {
  readonly tab: string;
  /** The node the tab is pinned to, or "auto". */
  readonly asked: string;
  readonly servedBy: string;
  readonly at: number;
}

export interface WriteSeen {
  readonly tab: string | undefined;
  readonly node: string;
  readonly at: number;
  readonly op: StoryWrite['op'];
  readonly productId: string;
  readonly degraded: boolean;
}

export interface StoryFacts {
  /** Tabs that have the cart open now. */
  readonly tabs: readonly TabSeen[];
  readonly writes: readonly WriteSeen[];
  /** The split the store made, if the cluster is split now. */
  readonly split: { readonly sides: readonly (readonly string[])[]; readonly since: number } | null;
  /** Names of the items in the cart now. */
  readonly items: readonly string[];
  /** The cart was seen with several versions, or a write resolved several. */
  readonly sawVersions: number;
  readonly name: (productId: string) => string;
}

export interface Reached {
  readonly at: number;
  readonly detail: string;
}

export type Progress = Readonly<Partial<Record<StepId, Reached>>>;

interface Judgement {
  readonly done: boolean;
  readonly detail: string;
}

export const list = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

const pinnedNodes = (facts: StoryFacts): string[] =>
  [...new Set(facts.tabs.filter((t) => t.asked !== 'auto').map((t) => t.asked))].sort();

function twoItems(facts: StoryFacts): Judgement {
  const { items } = facts;
  if (items.length >= 2) return { done: true, detail: `${list(items.slice(0, 2))} in the cart` };
  return { done: false, detail: items.length === 1 ? `${items[0]} so far` : '' };
}

function twoTabs(facts: StoryFacts): Judgement {
  const nodes = pinnedNodes(facts);
  if (nodes.length >= 2) return { done: true, detail: `tabs on ${list(nodes)}` };
  const tabs = facts.tabs.length;
  if (nodes.length === 1)
    return {
      done: false,
      detail: tabs > 1 ? `every tab is on ${nodes[0]}` : `this cart is open on ${nodes[0]}`,
    };
  return { done: false, detail: tabs > 1 ? `${tabs} tabs, none pinned to a node` : '' };
}

const sidesText = (sides: readonly (readonly string[])[]): string =>
  sides.map((s) => s.join(' ')).join(' | ');

function split(facts: StoryFacts): Judgement {
  if (facts.split === null) return { done: false, detail: '' };
  const { sides } = facts.split;
  const occupied = sides.filter((side) => pinnedNodes(facts).some((n) => side.includes(n)));
  if (occupied.length >= 2) return { done: true, detail: `${sidesText(sides)}, a tab on each side` };
  return { done: false, detail: `split ${sidesText(sides)}, but no tab is on the other side` };
}

function words(w: WriteSeen, name: (id: string) => string): string {
  switch (w.op) {
    case 'add':
      return `added ${name(w.productId)}`;
    case 'set':
      return `changed ${name(w.productId)}`;
    case 'remove':
      return `removed ${name(w.productId)}`;
    case 'save':
      return 'kept a merge';
    case 'checkout':
      return 'checked out';
  }
}

function bothSides(facts: StoryFacts, progress: Progress): Judgement {
  if (facts.split === null || progress.split === undefined) return { done: false, detail: '' };
  const { sides, since } = facts.split;
  const during = facts.writes.filter(
    (w) => w.at >= since && (w.op === 'add' || w.op === 'set' || w.op === 'remove'),
  );
  const perSide = sides
    .map((side) => ({ side, writes: during.filter((w) => side.includes(w.node)) }))
    .filter((s) => s.writes.length > 0);
  const detail = perSide
    .map((s) => `${s.side.join(' ')}: ${[...new Set(s.writes.map((w) => words(w, facts.name)))].join(', ')}`)
    .join(' · ');
  const removed = during.some((w) => w.op === 'remove');
  return { done: perSide.length >= 2 && removed, detail };
}

function merged(facts: StoryFacts): Judgement {
  return facts.sawVersions >= 2
    ? { done: true, detail: `${facts.sawVersions} versions, merged` }
    : { done: false, detail: '' };
}

/** The progress after what the facts show: steps reached now are added, reached ones kept. */
export function advance(
  progress: Progress,
  facts: StoryFacts,
  now: number,
): { progress: Progress; pending: Readonly<Record<StepId, string>> } {
  const next: Partial<Record<StepId, Reached>> = { ...progress };
  const pending: Record<StepId, string> = {
    'two-items': '',
    'two-tabs': '',
    split: '',
    'both-sides': '',
    merged: '',
  };
  const judges: Record<StepId, () => Judgement> = {
    'two-items': () => twoItems(facts),
    'two-tabs': () => twoTabs(facts),
    split: () => split(facts),
    'both-sides': () => bothSides(facts, next),
    merged: () => merged(facts),
  };
  for (const step of STEPS) {
    if (next[step] !== undefined) continue;
    const { done, detail } = judges[step]();
    if (done) {
      next[step] = { at: now, detail };
      // A split with a tab on each side has two tabs on two nodes, whatever was seen before.
      if (step === 'split' && next['two-tabs'] === undefined) next['two-tabs'] = { at: now, detail: '' };
    } else pending[step] = detail;
  }
  return { progress: next, pending };
}
