#!/usr/bin/env bash
# Debian's docker-registry (the distribution registry) on 127.0.0.1 at a free port, with skopeo to
# push test images into it. Storage and config stay under STATE_DIR.
#   registry.sh start STATE_DIR   install if needed, start, print `export` lines for the tests
#   registry.sh stop STATE_DIR    stop the registry by its PID
set -euo pipefail
action=${1:?usage: registry.sh start|stop STATE_DIR}
state=${2:?usage: registry.sh start|stop STATE_DIR}
mkdir -p "$state"
state=$(cd "$state" && pwd)
pidfile=$state/registry.pid

case $action in
start)
    if ! command -v docker-registry >/dev/null || ! command -v skopeo >/dev/null; then
        apt-get update -qq >&2
        apt-get -o DPkg::Lock::Timeout=300 install -y -qq docker-registry skopeo >&2
    fi
    "$0" stop "$state"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat >"$state/config.yml" <<CONFIG
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $state/data
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$port
  secret: stackcheck-tests-only
CONFIG
    docker-registry serve "$state/config.yml" >"$state/registry.log" 2>&1 &
    echo $! >"$pidfile"
    for _ in $(seq 100); do
        python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/v2/', timeout=1)" \
            2>/dev/null && break
        sleep 0.1
    done
    echo "export STACKCHECK_REGISTRY=127.0.0.1:$port"
    ;;
stop)
    if [ -f "$pidfile" ]; then
        pid=$(cat "$pidfile")
        if kill "$pid" 2>/dev/null; then
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        fi
        rm -f "$pidfile"
    fi
    ;;
*)
    echo "usage: registry.sh start|stop STATE_DIR" >&2
    exit 2
    ;;
esac
