/**
 * For the browser test: a loopback HTTP server that serves a page and the client bundle, and
 * reverse-proxies /v1/* to a node, so the page calls the node on its own origin (no CORS).
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PageServer {
  readonly url: string;
  /** Requests proxied to the node, by path. */
  readonly proxied: string[];
  close(): Promise<void>;
}

export async function startPageServer(files: Record<string, { type: string; body: string }>, node: string) {
  const proxied: string[] = [];
  const target = new URL(node);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    const file = files[path];
    if (file !== undefined) {
      res.writeHead(200, { 'content-type': file.type });
      res.end(file.body);
      return;
    }
    if (!path.startsWith('/v1/')) {
      res.writeHead(404).end();
      return;
    }
    proxied.push(`${req.method} ${path}`);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    proxied,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  } satisfies PageServer;
}
