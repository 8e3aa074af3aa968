/**
 * What a starting node has opened, closed in reverse: a boot that fails half way closes what it
 * opened, and a stop closes everything, the last opened first.
 */
export type Close = () => Promise<void>;

export class Closers {
  private readonly opened: Close[] = [];

  add(close: Close): void {
    this.opened.push(close);
  }

  /** Closes everything added, newest first; a close that fails is reported and the rest still run. */
  async closeAll(onError: (err: unknown) => void = () => {}): Promise<void> {
    while (this.opened.length > 0) {
      const close = this.opened.pop()!;
      await close().catch(onError);
    }
  }
}
