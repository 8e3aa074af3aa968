/**
 * A node's card: its state, address and pid (only while it answers), its link to every other node
 * (the same links the drawing and the health line use), the peers it drops traffic to, and its
 * buttons.
 */
import type { ClusterView, LinkState, NodeView, PeerLink } from '../../../shared/api.js';
import { h } from '../../dom.js';

export interface NodeCardHandlers {
  readonly stop: (id: string) => void;
  readonly start: (id: string) => void;
  readonly isolate: (id: string) => void;
  readonly pick: (id: string) => void;
}

const MARK: Readonly<Record<LinkState, string>> = { ok: '✓', doubt: '?', blocked: '✕', down: '✕' };

function linkTitle(n: NodeView, p: PeerLink): string {
  const what: Record<LinkState, string> = {
    ok: `${n.id} and ${p.id} are in touch`,
    doubt: `both answer, but a failure detector still counts the other down until its next call`,
    blocked: `traffic between ${n.id} and ${p.id} is dropped: the cluster is split`,
    down: `${p.id} is not up`,
  };
  const lag = p.lagging
    ? ` (${n.id}'s failure detector still counts ${p.id} as up; it notices at its next call)`
    : '';
  return `${what[p.link]}${lag}`;
}

function links(n: NodeView): HTMLElement {
  if (n.state !== 'up') {
    return h(
      'div',
      { class: 'sees muted' },
      n.state === 'stopped' ? 'stopped: the others carry on' : 'does not answer',
    );
  }
  return h(
    'div',
    { class: 'sees' },
    'links ',
    n.peers.map((p) =>
      h(
        'span',
        {
          class: `peer peer-${p.link}${p.lagging ? ' lagging' : ''}`,
          'data-peer': p.id,
          'data-link': p.link,
          'data-lagging': String(p.lagging),
          title: linkTitle(n, p),
        },
        `${p.id} ${MARK[p.link]}`,
        p.lagging ? h('span', { class: 'lag', 'aria-label': 'not noticed yet' }, '…') : null,
      ),
    ),
  );
}

function actions(
  n: NodeView,
  view: ClusterView,
  here: string | undefined,
  on: NodeCardHandlers,
): HTMLElement {
  const isolated = view.split?.some((side) => side.length === 1 && side[0] === n.id) === true;
  return h(
    'div',
    { class: 'node-actions' },
    n.managed
      ? n.state === 'stopped'
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
    here === n.id
      ? null
      : h(
          'button',
          { class: 'btn small link', 'data-testid': `talk-${n.id}`, onclick: () => on.pick(n.id) },
          'Talk to it',
        ),
  );
}

export function nodeCard(
  n: NodeView,
  view: ClusterView,
  here: string | undefined,
  on: NodeCardHandlers,
): HTMLElement {
  return h(
    'article',
    {
      class: `node-card node-${n.state}${here === n.id ? ' is-tab' : ''}`,
      'data-testid': `node-${n.id}`,
      'data-state': n.state,
    },
    h(
      'header',
      null,
      h('strong', null, n.id),
      h('span', { class: `state state-${n.state}` }, n.state),
      here === n.id ? h('span', { class: 'tab-badge' }, 'this tab') : null,
    ),
    h(
      'div',
      { class: 'addr', 'data-testid': `addr-${n.id}` },
      n.url.replace(/^https?:\/\//, ''),
      n.pid === null ? '' : ` · pid ${n.pid}`,
    ),
    links(n),
    n.state === 'up' && n.blocks !== null && n.blocks.length > 0
      ? h('div', { class: 'blocks' }, `drops traffic to ${n.blocks.join(', ')}`)
      : null,
    actions(n, view, here, on),
  );
}
