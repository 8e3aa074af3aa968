/** Sibling versions of a cart, and how resolvers.cart() merged them, rule by rule. */

/** How an item stands in one version, compared with the other versions. */
export type VersionChange = 'same' | 'added' | 'more' | 'set' | 'removed';

export interface VersionItem {
  readonly productId: string;
  readonly name: string;
  /** The quantity in this version (0 for an item this version removed). */
  readonly quantity: number;
  readonly change: VersionChange;
  /** Labels of the other versions that removed this item (this one still has it). */
  readonly removedElsewhere: readonly string[];
}

export interface VersionView {
  /** "A", "B", … in the order of the versions' timestamps. */
  readonly label: string;
  readonly lastModified: string;
  /** Nodes the store wrote this version's own changes through (when the store remembers). */
  readonly via: readonly string[];
  readonly items: readonly VersionItem[];
}

/**
 * The rules of the cart resolver, as the merge applies them to one item:
 * - unchanged: every version holds the same lines;
 * - change-kept: one version added, raised or set it and no other touched it;
 * - adds-add-up: several versions added to it; every add is its own line, so they add up;
 * - larger-set-wins: several versions set its quantity without seeing each other;
 * - removal-kept: a version removed it after seeing every line of it;
 * - change-beats-removal: one version removed it while another changed it on a line the remover
 *   had not seen; that line survives.
 */
export type MergeRuleId =
  | 'unchanged'
  | 'change-kept'
  | 'adds-add-up'
  | 'larger-set-wins'
  | 'removal-kept'
  | 'change-beats-removal';

/** What one version held of an item, in words: "×2, quantity set here", "removed here". */
export interface RuleLine {
  readonly label: string;
  readonly quantity: number;
  readonly change: VersionChange;
  readonly text: string;
}

export interface RuleCase {
  readonly productId: string;
  readonly name: string;
  /** One line per version. */
  readonly lines: readonly RuleLine[];
  /** The merged quantity: 0 when the item stays removed. */
  readonly result: number;
}

export interface MergeRule {
  readonly id: MergeRuleId;
  readonly title: string;
  readonly explanation: string;
  readonly cases: readonly RuleCase[];
}

export interface MergedItem {
  readonly productId: string;
  readonly name: string;
  readonly quantity: number;
  /** Labels of the versions whose lines make up this item. */
  readonly from: readonly string[];
  readonly rule: MergeRuleId;
  readonly note: string;
}

export interface MergedRemoval {
  readonly productId: string;
  readonly name: string;
  /** Labels of the versions that removed it. */
  readonly removedIn: readonly string[];
  readonly via: readonly string[];
}

export interface Reconciliation {
  readonly versions: readonly VersionView[];
  readonly merged: readonly MergedItem[];
  readonly removed: readonly MergedRemoval[];
  /** Every rule the merge applied, in the order of MergeRuleId, each with its items. */
  readonly rules: readonly MergeRule[];
  /** Names of items a plain union of the versions (the paper's cart) would have brought back. */
  readonly unionWouldResurrect: readonly string[];
}

export interface PastReconciliation extends Reconciliation {
  readonly resolvedAt: string;
  /** What wrote the merge back: "save", "add", "remove", "checkout", … */
  readonly resolvedBy: string;
  readonly via: string;
}
