/**
 * A member of a JSON object, or the elements of a JSON array, as their text was sent: a put's
 * value travels and rests as the client's bytes, never parsed and re-serialized (issue 18), on a
 * node and on the client's in-memory node. `JSON.stringify(JSON.parse(…))` of a value changed it:
 * a number past 2^53 was rounded (12345678901234567890 came back as 12345678901234567000), `1.50`
 * became `1.5`, escapes were rewritten.
 *
 * `text` must be JSON that parsed (the caller's parser checked it), so the scan only finds the
 * members' boundaries: it validates nothing, and on other text its answer means nothing.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const BOM = 0xfeff;

/**
 * The text of the top-level member `name` of the JSON object `text`, the last one if the name
 * repeats (the one `JSON.parse` keeps); undefined when there is none.
 */
export function memberText(text: string, name: string): string | undefined {
  let i = skipSpace(text, text.charCodeAt(0) === BOM ? 1 : 0);
  if (text.charCodeAt(i) !== OPEN_OBJECT) return undefined;
  i = skipSpace(text, i + 1);
  let found: string | undefined;
  while (i < text.length && text.charCodeAt(i) === QUOTE) {
    const nameEnd = stringEnd(text, i);
    const member = nameOf(text, i, nameEnd);
    const start = skipSpace(text, skipSpace(text, nameEnd) + 1); // past the colon
    const end = valueEnd(text, start);
    if (member === name) found = text.slice(start, end);
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return found;
}

/** The texts of the elements of the JSON array `text`; undefined when it is not an array. */
export function elementTexts(text: string): string[] | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_ARRAY) return undefined;
  i = skipSpace(text, i + 1);
  const elements: string[] = [];
  while (i < text.length && text.charCodeAt(i) !== CLOSE_ARRAY) {
    const end = valueEnd(text, i);
    elements.push(text.slice(i, end));
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return elements;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index after the closing quote of the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return text.length;
}

/** A member's name: its text between the quotes, decoded only when it has escapes (`"\u0076alue"`). */
function nameOf(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  return raw.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : raw;
}

/** The index after the value that starts at `start`. */
function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) return stringEnd(text, start);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) i = stringEnd(text, i) - 1;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return i + 1;
    }
    return text.length;
  }
  // A number, true, false or null: up to the next delimiter.
  let i = start;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c)) break;
  }
  return i;
}
