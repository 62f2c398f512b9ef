#!/usr/bin/env bash
# Stops the server checks/postgres/start.sh started, and removes its cluster.
set -uo pipefail
data="${TMPDIR:-/tmp}/toolnorm-postgres"
bin="$(dirname "$(ls -d /usr/lib/postgresql/*/bin/pg_ctl 2> /dev/null | sort -V | tail -n 1)")"
as=()
[ "$(id -u)" = 0 ] && as=(runuser -u postgres --)
[ -d "$data/cluster" ] && "${as[@]}" "$bin/pg_ctl" -D "$data/cluster" -m fast -w stop > /dev/null
rm -rf "$data"
