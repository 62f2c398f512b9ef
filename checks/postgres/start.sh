#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server on 127.0.0.1 for the index's tests against
# PostgreSQL: Debian's `postgresql` package (installed when missing), a new cluster in a
# scratch folder, trust authentication on loopback only. Prints the database's URL.
#
# Usage: eval "$(checks/postgres/start.sh [PORT])"   # sets TOOLNORM_TEST_POSTGRES
#        checks/postgres/stop.sh                     # stops it
set -euo pipefail
port="${1:-54329}"
if ! ls /usr/lib/postgresql/*/bin/initdb > /dev/null 2>&1; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql > /dev/null
fi
bin="$(dirname "$(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)")"
data="${TMPDIR:-/tmp}/toolnorm-postgres"
# A server started before from the same folder is stopped first: its files would go from
# under it.
"$(dirname "$0")/stop.sh"
mkdir -p "$data"
# The server refuses to run as root: as root, it runs as Debian's `postgres` user.
as=()
if [ "$(id -u)" = 0 ]; then
  chown postgres: "$data"
  as=(runuser -u postgres --)
fi
"${as[@]}" "$bin/initdb" -D "$data/cluster" -U postgres -A trust --no-sync > "$data/initdb.log"
"${as[@]}" "$bin/pg_ctl" -D "$data/cluster" -l "$data/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $data -c fsync=off" start > /dev/null
"${as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres toolnorm
echo "export TOOLNORM_TEST_POSTGRES=postgres://postgres@127.0.0.1:$port/toolnorm"
