/**
 * "How the merge decided": every rule of the cart resolver the merge applied, what it says, and
 * for each item it decided, what every version held of it and what the merge kept.
 */
import type { MergeRule, Reconciliation, RuleCase } from '../../../shared/api.js';
import { h } from '../../dom.js';

function ruleCase(c: RuleCase): HTMLElement {
  return h(
    'li',
    { class: 'rcase', 'data-product': c.productId },
    h('span', { class: 'rname' }, c.name),
    h(
      'span',
      { class: 'rlines' },
      c.lines.map((l) =>
        h(
          'span',
          { class: `rline change-${l.change}`, 'data-label': l.label, 'data-change': l.change },
          h('span', { class: `dot v-${l.label}` }, l.label),
          l.text,
        ),
      ),
    ),
    h(
      'span',
      { class: `rresult${c.result === 0 ? ' gone' : ''}` },
      c.result === 0 ? '→ stays removed' : `→ ×${c.result}`,
    ),
  );
}

function unchangedCases(rule: MergeRule): HTMLElement {
  return h(
    'p',
    { class: 'rcompact' },
    rule.cases.map((c, i) => [
      i === 0 ? '' : ', ',
      h('span', { 'data-product': c.productId }, `${c.name} ×${c.result}`),
    ]),
  );
}

function rule(r: MergeRule): HTMLElement {
  return h(
    'li',
    { class: `rule rule-${r.id}`, 'data-testid': `rule-${r.id}` },
    h('h4', null, r.title),
    h('p', { class: 'rexplain' }, r.explanation),
    r.id === 'unchanged' ? unchangedCases(r) : h('ul', { class: 'rcases' }, r.cases.map(ruleCase)),
  );
}

export function rulesView(r: Reconciliation): HTMLElement {
  return h(
    'section',
    { class: 'rules', 'data-testid': 'merge-rules' },
    h('h3', null, 'How the merge decided'),
    h('ol', { class: 'rule-list' }, r.rules.map(rule)),
  );
}
