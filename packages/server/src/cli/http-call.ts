/**
 * One HTTP(S) call from the CLI to a node: a bearer token and a CA for the node's certificate
 * when given, a deadline, and the JSON answer. node:http(s) rather than fetch, which cannot take
 * a CA without another dependency.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpCallOptions {
  readonly method?: string;
  readonly body?: unknown;
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string | undefined;
  /** PEM of the CA that signed the node's certificate (https URLs). */
  readonly ca?: string | Buffer | undefined;
  readonly timeoutMs: number;
}

export interface HttpAnswer {
  readonly status: number;
  /** Parsed JSON, or undefined when the body is not JSON. */
  readonly body: unknown;
}

/** Largest answer read; past it the call fails rather than fill memory. */
const ANSWER_BYTES_MAX = 16 * 1024 * 1024;

export function httpCall(url: string, options: HttpCallOptions): Promise<HttpAnswer> {
  const target = new URL(url);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {};
  if (payload !== undefined) headers['content-type'] = 'application/json';
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method: options.method ?? 'GET',
        headers,
        timeout: options.timeoutMs,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > ANSWER_BYTES_MAX)
            req.destroy(new Error(`answer larger than ${ANSWER_BYTES_MAX} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: parseJson(Buffer.concat(chunks)) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
