/** json-text.ts: a member's or an element's text, as sent, from any JSON text. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { elementTexts, memberText } from './json-text.js';

const space = fc.constantFrom('', ' ', '\n', '\t', '\r\n  ');

/** JSON text of `value` with random whitespace between its tokens (JSON.stringify's indent, or none). */
const spaced = (value: unknown, indent: string): string => JSON.stringify(value, null, indent);

/** A member name, sometimes written with escapes (`"\u0076alue"` is `value`). */
function nameText(name: string, escaped: boolean): string {
  if (!escaped) return JSON.stringify(name);
  return `"${[...name].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`;
}

const member = fc.record({
  name: fc.oneof(
    fc.constantFrom('value', 'context', 'valu', 'values', 'v"alue', ''),
    fc.string({ maxLength: 6 }),
  ),
  escaped: fc.boolean(),
  value: fc.jsonValue({ maxDepth: 4 }),
  indent: fc.constantFrom('', ' ', '\t'),
  before: space,
  after: space,
});

describe('memberText', () => {
  it('finds the text JSON.parse reads a member from, in any order, spacing and escaping of names (property)', () => {
    fc.assert(
      fc.property(fc.array(member, { maxLength: 6 }), space, (members, edge) => {
        const body = `${edge}{${members
          .map(
            (m) =>
              `${m.before}${nameText(m.name, m.escaped)}${m.after}:${m.before}${spaced(m.value, m.indent)}${m.after}`,
          )
          .join(',')}}${edge}`;
        const parsed = JSON.parse(body) as Record<string, unknown>;
        const text = memberText(body, 'value');
        if (!Object.hasOwn(parsed, 'value')) {
          expect(text).toBeUndefined();
          return;
        }
        expect(text).toBeDefined();
        expect(JSON.parse(text as string)).toEqual(parsed.value);
        // The member's own text: it starts and ends with the value, never with the spacing around it.
        expect(text).toBe((text as string).trim());
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps what a parse and stringify would change: big numbers, number forms, escapes, spacing inside', () => {
    const value = '{"id": 12345678901234567890, "price": 1.50, "e": 1E3, "s": "\\u00e9\\/", "a": [ 1 , 2 ]}';
    expect(memberText(`{"value": ${value}, "context": "c1.x"}`, 'value')).toBe(value);
    expect(memberText('{"value":12345678901234567890}', 'value')).toBe('12345678901234567890');
    expect(memberText('{"value":-0.0e-0}', 'value')).toBe('-0.0e-0');
  });

  it('takes the last of repeated members, as JSON.parse does, and skips strings that look like structure', () => {
    expect(memberText('{"value": 1, "value": [2]}', 'value')).toBe('[2]');
    expect(memberText('{"x": "{\\"value\\": 3}", "value": "}]\\\\"}', 'value')).toBe('"}]\\\\"');
    expect(memberText('{"x": {"value": 3}, "y": [{"value": 4}]}', 'value')).toBeUndefined();
  });

  it('reads past a byte order mark, and answers undefined for a body that is not an object', () => {
    expect(memberText('\ufeff{"value":true}', 'value')).toBe('true');
    expect(memberText('[{"value": 1}]', 'value')).toBeUndefined();
    expect(memberText('"value"', 'value')).toBeUndefined();
    expect(memberText('{}', 'value')).toBeUndefined();
  });

  it("splits an array's text into its elements' texts (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.jsonValue({ maxDepth: 3 }), space, fc.constantFrom('', ' ')), { maxLength: 8 }),
        (items) => {
          const text = `[${items.map(([v, s, indent]) => `${s}${JSON.stringify(v, null, indent)}${s}`).join(',')}]`;
          const elements = elementTexts(text);
          expect(elements?.map((e) => JSON.parse(e))).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 2000 },
    );
    expect(elementTexts('{"a": 1}')).toBeUndefined();
    expect(elementTexts('[ ]')).toEqual([]);
  });
});
