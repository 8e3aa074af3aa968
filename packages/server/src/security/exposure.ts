/**
 * Safe defaults: a node bound to loopback may run open (a laptop); one reachable from other
 * machines must authenticate clients and peers, or be started with --insecure on purpose.
 */
import { TesseraError } from '@tessera/core';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

export interface Exposure {
  /** Reasons to refuse to start (unless insecure). */
  readonly refusals: string[];
  /** Weaker setups worth a warning in the log. */
  readonly warnings: string[];
}

export function isLoopback(address: string): boolean {
  const host = address
    .slice(0, address.lastIndexOf(':'))
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function exposure(config: Config): Exposure {
  const refusals: string[] = [];
  const warnings: string[] = [];
  if (!isLoopback(config.http)) {
    if (config.token === undefined)
      refusals.push(
        `the HTTP API on ${config.http} is reachable from other machines but has no client token (--token-file or TESSERA_TOKEN)`,
      );
    if (config.httpTls === undefined)
      warnings.push(`the HTTP API on ${config.http} is plain HTTP: tokens and values travel unencrypted`);
  }
  if (!isLoopback(config.peer)) {
    if (config.peerTls === undefined && config.clusterSecret === undefined)
      refusals.push(
        `peer traffic on ${config.peer} is reachable from other machines but peers are not authenticated (--peer-tls-* or --cluster-secret-file)`,
      );
    else if (config.peerTls === undefined)
      warnings.push(
        `peer traffic on ${config.peer} is authenticated but unencrypted: use --peer-tls-* for mTLS`,
      );
  }
  if (config.faultInjection && config.adminToken === undefined && !isLoopback(config.http))
    warnings.push('fault injection is on and the admin API has no admin token');
  return { refusals, warnings };
}

/** Refuses an exposed, unauthenticated node unless config.insecure; logs the weaker setups. */
export function enforceExposure(config: Config, log: Logger): void {
  const { refusals, warnings } = exposure(config);
  if (refusals.length > 0 && !config.insecure) {
    throw new TesseraError(
      'BAD_REQUEST',
      `Refusing to start: ${refusals.join('; ')}. Set them up (docs/security.md), bind to 127.0.0.1, or pass --insecure on a trusted network.`,
    );
  }
  for (const reason of [...refusals, ...warnings])
    log.warn({ security: 'weak' }, `insecure setup: ${reason} (see docs/security.md)`);
}
