/**
 * Canonical text of a value: JSON with object keys sorted, Sets as sorted arrays, Dates as ISO
 * strings. Two values that mean the same have the same canonical text, so resolvers can order and
 * deduplicate deterministically (the same siblings give the same merged value on every client).
 */

export function canonical(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return `"${value.toString()}n"`;
    case 'undefined':
    case 'function':
    case 'symbol':
      return 'null';
  }
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value instanceof Set) return `[${[...value].map(canonical).sort().join(',')}]`;
  if (value instanceof Map) {
    const entries = [...value].map(([k, v]) => `[${canonical(k)},${canonical(v)}]`).sort();
    return `[${entries.join(',')}]`;
  }
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`).join(',')}}`;
}

/** Deep equality of two values by their canonical text. */
export function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

/** Compares two strings by UTF-16 code units, as Array.prototype.sort does. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
