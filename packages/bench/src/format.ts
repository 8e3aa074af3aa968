/** Number and table formatting shared by every bench report (Markdown). */

const MIB = 1024 * 1024;

/** A Markdown table; columns in `rightAligned` are numbers. */
export function renderTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  rightAligned: ReadonlySet<number> = new Set(),
): string {
  const cells = (row: readonly string[]): string =>
    `| ${row.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
  const rule = `| ${header.map((_, i) => (rightAligned.has(i) ? '---:' : '---')).join(' | ')} |`;
  return [cells(header), rule, ...rows.map(cells)].join('\n');
}

export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function formatMs(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

export function formatPercent(share: number, digits = 1): string {
  return `${(share * 100).toFixed(digits)}%`;
}

export function formatMib(bytes: number): string {
  return String(Math.round(bytes / MIB));
}

export function formatErrors(errors: Readonly<Record<string, number>>): string {
  const entries = Object.entries(errors).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return '0';
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  return `${formatCount(total)} (${entries.map(([code, n]) => `${code} ${formatCount(n)}`).join(', ')})`;
}
