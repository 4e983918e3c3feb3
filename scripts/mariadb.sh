#!/usr/bin/env bash
# A throwaway MariaDB for tests: own temporary data directory, free loopback port, no system config.
#
#   url=$(scripts/mariadb.sh)          # start; prints ONLY mysql://store:<pw>@127.0.0.1:<port>/store_test
#   TEST_DATABASE_URL=$url npx jest
#   scripts/mariadb.sh stop            # stop the server of the state file and delete its data directory
#   scripts/mariadb.sh stop <dir|url>  # ... or of a given data directory (printed on stderr) or URL
#   scripts/mariadb.sh status          # prints the URL if the server of the state file is running
#
# The state file ($MARIADB_STATE, default /tmp/store-mariadb.state; a copy lives in the data directory)
# records dir=, pid=, port= and url=. Progress goes to stderr. Installs mariadb-server with apt when
# mariadbd is missing. Safe as root: the server runs as the `mysql` user.
set -euo pipefail

STATE=${MARIADB_STATE:-/tmp/store-mariadb.state}
STARTUP_TIMEOUT=${MARIADB_STARTUP_TIMEOUT:-30}
export PATH="$PATH:/usr/sbin:/sbin"

log() { echo "mariadb.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

state_get() { # state_get <file> <key>
  sed -n "s/^$2=//p" "$1" | head -n 1
}

alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

stop_server() {
  local target=${1:-$STATE} file="" dir pid f
  case "$target" in
    mysql://* | mariadb://*) # find the server by its URL among this script's data directories
      for f in "${TMPDIR:-/tmp}"/store-mariadb.*/state; do
        if [ -f "$f" ] && [ "$(state_get "$f" url)" = "$target" ]; then file=$f; break; fi
      done
      [ -n "$file" ] || { log "nothing to stop (no server with that URL)"; return 0; }
      ;;
    *) if [ -d "$target" ]; then file="$target/state"; else file="$target"; fi ;;
  esac
  if [ ! -f "$file" ]; then
    log "nothing to stop (no state file $file)"
    return 0
  fi
  dir=$(state_get "$file" dir)
  pid=$(state_get "$file" pid)
  if alive "$pid"; then
    log "stopping mariadbd (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local waited=0
    while alive "$pid" && [ "$waited" -lt 300 ]; do sleep 0.1; waited=$((waited + 1)); done
    if alive "$pid"; then
      log "mariadbd did not stop within 30 s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    fi
  fi
  # Only ever delete a directory this script created (it carries our marker).
  if [ -n "$dir" ] && [ -f "$dir/.store-mariadb" ]; then rm -rf "$dir"; fi
  if [ -f "$STATE" ] && [ "$(state_get "$STATE" dir)" = "$dir" ]; then rm -f "$STATE"; fi
  rm -f "$file"
  log "stopped"
}

free_port() {
  if command -v python3 >/dev/null 2>&1 &&
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' 2>/dev/null; then
    return 0
  fi
  if command -v node >/dev/null 2>&1; then
    node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
    return 0
  fi
  echo $((20000 + RANDOM % 20000)) # last resort: a random high port; a clash is retried below
}

ensure_installed() {
  if command -v mariadbd >/dev/null 2>&1 && command -v mariadb-install-db >/dev/null 2>&1; then return 0; fi
  [ "$(id -u)" = 0 ] || die "mariadbd is not installed and installing it needs root (apt-get install mariadb-server)"
  log "mariadbd not found; installing mariadb-server with apt-get (about a minute)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends mariadb-server >&2
  command -v mariadbd >/dev/null 2>&1 || die "mariadb-server was installed but mariadbd is still missing"
}

start_server() {
  if [ -f "$STATE" ] && alive "$(state_get "$STATE" pid)"; then
    die "a server from $STATE is already running (url $(state_get "$STATE" url)); run '$0 stop' or set MARIADB_STATE to another file"
  fi
  ensure_installed
  local run_as=() owner=""
  if [ "$(id -u)" = 0 ]; then
    id mysql >/dev/null 2>&1 || die "running as root but there is no 'mysql' user to run mariadbd as"
    run_as=(--user=mysql)
    owner=mysql:mysql
  fi

  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/store-mariadb.XXXXXX")
  touch "$dir/.store-mariadb"
  mkdir -p "$dir/data" "$dir/tmp"
  if [ -n "$owner" ]; then chown -R "$owner" "$dir"; fi
  chmod 755 "$dir"
  log "data directory $dir"

  local pid=""
  fail() {
    if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
    if [ -f "$dir/err.log" ]; then
      log "last lines of $dir/err.log:"
      tail -n 25 "$dir/err.log" >&2 || true
    fi
    rm -rf "$dir"
    die "$1"
  }

  mariadb-install-db --no-defaults "${run_as[@]}" --datadir="$dir/data" \
    --auth-root-authentication-method=normal --skip-test-db >"$dir/install.log" 2>&1 ||
    { cat "$dir/install.log" >&2; fail "mariadb-install-db failed"; }

  local sock="$dir/mysqld.sock" port="" attempt
  for attempt in 1 2 3 4 5; do
    port=$(free_port)
    : >"$dir/err.log"
    if [ -n "$owner" ]; then chown "$owner" "$dir/err.log"; fi
    mariadbd --no-defaults "${run_as[@]}" \
      --datadir="$dir/data" --tmpdir="$dir/tmp" --socket="$sock" --pid-file="$dir/mysqld.pid" \
      --log-error="$dir/err.log" --port="$port" --bind-address=127.0.0.1 --skip-name-resolve \
      --skip-log-bin --max-connections=500 \
      --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
      --innodb-buffer-pool-size=256M --innodb-flush-log-at-trx-commit=2 --innodb-doublewrite=0 \
      --innodb-lock-wait-timeout=10 \
      </dev/null >>"$dir/err.log" 2>&1 &
    pid=$!
    log "mariadbd pid $pid on 127.0.0.1:$port (attempt $attempt)"

    local deadline=$((SECONDS + STARTUP_TIMEOUT)) up=""
    while [ "$SECONDS" -lt "$deadline" ]; do
      if mariadb-admin --no-defaults -uroot --socket="$sock" --connect-timeout=2 ping >/dev/null 2>&1; then
        up=1
        break
      fi
      alive "$pid" || break
      sleep 0.1
    done
    [ -n "$up" ] && break
    if alive "$pid"; then
      fail "mariadbd did not answer 'mariadb-admin ping' within ${STARTUP_TIMEOUT} s"
    fi
    if grep -qiE "address already in use|bind on tcp/ip port" "$dir/err.log"; then
      log "port $port was taken; trying another"
      pid=""
      continue
    fi
    fail "mariadbd exited during startup"
  done
  [ -n "${up:-}" ] || fail "could not find a free port after 5 attempts"

  local pw
  pw=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
  mariadb --no-defaults -uroot --socket="$sock" >&2 <<SQL || fail "could not create the database and user"
CREATE DATABASE store_test CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER 'store'@'127.0.0.1' IDENTIFIED BY '$pw';
GRANT ALL PRIVILEGES ON *.* TO 'store'@'127.0.0.1';
FLUSH PRIVILEGES;
SQL

  local url="mysql://store:$pw@127.0.0.1:$port/store_test"
  {
    echo "dir=$dir"
    echo "pid=$pid"
    echo "port=$port"
    echo "socket=$sock"
    echo "url=$url"
  } >"$dir/state"
  cp "$dir/state" "$STATE"
  log "ready: pid $pid, port $port, data $dir, state $STATE (stop with: $0 stop)"
  echo "$url"
}

case "${1:-start}" in
  start) start_server ;;
  stop) stop_server "${2:-}" ;;
  status)
    if [ -f "$STATE" ] && alive "$(state_get "$STATE" pid)"; then state_get "$STATE" url; else log "not running"; exit 1; fi
    ;;
  *) die "usage: $0 [start|stop [dir|url|state-file]|status]" ;;
esac
