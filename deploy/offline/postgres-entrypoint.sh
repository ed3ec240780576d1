#!/bin/sh
# First start: a cluster whose superuser is $POSTGRES_USER (password auth over TCP) and a
# database $POSTGRES_DB; then the server in the foreground, reachable from other containers.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pw="$(mktemp)"
  printf '%s' "$POSTGRES_PASSWORD" > "$pw"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pw" --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --no-locale >/dev/null
  rm -f "$pw"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=''" start >/dev/null
  psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres -c "CREATE DATABASE \"$POSTGRES_DB\"" >/dev/null
  pg_ctl -D "$PGDATA" -w stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
