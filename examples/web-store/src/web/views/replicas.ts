/**
 * What each replica holds: one mini-cart per node, its own stored copy read without a quorum, with
 * the time it was read. During a split the copies visibly diverge; after the heal they converge,
 * and each card says what its node has not received yet.
 */
import { clock, h, plural } from '../dom.js';
import type { ReplicaCard, ReplicasSummary } from '../state/replicas.js';

const STATE_TEXT: Readonly<Record<Exclude<ReplicaCard['shows'], 'copy'>, string>> = {
  'no-copy': 'no copy of this cart',
  stopped: 'node stopped',
  unreachable: 'node not answering',
  asking: 'asking…',
};

function card(c: ReplicaCard): HTMLElement {
  const copy = c.copy;
  return h(
    'article',
    {
      class: `replica${c.behind ? ' behind' : ''}${copy?.group == null ? '' : ` g${copy.group % 4}`}`,
      'data-testid': `replica-${c.nodeId}`,
      'data-shows': c.shows,
      'data-group': copy?.group == null ? '' : String(copy.group),
      'data-versions': copy?.versions ?? 0,
      'data-behind': String(c.behind),
    },
    h(
      'header',
      { class: 'replica-head' },
      h('strong', null, c.nodeId),
      copy !== undefined && copy.versions > 1
        ? h('span', { class: 'pill warn' }, plural(copy.versions, 'version'))
        : null,
      h(
        'span',
        { class: 'muted small replica-time' },
        copy === undefined ? '' : `read ${clock(copy.readAt)}`,
      ),
    ),
    c.shows === 'copy' && copy !== undefined
      ? copy.items.length === 0
        ? h('p', { class: 'muted small' }, 'an empty cart')
        : h(
            'ul',
            { class: 'replica-items' },
            copy.items.map((i) =>
              h(
                'li',
                { 'data-product': i.productId, 'data-qty': i.quantity },
                h('span', null, i.name),
                h('span', { class: 'muted' }, `×${i.quantity}`),
              ),
            ),
          )
      : h('p', { class: 'muted small replica-state' }, STATE_TEXT[c.shows === 'copy' ? 'asking' : c.shows]),
    c.note === ''
      ? null
      : h(
          'p',
          {
            class: `replica-note small${c.behind ? ' warn' : ''}`,
            'data-testid': `replica-note-${c.nodeId}`,
          },
          c.note,
        ),
  );
}

export function replicasView(summary: ReplicasSummary): HTMLElement {
  return h(
    'div',
    { class: 'replicas-inner', 'data-agreement': summary.agreement },
    h(
      'div',
      { class: 'section-head replicas-head' },
      h('h2', null, 'What each replica holds'),
      h('p', { class: 'muted small' }, 'every node’s own copy of this cart, read without a quorum'),
    ),
    h(
      'p',
      { class: `replicas-headline agree-${summary.agreement}`, 'data-testid': 'replicas-headline' },
      summary.headline,
    ),
    h('div', { class: 'replica-cards' }, summary.cards.map(card)),
  );
}
