/**
 * The reconciliation view: the versions of the cart side by side (what each one added, changed or
 * removed that the others did not see), an arrow, and the merged cart resolvers.cart() made, with
 * where each line came from and what stayed removed. This is the heart of the demo.
 */
import type { PastReconciliation, Reconciliation, VersionItem, VersionView } from '../../shared/api.js';
import { clock, h, plural } from '../dom.js';

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
          { class: 'vitem merged-item', 'data-product': m.productId },
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
            `stays removed: ${m.removedIn.join(', ')} removed it${m.via.length > 0 ? ` (via ${m.via.join(', ')})` : ''}`,
          ),
        ),
      ),
    ),
  );
}

function body(r: Reconciliation): HTMLElement[] {
  const cards: HTMLElement[] = r.versions.map(versionCard);
  cards.push(h('div', { class: 'arrow', 'aria-hidden': 'true' }, h('span', null, 'merge'), '→'));
  cards.push(mergedCard(r));
  const parts: HTMLElement[] = [h('div', { class: 'versions' }, cards)];
  if (r.unionWouldResurrect.length > 0) {
    parts.push(
      h(
        'p',
        { class: 'union-note' },
        h('strong', null, 'Why not a plain union? '),
        `Merging by taking every item of every version, as the paper's cart does (§4.4: "deleted items can resurface"), would have brought back ${r.unionWouldResurrect.join(', ')}. The cart CRDT keeps the removal, because the version that removed it had seen exactly those lines.`,
      ),
    );
  }
  return parts;
}

export function liveReconciliation(r: Reconciliation, onSave: () => void): HTMLElement {
  return h(
    'div',
    { class: 'reconcile live', 'data-testid': 'reconciliation' },
    h(
      'div',
      { class: 'reconcile-head' },
      h(
        'div',
        null,
        h('h2', null, `This cart has ${plural(r.versions.length, 'version')} right now`),
        h(
          'p',
          null,
          'They were written where the cluster could not bring them together (a split, or a node that was down), so neither saw the other. Tessera kept both as ',
          h('em', null, 'siblings'),
          ' and returned them with one context; the store merged them for you with the cart resolver. Any change you make, or the button, writes the merge back with that context and the versions become one.',
        ),
      ),
      h(
        'button',
        { class: 'btn primary', 'data-testid': 'resolve', onclick: () => onSave() },
        'Keep the merge',
      ),
    ),
    body(r),
  );
}

export function pastReconciliation(
  r: PastReconciliation,
  open: boolean,
  onToggle: (open: boolean) => void,
): HTMLElement {
  const how = r.resolvedBy === 'save' ? 'by “Keep the merge”' : `by a ${r.resolvedBy}`;
  const details = h(
    'details',
    { class: 'reconcile past', 'data-testid': 'last-reconciliation', open },
    h(
      'summary',
      null,
      h('span', { class: 'ok-mark' }, '✓'),
      ` ${plural(r.versions.length, 'version')} merged into one at ${clock(r.resolvedAt)}, ${how} via ${r.via}. `,
      h('span', { class: 'muted' }, open ? 'Hide' : 'Show how'),
    ),
    body(r),
  );
  details.addEventListener('toggle', () => onToggle(details.open));
  return details;
}
