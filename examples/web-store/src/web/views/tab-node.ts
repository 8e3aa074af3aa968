/** "This tab talks to": a segmented control to pick the node, and what served the last request. */
import type { ServedBy } from '../../shared/api.js';
import { h } from '../dom.js';

function served(servedBy: ServedBy): HTMLElement {
  const trouble = servedBy.degraded || servedBy.fallback;
  return h(
    'span',
    {
      class: `served${trouble ? ' trouble' : ''}`,
      'data-testid': 'served-by',
      'data-node': servedBy.nodeId,
      'data-degraded': String(servedBy.degraded),
      title: servedBy.note,
    },
    h('span', { class: 'led' }),
    servedBy.degraded
      ? [servedBy.nodeId, ' alone', h('span', { class: 'wide-only' }, ' (no quorum)')]
      : [h('span', { class: 'wide-only' }, 'served by '), servedBy.nodeId],
    servedBy.fallback
      ? ` · ${servedBy.asked === 'auto' ? 'after a failover' : `${servedBy.asked} is down`}`
      : '',
  );
}

export function tabNodeView(
  nodes: readonly string[],
  current: string,
  servedBy: ServedBy | undefined,
  onPick: (node: string) => void,
): HTMLElement {
  const options = ['auto', ...nodes];
  return h(
    'div',
    { class: 'tab-node-inner' },
    h('span', { class: 'tab-node-label', id: 'tab-node-label' }, 'This tab talks to'),
    h(
      'div',
      { class: 'segmented', role: 'radiogroup', 'aria-labelledby': 'tab-node-label' },
      options.map((id) =>
        h(
          'button',
          {
            class: `seg${id === current ? ' on' : ''}`,
            role: 'radio',
            'aria-checked': String(id === current),
            'data-testid': `pick-${id}`,
            title: id === 'auto' ? 'the first node that answers' : `send this tab's requests to ${id}`,
            onclick: () => onPick(id),
          },
          id,
        ),
      ),
    ),
    servedBy === undefined ? null : served(servedBy),
  );
}
