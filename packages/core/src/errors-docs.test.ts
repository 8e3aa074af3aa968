import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODE_LIST, ERROR_CODES } from './errors.js';

const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

describe('docs/errors.md', () => {
  it.each(ERROR_CODE_LIST)('documents %s with its HTTP status', (code) => {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
    expect(row, `docs/errors.md has no row for ${code}`).toBeDefined();
    expect(row).toContain(`| ${ERROR_CODES[code].http} |`);
  });

  it('lists no code that does not exist', () => {
    const documented = [...doc.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual([...ERROR_CODE_LIST].sort());
  });
});
