import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODE_LIST, ERROR_CODES } from './errors.js';

const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

/** The table rows of docs/errors.md as trimmed cells: [code, http, grpc, meaning]. */
const rows = doc
  .split('\n')
  .filter((line) => /^\|\s*`[A-Z_]+`\s*\|/.test(line))
  .map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );

describe('docs/errors.md', () => {
  it.each(ERROR_CODE_LIST)('documents %s with its HTTP status', (code) => {
    const row = rows.find((cells) => cells[0] === `\`${code}\``);
    expect(row, `docs/errors.md has no row for ${code}`).toBeDefined();
    expect(row?.[1]).toBe(String(ERROR_CODES[code].http));
  });

  it('lists no code that does not exist', () => {
    const documented = rows.map((cells) => cells[0]!.replaceAll('`', ''));
    expect(documented.sort()).toEqual([...ERROR_CODE_LIST].sort());
  });
});
