/**
 * The data path (issue 18): GET and PUT of `/v1/kv/<key>` answered from node:http directly,
 * without fastify's router, request and reply objects, hooks and serializer, which cost a
 * coordinator about a tenth of its CPU per request (docs/benchmarks.md, tenth round).
 *
 * It takes a request only when it answers it exactly as the fastify routes would, through the
 * same code: the route's answer (kv-routes.ts `readAnswer`, `putAnswer`), the request guard, the
 * JSON body parser fastify itself uses, and the error table (error-reply.ts). Every other request
 * goes to fastify untouched, before a byte of it is read: other paths and methods, a query string, a
 * strong key, a put with If-Match or If-None-Match (the route refuses it for a plain key), a body
 * that is not JSON with a Content-Length within the limit, a missing or wrong token, a node that
 * is closing, and every request when CORS is on (its headers are @fastify/cors's). Fastify's
 * refusals, with their logs and headers, stay fastify's.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from '../logger.js';
import { bearerToken, type HttpTokens, sameSecret } from './auth.js';
import { type ContextSeal, contextSeal } from './contexts.js';
import { errorAnswer, toTesseraError } from './error-reply.js';
import {
  hasCondition,
  JSON_TEXT_TYPE,
  type KvAnswer,
  type KvRouteDeps,
  putAnswer,
  readAnswer,
} from './kv-routes.js';
import type { RequestGuard } from './request-guard.js';
import { parseInput, readQuerySchema, validateKey, writeQuerySchema } from './schemas.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const PREFIX = '/v1/kv/';
/** The JSON bodies taken here; every other Content-Type (or none) is fastify's to parse or refuse. */
const JSON_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/json; charset=utf-8']);
/** The content type fastify gives a rendered get (bytes typed by the route); JSON text is JSON_TEXT_TYPE. */
const BYTES_TYPE = 'application/json';

export interface DataPathSettings {
  /** fastify's bodyLimit: a larger body is fastify's to refuse. */
  readonly bodyLimitBytes: number;
  /** find-my-way's maxParamLength: a longer key segment is fastify's to refuse. */
  readonly keySegmentCharsMax: number;
  readonly tokens: HttpTokens;
}

/** Puts the data path in front of the app's request handler. */
export function installDataPath(
  app: FastifyInstance,
  deps: KvRouteDeps,
  guard: RequestGuard,
  settings: DataPathSettings,
  log: Logger,
): void {
  const handlers = app.server.listeners('request') as Listener[];
  const fastifyHandler = handlers[0];
  if (handlers.length !== 1 || fastifyHandler === undefined) {
    log.warn(
      { requestListeners: handlers.length },
      'data path off: the HTTP server has other request listeners; every request goes through fastify',
    );
    return;
  }
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  const path = new DataPath(deps, guard, settings, app, log);
  app.server.removeAllListeners('request');
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (closing || !path.take(req, res)) fastifyHandler(req, res);
  });
}

class DataPath {
  private readonly contexts: ContextSeal;
  private readonly noReadQuery = parseInput(readQuerySchema, {}, 'query');
  private readonly noWriteQuery = parseInput(writeQuerySchema, {}, 'query');
  private readonly parseJson: (text: string, done: (err: Error | null, body?: unknown) => void) => void;

  constructor(
    private readonly deps: KvRouteDeps,
    private readonly guard: RequestGuard,
    private readonly settings: DataPathSettings,
    app: FastifyInstance,
    private readonly log: Logger,
  ) {
    this.contexts = contextSeal(deps.config.clusterSecret);
    // Fastify's own JSON body parser, with the settings it uses here (prototype poisoning refused).
    const parser = app.getDefaultJsonParser('error', 'error');
    // It reads only the text; the request argument is unused.
    this.parseJson = (text, done) => parser(undefined as unknown as FastifyRequest, text, done);
  }

  /** Answers the request and says true, or says false having touched nothing. */
  take(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method;
    if (method !== 'GET' && method !== 'PUT') return false;
    const segment = this.keySegment(req.url);
    if (segment === undefined || !this.authorized(req.headers)) return false;
    if (method === 'PUT' && (!this.plainJsonBody(req.headers) || hasCondition(req.headers))) return false;
    let key: string;
    try {
      key = decodeURIComponent(segment);
    } catch {
      return false;
    }
    if (this.deps.strong.isStrong(key)) return false;
    const op = method === 'GET' ? 'get' : 'put';
    const refused = this.guard.enter(op);
    if (refused !== undefined) {
      this.fail(res, refused);
      return true;
    }
    res.once('close', this.guard.leave);
    if (op === 'get')
      this.answer(
        res,
        this.guard.timed(op, () => this.read(key)),
      );
    else readBody(req, (text) => this.write(res, key, text));
    return true;
  }

  /** The key's segment of `/v1/kv/<segment>`, or undefined for every other request target. */
  private keySegment(url: string | undefined): string | undefined {
    if (url === undefined || !url.startsWith(PREFIX)) return undefined;
    const segment = url.slice(PREFIX.length);
    if (segment.length === 0 || segment.length > this.settings.keySegmentCharsMax) return undefined;
    // A query, another path level, or what a router may treat apart (`;`, `#`): fastify's.
    for (let i = 0; i < segment.length; i++) {
      const c = segment.charCodeAt(i);
      if (c === 0x3f || c === 0x2f || c === 0x3b || c === 0x23) return undefined;
    }
    return segment;
  }

  /** Whether the request carries a token this route accepts (always, when the node has none). */
  private authorized(headers: IncomingHttpHeaders): boolean {
    const { token, adminToken } = this.settings.tokens;
    // As auth.ts: a node without a client token lets every client route through.
    if (token === undefined) return true;
    const presented = bearerToken(headers.authorization);
    if (presented === undefined) return false;
    return sameSecret(presented, token) || (adminToken !== undefined && sameSecret(presented, adminToken));
  }

  private plainJsonBody(headers: IncomingHttpHeaders): boolean {
    const type = headers['content-type'];
    if (type === undefined || !JSON_TYPES.has(type.toLowerCase())) return false;
    if (headers['transfer-encoding'] !== undefined) return false;
    const length = headers['content-length'];
    if (length === undefined || !/^[0-9]{1,10}$/.test(length)) return false;
    const bytes = Number(length);
    return bytes > 0 && bytes <= this.settings.bodyLimitBytes;
  }

  private read(key: string): Promise<KvAnswer> {
    return readAnswer(this.deps, this.contexts, validateKey(key), this.noReadQuery);
  }

  private write(res: ServerResponse, key: string, text: string): void {
    this.parseJson(text, (err, body) => {
      // As in fastify: a body that does not parse is refused before the handler, uncounted.
      if (err !== null) return this.fail(res, err);
      const put = () => putAnswer(this.deps, this.contexts, validateKey(key), this.noWriteQuery, body, text);
      this.answer(res, this.guard.timed('put', put));
    });
  }

  private answer(res: ServerResponse, answer: Promise<KvAnswer>): void {
    answer.then(
      ({ status, body }) => {
        if (Buffer.isBuffer(body)) send(res, status, BYTES_TYPE, body);
        else send(res, status, JSON_TEXT_TYPE, typeof body === 'string' ? body : JSON.stringify(body));
      },
      (err: unknown) => this.fail(res, err),
    );
  }

  private fail(res: ServerResponse, err: unknown): void {
    const { status, retryAfterS, body } = errorAnswer(toTesseraError(err, this.log));
    send(res, status, JSON_TEXT_TYPE, JSON.stringify(body), retryAfterS);
  }
}

function readBody(req: IncomingMessage, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
  // A client gone mid-body: nothing to answer; the response's close releases the request.
  req.on('error', () => {});
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: Buffer | string,
  retryAfterS?: number,
): void {
  if (res.destroyed) return;
  const headers: Record<string, string | number> = {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
  };
  if (retryAfterS !== undefined) headers['retry-after'] = String(retryAfterS);
  res.writeHead(status, headers);
  res.end(body);
}
