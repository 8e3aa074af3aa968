#!/bin/sh
# The container's entry point: `tessera start` with the container's defaults, or any other command.
#
# `start` binds every interface (0.0.0.0) and advertises TESSERA_ADVERTISE_HOST (default: the
# container's host name, which compose and Kubernetes make resolvable), so peers and clients dial
# an address that exists. Flags given after `start` come later and win (e.g. --node-id n0).
#
#   TESSERA_NODE_ID          node id (default: the host name; a StatefulSet pod's name)
#   TESSERA_ADVERTISE_HOST   host other nodes and clients reach this one at (default: the host name)
#   TESSERA_HTTP_PORT        HTTP API port (default 7000)
#   TESSERA_PEER_PORT        peer port (default 8000)
#   TESSERA_DATA_DIR         data directory (default /data, the image's volume)
#   TESSERA_CLI              the CLI script (default /app/dist/bin/main.js; tests point it elsewhere)
set -eu
cli="${TESSERA_CLI:-/app/dist/bin/main.js}"
if [ "${1:-start}" != start ]; then
  exec node "$cli" "$@"
fi
[ $# -gt 0 ] && shift
host="${TESSERA_ADVERTISE_HOST:-$(hostname)}"
http_port="${TESSERA_HTTP_PORT:-7000}"
peer_port="${TESSERA_PEER_PORT:-8000}"
exec node "$cli" start \
  --node-id "${TESSERA_NODE_ID:-$(hostname)}" \
  --http "0.0.0.0:${http_port}" \
  --peer "0.0.0.0:${peer_port}" \
  --advertise-http "${host}:${http_port}" \
  --advertise-peer "${host}:${peer_port}" \
  --data-dir "${TESSERA_DATA_DIR:-/data}" \
  "$@"
