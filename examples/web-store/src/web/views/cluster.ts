/**
 * The cluster panel: a picture of the nodes and the links between them (a blocked link is a red
 * dashed line: the cluster is split), a card per node with how it sees the others, and the
 * buttons to stop, restart, isolate and heal.
 */
import type { ClusterView, NodeView } from '../../shared/api.js';
import { h, s } from '../dom.js';

export interface ClusterHandlers {
  readonly stop: (id: string) => void;
  readonly start: (id: string) => void;
  readonly isolate: (id: string) => void;
  readonly heal: () => void;
  readonly talkTo: (id: string) => void;
}

type NodeState = 'up' | 'stopped' | 'unreachable';

function stateOf(n: NodeView): NodeState {
  if (n.running === false) return 'stopped';
  return n.reachable ? 'up' : 'unreachable';
}

const W = 300;
const H = 214;

function positions(ids: readonly string[]): Map<string, { x: number; y: number }> {
  const radius = ids.length <= 1 ? 0 : 68;
  return new Map(
    ids.map((id, i) => {
      const angle = -Math.PI / 2 + (2 * Math.PI * i) / ids.length;
      return [id, { x: W / 2 + radius * Math.cos(angle) * 1.35, y: H / 2 + 14 + radius * Math.sin(angle) }];
    }),
  );
}

function diagram(view: ClusterView, tabNode: string, servedBy: string | undefined): SVGSVGElement {
  const at = positions(view.nodes.map((n) => n.id));
  const sideOf = new Map<string, number>();
  view.split?.forEach((side, i) => {
    for (const id of side) sideOf.set(id, i);
  });
  const links = view.links.map((l) => {
    const a = at.get(l.a)!;
    const b = at.get(l.b)!;
    const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    return s(
      'g',
      { class: `link link-${l.state}` },
      s('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y }),
      l.state === 'blocked'
        ? s(
            'g',
            { class: 'cut', transform: `translate(${mid.x} ${mid.y})` },
            s('circle', { r: 10 }),
            s('path', { d: 'M-4 -4L4 4M4 -4L-4 4' }),
          )
        : null,
    );
  });
  const nodes = view.nodes.map((n) => {
    const p = at.get(n.id)!;
    const side = sideOf.get(n.id);
    const here = tabNode === n.id || (tabNode === 'auto' && servedBy === n.id);
    return s(
      'g',
      {
        class: `dnode dnode-${stateOf(n)}${side === undefined ? '' : ` side-${side}`}`,
        transform: `translate(${p.x} ${p.y})`,
      },
      side === undefined ? null : s('circle', { class: 'halo', r: 34 }),
      s('circle', { class: 'disc', r: 25 }),
      s('text', { class: 'dlabel', 'text-anchor': 'middle', dy: 5 }, n.id),
      here
        ? s(
            'g',
            { class: 'you', transform: 'translate(0 -38)' },
            s('rect', { x: -30, y: -10, width: 60, height: 18, rx: 9 }),
            s('text', { 'text-anchor': 'middle', dy: 3 }, 'this tab'),
          )
        : null,
    );
  });
  return s(
    'svg',
    { class: 'diagram', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'cluster diagram' },
    links,
    nodes,
  );
}

function sees(n: NodeView): HTMLElement {
  if (stateOf(n) !== 'up') return h('div', { class: 'sees muted' }, 'no answer');
  return h(
    'div',
    { class: 'sees' },
    'sees ',
    n.sees.map((m) =>
      h(
        'span',
        {
          class: `peer peer-${m.status === 'up' ? 'up' : 'down'}`,
          title: `${n.id} sees ${m.id} as ${m.status}`,
        },
        m.id,
        m.status === 'up' ? ' ✓' : ' ✕',
      ),
    ),
  );
}

function nodeCard(n: NodeView, view: ClusterView, tabNode: string, on: ClusterHandlers): HTMLElement {
  const state = stateOf(n);
  const isolated = view.split?.some((side) => side.length === 1 && side[0] === n.id) === true;
  return h(
    'article',
    {
      class: `node-card node-${state}${tabNode === n.id ? ' is-tab' : ''}`,
      'data-testid': `node-${n.id}`,
      'data-state': state,
    },
    h(
      'header',
      null,
      h('strong', null, n.id),
      h('span', { class: `state state-${state}` }, state),
      tabNode === n.id ? h('span', { class: 'tab-badge' }, 'this tab') : null,
    ),
    h('div', { class: 'addr' }, n.url.replace(/^https?:\/\//, ''), n.pid === null ? '' : ` · pid ${n.pid}`),
    sees(n),
    n.blocks !== null && n.blocks.length > 0
      ? h('div', { class: 'blocks' }, `drops traffic to ${n.blocks.join(', ')}`)
      : null,
    h(
      'div',
      { class: 'node-actions' },
      n.managed
        ? state === 'stopped'
          ? h(
              'button',
              { class: 'btn small', 'data-testid': `start-${n.id}`, onclick: () => on.start(n.id) },
              'Restart',
            )
          : h(
              'button',
              { class: 'btn small ghost', 'data-testid': `stop-${n.id}`, onclick: () => on.stop(n.id) },
              'Stop',
            )
        : null,
      view.faultInjection
        ? h(
            'button',
            {
              class: 'btn small ghost',
              'data-testid': `isolate-${n.id}`,
              disabled: isolated,
              onclick: () => on.isolate(n.id),
            },
            isolated ? 'Isolated' : 'Isolate',
          )
        : null,
      tabNode === n.id
        ? null
        : h(
            'button',
            { class: 'btn small link', 'data-testid': `talk-${n.id}`, onclick: () => on.talkTo(n.id) },
            'Talk to it',
          ),
    ),
  );
}

function summary(view: ClusterView): string {
  const q = view.quorum === null ? '' : ` · N=${view.quorum.n} R=${view.quorum.r} W=${view.quorum.w}`;
  const split =
    view.split === null ? '' : ` · split: ${view.split.map((side) => side.join(' ')).join(' | ')}`;
  return `${view.nodes.length} nodes${q}${split}`;
}

export function clusterView(
  view: ClusterView | undefined,
  tabNode: string,
  servedBy: string | undefined,
  on: ClusterHandlers,
): HTMLElement {
  if (view === undefined) return h('div', { class: 'panel-body muted' }, 'Asking the nodes…');
  return h(
    'div',
    { class: 'cluster-inner', 'data-split': view.split === null ? 'no' : 'yes' },
    h(
      'div',
      { class: 'cluster-head' },
      h('div', null, h('h2', null, 'Cluster'), h('p', { class: 'muted' }, summary(view))),
      view.split !== null
        ? h(
            'button',
            { class: 'btn heal', 'data-testid': 'heal', onclick: () => on.heal() },
            'Heal the split',
          )
        : h('span', { class: 'pill ok' }, 'every node reaches every other'),
    ),
    h(
      'div',
      { class: 'cluster-body' },
      diagram(view, tabNode, servedBy),
      h(
        'div',
        { class: 'node-cards' },
        view.nodes.map((n) => nodeCard(n, view, tabNode, on)),
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
