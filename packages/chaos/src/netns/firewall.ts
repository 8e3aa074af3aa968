/**
 * Partitions with nftables: faults on directed links between hosts of a netns network. A link
 * "a -> b on port P" is the TCP connections a opens to b's port P (for Tessera, a's peer client
 * dialling b); its fault drops all (or a share) of their packets both ways, in a's namespace: its
 * output to b:P and its input from b:P. b's own connections to a are another link. Each namespace
 * has one table, `inet tessera_chaos`, replaced atomically (`nft -f -`) on every change; it goes
 * away with the namespace.
 */
import type { NetnsNetwork } from './network.js';

const TABLE = 'tessera_chaos';

/** `drop`: every packet (a partition; TCP keeps what it sent and retries until healed). `loss`: a share. */
export type LinkRule = { readonly kind: 'drop' } | { readonly kind: 'loss'; readonly percent: number };

interface Link {
  readonly to: number;
  readonly port: number;
}

export class NetnsFirewall {
  /** Per host index: its faulty outgoing links, by `to:port`. */
  private readonly rules = new Map<number, Map<string, Link & { rule: LinkRule }>>();
  /** Per host index: the last apply, so changes to one namespace apply in order. */
  private readonly applying = new Map<number, Promise<void>>();

  constructor(private readonly network: NetnsNetwork) {}

  /** Sets (or, with undefined, heals) the fault of link `from -> to` on `port`. */
  async set(from: number, to: number, port: number, rule: LinkRule | undefined): Promise<void> {
    if (rule?.kind === 'loss' && !(rule.percent >= 0 && rule.percent <= 100))
      throw new Error(`a loss is 0 to 100 percent, not ${rule.percent}`);
    this.network.host(to);
    const links = this.rules.get(from) ?? new Map<string, Link & { rule: LinkRule }>();
    const key = `${to}:${port}`;
    if (rule === undefined) links.delete(key);
    else links.set(key, { to, port, rule });
    this.rules.set(from, links);
    await this.apply(from);
  }

  /** Cuts every link between group `a` and group `b`, both ways, on `port`. */
  async partition(a: readonly number[], b: readonly number[], port: number): Promise<void> {
    for (const x of a)
      for (const y of b) {
        await this.set(x, y, port, { kind: 'drop' });
        await this.set(y, x, port, { kind: 'drop' });
      }
  }

  /** Every link back to normal. */
  async healAll(): Promise<void> {
    const hosts = [...this.rules.keys()];
    this.rules.clear();
    for (const host of hosts) await this.apply(host);
  }

  /** The ruleset of host `from`'s namespace (for logs and tests). */
  ruleset(from: number): string {
    const links = [...(this.rules.get(from)?.values() ?? [])];
    const rule = (match: string, r: LinkRule): string =>
      r.kind === 'drop'
        ? `    ${match} drop`
        : `    numgen random mod 100 < ${Math.round(r.percent)} ${match} drop`;
    const output = links.map((l) => rule(`ip daddr ${this.address(l.to)} tcp dport ${l.port}`, l.rule));
    const input = links.map((l) => rule(`ip saddr ${this.address(l.to)} tcp sport ${l.port}`, l.rule));
    return [
      `table inet ${TABLE}`,
      `delete table inet ${TABLE}`,
      `table inet ${TABLE} {`,
      '  chain output {',
      '    type filter hook output priority 0; policy accept;',
      ...output,
      '  }',
      '  chain input {',
      '    type filter hook input priority 0; policy accept;',
      ...input,
      '  }',
      '}',
      '',
    ].join('\n');
  }

  private apply(from: number): Promise<void> {
    const previous = this.applying.get(from) ?? Promise.resolve();
    const next = previous
      .catch(() => {})
      .then(async () => {
        await this.network.runIn(from, 'nft', ['-f', '-'], this.ruleset(from));
      });
    this.applying.set(from, next);
    return next;
  }

  private address(index: number): string {
    return this.network.host(index).address;
  }
}
