#!/usr/bin/env bash
# A local cluster: N instances of the agent on Aegra (each an API and its worker loops), over
# one PostgreSQL and one Redis. `make cluster` and `make cluster-stop` call it; docs/deploy.md
# explains the pieces.
#
#   deploy/cluster.sh start    create the databases, migrate them, start the instances
#   deploy/cluster.sh stop     stop the instances this script started (by their PID files)
#
# Settings (environment):
#   CLUSTER_PORTS               ports of the instances (default "2026 2027")
#   CLUSTER_DIR                 PID files, logs and each instance's data dir (default .cluster)
#   CLUSTER_PYTHON              the Python 3.12 environment's interpreter (default .cluster/venv)
#   CLUSTER_CONFIG              the langgraph.json to serve (default: the repository's)
#   DEEP_RESEARCH_DATABASE_URL  our domain store (default: database deep_research_cluster)
#   AEGRA_DATABASE_URL          Aegra's own database: runs, threads, checkpoints, store
#                               (default: database deep_research_aegra; never the domain store's,
#                               both keep Alembic's default version table)
#   REDIS_URL                   Aegra's run queue and event broker (default redis://127.0.0.1:6379/0)
# Anything else in the environment (DEEP_RESEARCH_AUTH_*, DEEP_RESEARCH_MAX_RUNS_PER_USER,
# Aegra's LEASE_DURATION_SECONDS, ...) reaches the instances unchanged.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd)"
CLUSTER_PORTS="${CLUSTER_PORTS:-2026 2027}"
CLUSTER_DIR="${CLUSTER_DIR:-.cluster}"
CLUSTER_PYTHON="${CLUSTER_PYTHON:-$CLUSTER_DIR/venv/bin/python}"
PG="postgresql://postgres@127.0.0.1:5432"
export DEEP_RESEARCH_DATABASE_URL="${DEEP_RESEARCH_DATABASE_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/deep_research_cluster}"
AEGRA_DATABASE_URL="${AEGRA_DATABASE_URL:-$PG/deep_research_aegra}"
REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"

say() { printf '%s\n' "$*" >&2; }

# Create a PostgreSQL database named by the path of a URL, unless it exists.
create_database() {
    "$CLUSTER_PYTHON" - "$1" <<'PY'
import sys
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

parts = urlsplit(sys.argv[1].replace("+psycopg", "", 1))
name = parts.path.lstrip("/")
admin = urlunsplit(parts._replace(path="/postgres"))
with psycopg.connect(admin, autocommit=True) as conn:
    if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        print(f"created database {name}", file=sys.stderr)
PY
}

# The PID of our instance on a port, if it is alive (its PID file names it).
our_instance() {
    local pidfile="$CLUSTER_DIR/$1.pid"
    [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null && cat "$pidfile"
}

# Refuse to start when a port we are to serve is held by another process: our instance would
# fail to bind and exit, and the health check would reach the other server instead.
check_ports_free() {
    local port
    for port in $CLUSTER_PORTS; do
        our_instance "$port" >/dev/null && continue
        if ! "$CLUSTER_PYTHON" -c '
import socket, sys
with socket.socket() as s:
    s.bind(("127.0.0.1", int(sys.argv[1])))' "$port" 2>/dev/null; then
            say "port $port is taken by another process: stop it or set CLUSTER_PORTS"
            exit 1
        fi
    done
}

start() {
    if [[ ! -x "$CLUSTER_PYTHON" ]]; then
        say "no Python 3.12 environment at $CLUSTER_PYTHON: run 'make cluster'"
        exit 1
    fi
    check_ports_free
    local bin dir
    bin="$(dirname "$CLUSTER_PYTHON")"
    mkdir -p "$CLUSTER_DIR"
    dir="$(cd "$CLUSTER_DIR" && pwd)"  # absolute, whether CLUSTER_DIR was or not
    create_database "$AEGRA_DATABASE_URL"
    # Migrations once, before any instance starts (each instance skips them).
    if [[ "$DEEP_RESEARCH_DATABASE_URL" != memory ]]; then  # memory: no domain store
        create_database "$DEEP_RESEARCH_DATABASE_URL"
        "$bin/deep-research" db upgrade >&2
    fi
    DATABASE_URL="$AEGRA_DATABASE_URL" "$bin/aegra" db upgrade >"$CLUSTER_DIR/aegra-migrate.log" 2>&1 \
        || { cat "$CLUSTER_DIR/aegra-migrate.log" >&2; exit 1; }

    local port pidfile
    for port in $CLUSTER_PORTS; do
        pidfile="$CLUSTER_DIR/$port.pid"
        if [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
            say "instance on port $port is already running (PID $(cat "$pidfile"))"
            continue
        fi
        mkdir -p "$CLUSTER_DIR/$port"
        # uvicorn itself, not `aegra serve` (which would run it as a child): the PID file
        # names the process that serves, so stopping or killing it is exact.
        AEGRA_CONFIG="${CLUSTER_CONFIG:-$ROOT/langgraph.json}" \
        DATABASE_URL="$AEGRA_DATABASE_URL" \
        REDIS_BROKER_ENABLED=true \
        REDIS_URL="$REDIS_URL" \
        RUN_MIGRATIONS_ON_STARTUP=false \
        AUTH_TYPE=custom \
        HOST=127.0.0.1 \
        PORT="$port" \
        DEEP_RESEARCH_DATA_DIR="${DEEP_RESEARCH_DATA_DIR:-$dir/$port/data}" \
        nohup "$CLUSTER_PYTHON" -m uvicorn aegra_api.main:app --host 127.0.0.1 --port "$port" \
            >"$CLUSTER_DIR/$port.log" 2>&1 </dev/null &
        echo $! >"$pidfile"
        say "instance on port $port: PID $!, log $CLUSTER_DIR/$port.log"
        # One at a time: each instance sets up the checkpointer's and store's tables when it
        # starts, and two doing so at once on a fresh database collide.
        wait_ready "$port"
    done
    for port in $CLUSTER_PORTS; do  # each instance still ours and alive once all answered
        if ! our_instance "$port" >/dev/null; then
            say "instance on port $port is not running; its log:"
            tail -n 40 "$CLUSTER_DIR/$port.log" >&2 2>/dev/null || true
            exit 1
        fi
    done
    say "cluster up: $(for p in $CLUSTER_PORTS; do printf 'http://127.0.0.1:%s ' "$p"; done)"
}

wait_ready() {
    local port="$1" pid
    pid="$(cat "$CLUSTER_DIR/$port.pid")"
    for _ in $(seq 1 120); do
        if ! kill -0 "$pid" 2>/dev/null; then
            say "instance on port $port exited; its log:"
            tail -n 40 "$CLUSTER_DIR/$port.log" >&2
            exit 1
        fi
        if "$CLUSTER_PYTHON" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" \
            "http://127.0.0.1:$port/health" 2>/dev/null; then
            # Answered, and by ours: the port was free when it started, and it is still alive
            # a moment later (an instance that failed to bind exits at once).
            sleep 1
            if kill -0 "$pid" 2>/dev/null; then
                return 0
            fi
        fi
        sleep 0.5
    done
    say "instance on port $port did not answer /health within 60 s; see $CLUSTER_DIR/$port.log"
    exit 1
}

stop() {
    local pidfile pid
    shopt -s nullglob
    for pidfile in "$CLUSTER_DIR"/*.pid; do
        pid="$(cat "$pidfile")"
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid"
            for _ in $(seq 1 40); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.5
            done
            if kill -0 "$pid" 2>/dev/null; then
                say "PID $pid did not stop within 20 s: killing it"
                kill -KILL "$pid"
            fi
            say "stopped PID $pid ($(basename "$pidfile" .pid))"
        fi
        rm -f "$pidfile"
    done
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    *) say "usage: $0 start|stop"; exit 2 ;;
esac
