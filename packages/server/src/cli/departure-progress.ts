/**
 * A leaving node's way out as the terminal shows it: `admin leave` follows it until the node has
 * handed everything over (not only until its ring change commits), and `admin status` adds a line
 * per member that is leaving or retiring, from that member's own `/v1/status` (`departure`).
 */

/** `departure` of `GET /v1/status` (transfer/departure.ts). */
export interface DepartureLike {
  readonly phase: 'leaving' | 'retiring' | 'left';
  readonly partitionsHeld: number | null;
  readonly keysHeld: number | null;
  readonly keysHandedOver: number;
  readonly hintsHeld: number;
  readonly progress: number;
}

/** One line: where the node is on its way out, and how much it still has to hand over. */
export function renderDeparture(nodeId: string, d: DepartureLike, width = 20): string {
  if (d.phase === 'leaving')
    return `${nodeId} leaving: its partitions move to the other nodes (transfers above)`;
  if (d.phase === 'left')
    return `${nodeId} left the cluster: handed everything over (${d.keysHandedOver} keys since its leave committed)`;
  const filled = Math.round(d.progress * width);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(d.progress * 100)}%`;
  const held =
    d.keysHeld !== null
      ? `${d.keysHeld} keys in ${d.partitionsHeld ?? 0} partitions left`
      : d.keysHandedOver === 0
        ? 'waiting retireDelayMs before handing over'
        : 'first pass over what it holds';
  return `${nodeId} retiring ${bar}  ${d.keysHandedOver} keys handed over, ${held}, ${d.hintsHeld} hints held`;
}

interface MemberLike {
  readonly nodeId: string;
  readonly http: string;
  readonly status: string;
}

/** The parts of a node's `/v1/status` the lines are made from. */
export interface DepartureStatus {
  readonly nodeId: string;
  readonly members: readonly MemberLike[];
  readonly departure?: DepartureLike | null;
}

/**
 * A line for each member the asked node lists as leaving or retiring, from that member's own
 * status (`fetchAt` gets `/v1/status` at a node's HTTP address; one that does not answer says so),
 * and one for the asked node itself when it is on its way out or has left.
 */
export async function departureLines(
  asked: DepartureStatus,
  fetchAt: (httpAddress: string) => Promise<{ departure?: DepartureLike | null }>,
): Promise<string[]> {
  const own = asked.departure ?? undefined;
  const going = asked.members.filter(
    (m) => (m.status === 'leaving' || m.status === 'retiring') && m.nodeId !== asked.nodeId,
  );
  const lines = await Promise.all(
    going.map(async (m) => {
      try {
        const d = (await fetchAt(m.http)).departure;
        return d === undefined || d === null ? `${m.nodeId} ${m.status}` : renderDeparture(m.nodeId, d);
      } catch {
        return `${m.nodeId} ${m.status}: its progress is unknown (it does not answer at ${m.http})`;
      }
    }),
  );
  return own === undefined ? lines : [renderDeparture(asked.nodeId, own), ...lines];
}
