/**
 * Fastify's JSON body parser, keeping each request's body text beside what it parsed: a put stores
 * its value as the text the client sent (`sentValue`; core json-text.ts), not as the parsed value
 * serialized again.
 * The parse is fastify's own default, with the node's settings (prototype poisoning refused).
 */
import { memberText } from '@tessera/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const texts = new WeakMap<FastifyRequest, string>();

export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    texts.set(req, text);
    parse(req, text, done);
  });
}

/** The JSON body text of a request the parser above read; undefined for any other. */
export function bodyText(req: FastifyRequest): string | undefined {
  return texts.get(req);
}

/**
 * A put's value as the JSON text the client sent: the `value` member of `text`, the JSON object it
 * was parsed from; serialized from the parsed `value` only when that text is not known.
 */
export function sentValue(value: unknown, text: string | undefined): string {
  return (text === undefined ? undefined : memberText(text, 'value')) ?? JSON.stringify(value);
}
