import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ERROR_CODE_LIST,
  ERROR_CODES,
  type ErrorCode,
  type ErrorOrigin,
  GrpcStatus,
  isErrorCode,
} from './errors.js';

const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

/** The section of docs/errors.md that lists the codes of each origin. */
const SECTIONS: Readonly<Record<string, ErrorOrigin>> = {
  'Codes a node returns': 'node',
  'Codes the client raises': 'client',
};
const HEADER = ['code', 'HTTP', 'gRPC', 'meaning'];
const GRPC_NAMES = new Map<number, string>(Object.entries(GrpcStatus).map(([name, value]) => [value, name]));

interface Row {
  /** The `## ` heading the row is under. */
  readonly section: string;
  readonly cells: readonly string[];
}

/** Every row of every Markdown table, as trimmed cells, with its section; separator rows left out. */
function tableRows(text: string): Row[] {
  const rows: Row[] = [];
  let section = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('## ')) section = line.slice(3).trim();
    if (!line.startsWith('|') || /^\|[\s|:-]+\|$/.test(line)) continue;
    rows.push({
      section,
      cells: line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    });
  }
  return rows;
}

/** The row docs/errors.md must have for `code`, cell by cell. */
function expectedCells(code: ErrorCode): string[] {
  const info = ERROR_CODES[code];
  return [
    `\`${code}\``,
    info.http === undefined ? 'none' : String(info.http),
    GRPC_NAMES.get(info.grpc)!,
    info.summary,
  ];
}

const rows = tableRows(doc);
const codeRows = rows.filter((row) => row.cells[0] !== HEADER[0]);
const codeOf = (row: Row): string => row.cells[0]!.replace(/^`(.*)`$/, '$1');

describe('docs/errors.md', () => {
  it('has one table of codes per origin, each with the columns code, HTTP, gRPC, meaning', () => {
    const headers = rows.filter((row) => row.cells[0] === HEADER[0]);
    expect(headers.map((row) => row.section).sort()).toEqual(Object.keys(SECTIONS).sort());
    for (const row of headers) expect(row.cells, row.section).toEqual(HEADER);
  });

  it.each(ERROR_CODE_LIST)('documents %s once, in the section of its origin, with every column', (code) => {
    const found = codeRows.filter((row) => codeOf(row) === code);
    expect(found.length, `rows for ${code} in docs/errors.md`).toBe(1);
    expect(SECTIONS[found[0]!.section], `the section ${code} is in`).toBe(ERROR_CODES[code].origin);
    expect(found[0]!.cells).toEqual(expectedCells(code));
  });

  it('lists only codes of the table, each as the table has it', () => {
    for (const row of codeRows) {
      const code = codeOf(row);
      expect(row.cells[0], 'a code cell is the code in backticks').toBe(`\`${code}\``);
      expect(isErrorCode(code), `docs/errors.md lists ${code}, which ERROR_CODES has not`).toBe(true);
      if (!isErrorCode(code)) continue;
      expect(row.cells).toEqual(expectedCells(code));
      expect(SECTIONS[row.section], `the section ${code} is in`).toBe(ERROR_CODES[code].origin);
    }
    expect(codeRows.length).toBe(ERROR_CODE_LIST.length);
  });
});
