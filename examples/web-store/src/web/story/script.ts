/**
 * "Play the story": the guide's five steps, hands-free, on the split-screen page (the left half is
 * this tab, the right half the second tab), with a sentence for each thing it does. It uses the
 * page's own actions: writes pinned to the two halves' nodes, the cluster's split and heal.
 */
import type { AppState } from '../state/app-state.js';
import { summarize } from '../state/replicas.js';
import { savedText } from '../state/saved.js';
import type { Store } from '../state/store.js';
import { readingMs, type StorySpeed, sleep, until } from './timing.js';

/** One half of the split screen: the node it talks to and its cart changes, each awaited. */
export interface PaneOps {
  readonly node: (state: AppState) => string | undefined;
  readonly add: (productId: string) => Promise<void>;
  readonly set: (productId: string, quantity: number) => Promise<void>;
  readonly remove: (productId: string) => Promise<void>;
}

export interface StoryDeps {
  readonly store: Store<AppState>;
  readonly left: PaneOps;
  readonly right: PaneOps;
  readonly isolate: (nodeId: string) => Promise<void>;
  readonly heal: () => Promise<void>;
  /** Reads the carts, the cluster and the replicas again now. */
  readonly refresh: () => Promise<void>;
  readonly showMerge: () => void;
  readonly speed: StorySpeed;
}

/** Deadlines for what the cluster does by itself: a write, a split seen, a heal converged. */
const SHOWN_MS = 15_000;
const CONVERGED_MS = 40_000;

const has = (items: readonly { productId: string }[] | undefined, id: string): boolean =>
  items?.some((i) => i.productId === id) === true;

export async function playStory(deps: StoryDeps, signal: AbortSignal): Promise<void> {
  const { store, left, right } = deps;
  const wait = { signal, timeoutMs: SHOWN_MS, refresh: deps.refresh };
  const say = async (step: number, text: string): Promise<void> => {
    store.update((s) => ({ ...s, narration: { status: 'playing', step, text } }));
    await sleep(readingMs(text, deps.speed), signal);
  };
  const tell = (step: number, text: string): void =>
    store.update((s) => ({ ...s, narration: { status: 'playing', step, text } }));

  tell(0, 'Getting the two halves ready…');
  await until(
    store,
    'the two halves to have their nodes',
    (s) => left.node(s) !== undefined && right.node(s) !== undefined && s.cart !== undefined,
    wait,
  );
  const l = left.node(store.get())!;
  const r = right.node(store.get())!;
  const others = store
    .get()
    .cluster?.view.nodes.map((n) => n.id)
    .filter((id) => id !== l) ?? [r];
  const otherSide = others.join(' and ');
  await say(
    0,
    `One fresh cart, shown twice: the left half talks to ${l}, the right half to ${r}. Both read and write the same key in Tessera, replicated on every node.`,
  );

  tell(1, `Step 1. On the left (${l}), add a mug and a kettle.`);
  await left.add('mug');
  await left.add('kettle');
  await until(
    store,
    'both halves to show the mug and the kettle',
    (s) =>
      has(s.second.cart?.items, 'mug') &&
      has(s.second.cart?.items, 'kettle') &&
      summarize(s.replicas, s.cluster?.view).agreement === 'same',
    wait,
  );
  await say(1, `Both halves show them, and under "What each replica holds" every node has the same copy.`);

  tell(2, `Step 2. Each half is a tab of its own, pinned to its node: ${l} on the left, ${r} on the right.`);
  await until(
    store,
    'the guide to count two tabs',
    (s) => s.cart?.story.steps.find((x) => x.id === 'two-tabs')?.doneAt != null,
    wait,
  );
  await say(
    2,
    `Step 2. Each half is a tab of its own, pinned to its node: ${l} on the left, ${r} on the right.`,
  );

  tell(3, `Step 3. Split the cluster: ${l} alone on one side, ${otherSide} on the other.`);
  await deps.isolate(l);
  await until(store, 'the split to show', (s) => s.cluster?.view.split != null, wait);
  await say(
    3,
    `Step 3. The cluster is split: ${l} alone, ${otherSide} on the other side. ${l} cannot reach a quorum (W=2), so from now on it writes its own copy: Dynamo keeps a cart writable.`,
  );

  tell(4, `Step 4. On the left (${l}): add a lamp, remove the kettle and the mug.`);
  await left.add('lamp');
  await left.remove('kettle');
  await left.remove('mug');
  await say(4, `Step 4. On the left (${l}): a lamp added, the kettle and the mug removed.`);
  const saved = savedText(store.get().saved, true);
  if (saved?.kind === 'minority') {
    await say(
      4,
      `Notice under the left half's total: “${saved.text}”. ${l} alone acknowledged the write; the other replicas get it when the split heals (hinted handoff, anti-entropy).`,
    );
  }
  tell(4, `On the right (${r}): add a fern and raise the mug to 2. ${otherSide} still make a quorum.`);
  await right.add('fern');
  await right.set('mug', 2);
  await until(
    store,
    'the replicas to diverge',
    (s) => summarize(s.replicas, s.cluster?.view).agreement === 'diverged',
    wait,
  );
  await say(
    4,
    `The replicas have diverged: ${l} holds the lamp without the kettle, ${otherSide} hold the fern and two mugs. Each side sees only its own changes.`,
  );

  tell(5, 'Step 5. Heal the split.');
  await deps.heal();
  await until(
    store,
    'the two versions to come back',
    (s) => (s.cart?.versions ?? 0) > 1 && (s.second.cart?.versions ?? 0) > 1,
    { ...wait, timeoutMs: CONVERGED_MS },
  );
  deps.showMerge();
  await say(
    5,
    'Step 5. Healed: a read found both versions (siblings), and resolvers.cart() merged them. The lamp and the fern are kept, the mug stays at 2 (a change on one side wins over a removal on the other), and the kettle stays removed.',
  );
  await until(
    store,
    'every replica to hold the same versions',
    (s) => summarize(s.replicas, s.cluster?.view).agreement === 'same',
    { ...wait, timeoutMs: CONVERGED_MS },
  );
  const now = savedText(store.get().saved, false);
  const everywhere = now?.kind === 'everywhere' ? ` The left half’s note now reads “${now.text}”.` : '';
  await say(
    5,
    `Read repair and anti-entropy have brought every replica the same two versions.${everywhere} Nothing was lost: that is the paper’s shopping cart (Dynamo, section 4.4).`,
  );
  store.update((s) => ({
    ...s,
    narration: {
      status: 'done',
      step: 5,
      text: 'The end. The cluster is healed; “Keep the merge” writes the merged cart back as one version.',
    },
  }));
}
