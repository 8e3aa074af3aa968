/** Every error code the store answers is in the table of docs/web-store.md, with its status. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STORE_ERRORS } from '../src/server/http/errors.js';

const doc = readFileSync(new URL('../../../docs/web-store.md', import.meta.url), 'utf8');

describe('docs/web-store.md', () => {
  it.each(Object.entries(STORE_ERRORS))('documents %s with status %i', (code, status) => {
    expect(doc).toMatch(new RegExp(`^\\|\\s*\`${code}\`\\s*\\|\\s*${status}\\s*\\|`, 'm'));
  });
});
