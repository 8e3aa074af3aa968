/**
 * The cluster panel: one health line, the drawing and a card per node, all read from the same
 * picture the store derived (ClusterView), with the time the store asked the nodes.
 */
import type { ClusterView } from '../../../shared/api.js';
import { clock, h } from '../../dom.js';
import type { ClusterSnapshot } from '../../state/app-state.js';
import { diagram } from './diagram.js';
import { type NodeCardHandlers, nodeCard } from './node-card.js';

export interface ClusterHandlers extends NodeCardHandlers {
  readonly heal: () => void;
}

function summary(snapshot: ClusterSnapshot): HTMLElement {
  const { view } = snapshot;
  const q = view.quorum === null ? '' : ` · N=${view.quorum.n} R=${view.quorum.r} W=${view.quorum.w}`;
  return h(
    'p',
    { class: 'muted cluster-summary' },
    `${view.nodes.length} nodes${q} · `,
    h(
      'span',
      { 'data-testid': 'cluster-as-of', title: 'when the store last asked every node' },
      `as of ${clock(view.observedAt)}`,
    ),
  );
}

/** The picture without its time: what decides whether the panel is drawn again. */
export function timeless(view: ClusterView | undefined): Omit<ClusterView, 'observedAt'> | undefined {
  if (view === undefined) return undefined;
  const { observedAt: _time, ...rest } = view;
  return rest;
}

/**
 * The time of the picture changes with every poll; it is written in place, so that the panel is
 * not rebuilt every 1.5 s (that would drop focus and hover from its buttons).
 */
export function showAsOf(root: Element | null, snapshot: ClusterSnapshot | undefined): void {
  const el = root?.querySelector('[data-testid="cluster-as-of"]');
  if (el !== null && el !== undefined && snapshot !== undefined)
    el.textContent = `as of ${clock(snapshot.view.observedAt)}`;
}

export function clusterView(
  snapshot: ClusterSnapshot | undefined,
  here: string | undefined,
  on: ClusterHandlers,
): HTMLElement {
  if (snapshot === undefined) return h('div', { class: 'panel-body muted' }, 'Asking the nodes…');
  const { view, stale } = snapshot;
  return h(
    'div',
    {
      class: `cluster-inner${stale ? ' stale' : ''}`,
      'data-split': view.split === null ? 'no' : 'yes',
      'data-health': view.health.kind,
      'data-stale': String(stale),
    },
    h(
      'div',
      { class: 'cluster-head' },
      h('div', null, h('h2', null, 'Cluster'), summary(snapshot)),
      h(
        'div',
        { class: 'health' },
        h(
          'span',
          {
            class: `pill health-${view.health.kind}`,
            'data-testid': 'cluster-health',
            'data-kind': view.health.kind,
          },
          view.health.text,
        ),
        view.split === null
          ? null
          : h(
              'button',
              { class: 'btn heal', 'data-testid': 'heal', onclick: () => on.heal() },
              'Heal the split',
            ),
      ),
    ),
    stale
      ? h(
          'p',
          { class: 'stale-note', 'data-testid': 'cluster-stale' },
          `The store has not answered since ${clock(view.observedAt)}: this is how the cluster was then.`,
        )
      : null,
    view.health.catchingUp === null
      ? null
      : h(
          'p',
          { class: 'catching-up small', 'data-testid': 'catching-up' },
          h('strong', null, 'Catching up: '),
          `${view.health.catchingUp}. A failure detector notices at its next call to the peer.`,
        ),
    h(
      'div',
      { class: 'cluster-body' },
      diagram(view, here),
      h(
        'div',
        { class: 'node-cards' },
        view.nodes.map((n) => nodeCard(n, view, here, on)),
      ),
    ),
    view.faultInjection
      ? null
      : h(
          'p',
          { class: 'muted small' },
          'Split and heal need nodes started with --fault-injection (pnpm start does).',
        ),
  );
}
