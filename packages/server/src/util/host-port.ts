/** `HOST:PORT` addresses (`[::1]:7000` too), as the config and the peer directory hold them, split for listening and connecting. */
import { TesseraError } from '@tessera/core';

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export function splitHostPort(address: string): HostPort {
  const i = address.lastIndexOf(':');
  if (i <= 0) throw new TesseraError('BAD_REQUEST', `Expected HOST:PORT, got "${address}".`);
  return { host: address.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(address.slice(i + 1)) };
}
