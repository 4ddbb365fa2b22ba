#!/usr/bin/env bash
# Debian's docker-registry (the distribution registry) on 127.0.0.1 at a free port, with skopeo to
# push test images into it. Storage and config stay under STATE_DIR.
#   registry.sh start STATE_DIR   install if needed, start, print `export` lines for the tests
#   registry.sh stop STATE_DIR    stop the registry by its PID
set -euo pipefail
source "$(dirname "$0")/common.sh"
service_arguments registry.sh "$@"

case $action in
start)
    command -v docker-registry >/dev/null && command -v skopeo >/dev/null ||
        install_packages docker-registry skopeo
    stop_by_pidfile "$state/registry.pid"
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
    echo $! >"$state/registry.pid"
    if ! wait_until 10 python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/v2/', timeout=1)"; then
        echo "registry did not start; see $state/registry.log" >&2
        exit 1
    fi
    echo "export STACKCHECK_REGISTRY=127.0.0.1:$port"
    ;;
stop) stop_by_pidfile "$state/registry.pid" ;;
esac
