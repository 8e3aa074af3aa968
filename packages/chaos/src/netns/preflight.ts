/**
 * What netns mode needs, checked before anything is created: root (network namespaces, veth pairs,
 * a bridge and nftables rules need CAP_NET_ADMIN), `ip` (iproute2) and `nft` (nftables).
 */
import { run } from './command.js';

/** Throws an Error saying what is missing and how to get it; resolves when all is there. */
export async function checkNetnsSupport(): Promise<void> {
  if (process.platform !== 'linux')
    throw new Error(`netns mode needs Linux network namespaces; this is ${process.platform}.`);
  if (process.getuid?.() !== 0)
    throw new Error(
      'netns mode must run as root (it creates network namespaces, veth pairs, a bridge and nftables rules); run it with sudo or in a root container.',
    );
  const missing: string[] = [];
  await run('ip', ['-V']).catch(() => missing.push('ip (apt-get install -y iproute2)'));
  await run('nft', ['--version']).catch(() => missing.push('nft (apt-get install -y nftables)'));
  if (missing.length > 0) throw new Error(`netns mode needs ${missing.join(' and ')}.`);
}
