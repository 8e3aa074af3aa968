/**
 * The cluster as the panel shows it. The store derives one picture from what every node reports
 * (its status, its failure detector's view of the others, the peers it drops traffic to), so the
 * health line, the node cards and the drawing all read the same links and cannot disagree.
 */

/** up: its HTTP API answers; stopped: the store stopped its process; unreachable: no answer. */
export type NodeState = 'up' | 'stopped' | 'unreachable';

/**
 * A link between two nodes. blocked: one of them drops traffic to the other (a split); down: one
 * end is not up; doubt: both are up and neither blocks, but a failure detector still counts the
 * other as down (it has not reached it since a failure); ok: both up and in touch.
 */
export type LinkState = 'ok' | 'doubt' | 'blocked' | 'down';

/** How one node stands with another: the link, and what its own failure detector says. */
export interface PeerLink {
  readonly id: string;
  readonly link: LinkState;
  /** This node's failure detector about the peer ("unknown": the peer is not a member it knows). */
  readonly thinks: 'up' | 'down' | 'unknown';
  /** The link is blocked or down but the detector still says up: it notices at its next call. */
  readonly lagging: boolean;
}

export interface NodeView {
  readonly id: string;
  readonly url: string;
  /** The store started this node's process and can stop and restart it. */
  readonly managed: boolean;
  /** For a managed node: whether its process runs. */
  readonly running: boolean | null;
  /** Its HTTP API answered just now. */
  readonly reachable: boolean;
  readonly state: NodeState;
  /** The process id the node itself reported; null when it does not answer. */
  readonly pid: number | null;
  /** Every other node, with the link's state (the same as in `links`). */
  readonly peers: readonly PeerLink[];
  /** Peers it drops traffic to (fault injection); null when fault injection is off or unknown. */
  readonly blocks: readonly string[] | null;
  readonly partitions: number | null;
}

export interface ClusterLink {
  /** `a` < `b`. */
  readonly a: string;
  readonly b: string;
  readonly state: LinkState;
  /** The ends whose failure detector has not caught up with `state` yet. */
  readonly lagging: readonly string[];
}

/** One line about the whole cluster, from the same links. */
export interface ClusterHealth {
  /** ok: every link ok; doubt: some link in doubt; down: a node is not up; split: a link is blocked. */
  readonly kind: 'ok' | 'doubt' | 'down' | 'split';
  readonly text: string;
  /** Failure detectors that have not caught up yet, in words; null when none lags. */
  readonly catchingUp: string | null;
}

export interface ClusterView {
  /** When the store asked the nodes (ISO time): how fresh this picture is. */
  readonly observedAt: string;
  readonly nodes: readonly NodeView[];
  /** Links between every two nodes. */
  readonly links: readonly ClusterLink[];
  /** The sides of the current split, or null when no blocked link separates the nodes. */
  readonly split: readonly (readonly string[])[] | null;
  readonly health: ClusterHealth;
  /** When the store last split the cluster from the panel (ISO time), null if it never did. */
  readonly lastSplitAt: string | null;
  readonly canControlProcesses: boolean;
  readonly faultInjection: boolean;
  readonly quorum: { readonly n: number; readonly r: number; readonly w: number } | null;
}
