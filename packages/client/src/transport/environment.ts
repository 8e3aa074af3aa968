/** Where the client runs, for defaults that differ between browsers and servers. */

/**
 * A browser page or worker: fetch there is subject to CORS, and its errors do not say why a
 * request failed. Node, Deno and Bun are not browsers (their fetch has no CORS and says more).
 */
export function inBrowser(): boolean {
  const g = globalThis as { document?: unknown; importScripts?: unknown; Deno?: unknown };
  return g.Deno === undefined && (g.document !== undefined || typeof g.importScripts === 'function');
}

/** The origin of the page (or worker) the client runs in, when there is one. */
export function pageOrigin(): string | undefined {
  const origin = (globalThis as { location?: { origin?: unknown } }).location?.origin;
  return typeof origin === 'string' && origin !== 'null' ? origin : undefined;
}
