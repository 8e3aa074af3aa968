/** Reading certificate and key files named in the config. */
import { readFileSync } from 'node:fs';
import { TesseraError } from '@tessera/core';

/** Reads a PEM file; the error names the file and the setting, never its content. */
export function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new TesseraError(
      'BAD_REQUEST',
      `Cannot read ${what} ${path} (${typeof code === 'string' ? code : 'unreadable'}). Make one with \`tessera certs\` (docs/security.md).`,
    );
  }
}
