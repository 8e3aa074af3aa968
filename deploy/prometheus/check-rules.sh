#!/bin/sh
# Checks the alert rules with promtool (Debian: apt-get install prometheus): syntax, then the unit
# tests in alerts.test.yml. The names they use are checked against a running node by
# packages/server/test/metrics-deploy.test.ts.
set -eu
cd "$(dirname "$0")"
if ! command -v promtool >/dev/null 2>&1; then
  echo "promtool not found: install Prometheus (Debian: apt-get install prometheus)" >&2
  exit 2
fi
promtool check rules alerts.yml
promtool test rules alerts.test.yml
