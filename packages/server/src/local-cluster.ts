/**
 * `@tessera/server/local-cluster`: node processes on this machine, each a `tessera start` with its
 * own data dir and log file (what `tessera cluster up`, the black-box tests, the benchmark, the
 * chaos suite and the example store run), and blocks of free loopback ports for them.
 */
export { freePortBlock } from './cli/free-ports.js';
export {
  CLI_PATH,
  type LocalClusterOptions,
  LocalNode,
  type LocalNodeSpec,
  localNodeSpecs,
} from './cli/local-cluster.js';
