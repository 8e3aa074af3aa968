/**
 * Which rule of the cart resolver decided each item of a merge, in words, with what every version
 * held of it. Pure.
 */
import type { MergeRule, MergeRuleId, RuleCase, RuleLine } from '../../shared/api.js';
import type { ItemInSide } from './analysis.js';

const RULES: Readonly<Record<MergeRuleId, { readonly title: string; readonly explanation: string }>> = {
  'removal-kept': {
    title: 'A removal stays removed',
    explanation:
      'The version that removed the item had seen every line of it and tombstoned them all. Those tombstones win over the same lines still live in another version, so the item does not come back. A plain union of the versions would bring it back.',
  },
  'change-beats-removal': {
    title: 'A concurrent change wins over a removal',
    explanation:
      'A removal tombstones only the lines its version had seen. Another version changed the item at the same time, on a new line the remover never saw, so that line survives: the item stays, at the changed quantity.',
  },
  'larger-set-wins': {
    title: 'Concurrent quantities: the larger wins',
    explanation:
      'Each version set the quantity without seeing the other. Both set lines survive and the cart counts the larger one; adds that neither had seen come on top.',
  },
  'adds-add-up': {
    title: 'Concurrent adds add up',
    explanation:
      'Every add is a line of its own under a unique tag. The merge keeps every line no version removed, so what was added on several sides adds up.',
  },
  'change-kept': {
    title: 'A change made on one side is kept',
    explanation:
      'Only one version added, raised or set the item; the others still hold what it started from, so the merge takes the change.',
  },
  unchanged: {
    title: 'Unchanged items stay',
    explanation: 'Every version holds the same lines of these items, so the merge keeps them as they are.',
  },
};

export const RULE_ORDER = Object.keys(RULES) as MergeRuleId[];

export function ruleFor(sides: readonly ItemInSide[], mergedQuantity: number): MergeRuleId {
  const removers = sides.filter((s) => s.removed);
  const changers = sides.filter((s) => s.change === 'added' || s.change === 'more' || s.change === 'set');
  if (removers.length > 0 || mergedQuantity === 0)
    return mergedQuantity > 0 ? 'change-beats-removal' : 'removal-kept';
  if (changers.filter((s) => s.change === 'set').length > 1) return 'larger-set-wins';
  if (changers.length > 1) return 'adds-add-up';
  return changers.length === 1 ? 'change-kept' : 'unchanged';
}

const labels = (sides: readonly ItemInSide[]): string => sides.map((s) => s.side.label).join(' and ');

const CHANGE_WORDS = {
  added: 'added',
  more: 'more added',
  set: 'quantity set',
} as const;

/** The merged cart's one-line note for an item. */
export function noteFor(rule: MergeRuleId, sides: readonly ItemInSide[]): string {
  const removers = sides.filter((s) => s.removed);
  const changers = sides.filter((s) => s.change === 'added' || s.change === 'more' || s.change === 'set');
  const changed = changers
    .map((s) => `${CHANGE_WORDS[s.change as keyof typeof CHANGE_WORDS]} in ${s.side.label}`)
    .join(', ');
  switch (rule) {
    case 'change-beats-removal':
      return `Removed in ${labels(removers)}, ${changed} at the same time: a concurrent change wins over a removal.`;
    case 'removal-kept':
      return `Removed in ${labels(removers)}, which had seen it: it stays removed.`;
    case 'larger-set-wins':
      return `Quantity set in ${labels(changers.filter((s) => s.change === 'set'))} at once: the larger wins.`;
    case 'adds-add-up':
      return `Changes from ${labels(changers)} add up.`;
    case 'change-kept': {
      const only = changers[0]!;
      const word = CHANGE_WORDS[only.change as keyof typeof CHANGE_WORDS];
      return `${word[0]!.toUpperCase()}${word.slice(1)} in ${only.side.label}.`;
    }
    case 'unchanged':
      return 'In every version.';
  }
}

function lineText(s: ItemInSide, removers: readonly ItemInSide[]): string {
  if (s.removed) return 'removed here';
  if (s.quantity === 0) return 'not in this version';
  const unseen = s.change !== 'same' && removers.length > 0 ? `, unseen by ${labels(removers)}` : '';
  switch (s.change) {
    case 'same':
      return `×${s.quantity}, as before`;
    case 'added':
      return `×${s.quantity}, added here${unseen}`;
    case 'more':
      return `×${s.quantity}, more added here${unseen}`;
    case 'set':
      return `×${s.quantity}, quantity set here${unseen}`;
    case 'removed':
      return 'removed here';
  }
}

export function ruleCase(
  item: { readonly productId: string; readonly name: string },
  sides: readonly ItemInSide[],
  result: number,
): RuleCase {
  const removers = sides.filter((s) => s.removed);
  const lines: RuleLine[] = sides.map((s) => ({
    label: s.side.label,
    quantity: s.quantity,
    change: s.change,
    text: lineText(s, removers),
  }));
  return { productId: item.productId, name: item.name, lines, result };
}

/** The rules applied, in RULE_ORDER, each with its cases. */
export function rulesApplied(cases: readonly { rule: MergeRuleId; case: RuleCase }[]): MergeRule[] {
  return RULE_ORDER.map((id) => ({
    id,
    ...RULES[id],
    cases: cases.filter((c) => c.rule === id).map((c) => c.case),
  })).filter((r) => r.cases.length > 0);
}
