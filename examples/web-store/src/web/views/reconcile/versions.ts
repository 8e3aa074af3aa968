/**
 * The versions of the cart, each in its own card (what it added, changed or removed that the others
 * did not see), an arrow, and the merged cart with where each line came from. Side by side where
 * they fit; stacked, with the arrow turned down, where they do not (reconcile.css).
 */
import type { Reconciliation, VersionItem, VersionView } from '../../../shared/api.js';
import { clock, h } from '../../dom.js';

const CHANGE_TEXT: Readonly<Record<VersionItem['change'], string>> = {
  same: '',
  added: 'added here',
  more: 'more added here',
  set: 'quantity set here',
  removed: 'removed here',
};

function versionItem(item: VersionItem): HTMLElement {
  return h(
    'li',
    { class: `vitem change-${item.change}`, 'data-product': item.productId, 'data-change': item.change },
    h('span', { class: 'mark' }, item.change === 'removed' ? '−' : item.change === 'same' ? '' : '+'),
    h('span', { class: 'vname' }, item.name),
    item.change === 'removed' ? null : h('span', { class: 'vqty' }, `×${item.quantity}`),
    CHANGE_TEXT[item.change] === '' ? null : h('span', { class: 'vnote' }, CHANGE_TEXT[item.change]),
    item.removedElsewhere.length > 0
      ? h('span', { class: 'vnote gone' }, `removed in ${item.removedElsewhere.join(', ')}`)
      : null,
  );
}

function versionCard(v: VersionView): HTMLElement {
  return h(
    'section',
    { class: `version v-${v.label}`, 'data-testid': 'version', 'data-label': v.label },
    h(
      'header',
      null,
      h('span', { class: 'vbadge' }, v.label),
      h(
        'div',
        null,
        h('strong', null, `Version ${v.label}`),
        h(
          'span',
          { class: 'muted small' },
          `written ${clock(v.lastModified)}${v.via.length > 0 ? ` · via ${v.via.join(', ')}` : ''}`,
        ),
      ),
    ),
    v.items.length === 0
      ? h('p', { class: 'muted small' }, 'empty')
      : h('ul', { class: 'vitems' }, v.items.map(versionItem)),
  );
}

function mergedCard(r: Reconciliation): HTMLElement {
  return h(
    'section',
    { class: 'version merged', 'data-testid': 'merged' },
    h(
      'header',
      null,
      h('span', { class: 'vbadge merge' }, '='),
      h(
        'div',
        null,
        h('strong', null, 'Merged cart'),
        h('span', { class: 'muted small' }, 'by resolvers.cart()'),
      ),
    ),
    h(
      'ul',
      { class: 'vitems' },
      r.merged.map((m) =>
        h(
          'li',
          { class: 'vitem merged-item', 'data-product': m.productId, 'data-rule': m.rule },
          h(
            'span',
            { class: 'from' },
            m.from.map((l) => h('span', { class: `dot v-${l}`, title: `from ${l}` }, l)),
          ),
          h('span', { class: 'vname' }, m.name),
          h('span', { class: 'vqty' }, `×${m.quantity}`),
          h('span', { class: 'vnote' }, m.note),
        ),
      ),
      r.removed.map((m) =>
        h(
          'li',
          { class: 'vitem change-removed', 'data-product': m.productId, 'data-change': 'removed' },
          h('span', { class: 'mark' }, '−'),
          h('span', { class: 'vname' }, m.name),
          h(
            'span',
            { class: 'vnote' },
            `stays removed: ${m.removedIn.join(' and ')} removed it${m.via.length > 0 ? ` (via ${m.via.join(', ')})` : ''}`,
          ),
        ),
      ),
    ),
  );
}

export function versionsFlow(r: Reconciliation): HTMLElement {
  return h(
    'div',
    { class: 'flow', 'data-testid': 'versions-flow' },
    h('div', { class: 'sides' }, r.versions.map(versionCard)),
    h(
      'div',
      { class: 'arrow', 'aria-hidden': 'true' },
      h('span', { class: 'arrow-word' }, 'merge'),
      h('span', { class: 'arrow-glyph', 'data-testid': 'merge-arrow' }, '→'),
    ),
    mergedCard(r),
  );
}
