#!/usr/bin/env bash
# The PostgreSQL server binaries the tests start throwaway clusters with
# (test/support/postgres-cluster.ts): Debian's `postgresql` package, installed when
# /usr/lib/postgresql/*/bin/initdb is missing. Source it or run it; idempotent.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "ensure-postgres: installing the postgresql server package (apt-get)" >&2
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  else
    sudo -n apt-get update -qq && sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { echo "ensure-postgres: no initdb after apt-get install postgresql" >&2; exit 1; }
fi
