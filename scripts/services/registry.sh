#!/usr/bin/env bash
# Debian's docker-registry (the distribution registry) on 127.0.0.1, twice at free ports: one open,
# one asking for a password; with skopeo to push test images. Everything stays under STATE_DIR.
#   registry.sh start STATE_DIR   install if needed, start, print `export` lines for the tests
#   registry.sh stop STATE_DIR    stop the registries by their PIDs
set -euo pipefail
source "$(dirname "$0")/common.sh"
service_arguments registry.sh "$@"

case $action in
start)
    command -v docker-registry >/dev/null && command -v skopeo >/dev/null && command -v htpasswd >/dev/null ||
        install_packages docker-registry skopeo apache2-utils
    for name in open login; do
        stop_by_pidfile "$state/$name.pid"
        port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        # "login" asks for a password (Basic auth over loopback HTTP): the test user below.
        auth=""
        if [ "$name" = login ]; then
            htpasswd -Bbn stackcheck-test stackcheck-test-password >"$state/htpasswd"
            auth=$(printf 'auth:\n  htpasswd:\n    realm: stackcheck-test\n    path: %s/htpasswd' "$state")
        fi
        cat >"$state/$name.yml" <<CONFIG
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $state/$name-data
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$port
  secret: stackcheck-tests-only
$auth
CONFIG
        docker-registry serve "$state/$name.yml" >"$state/$name.log" 2>&1 &
        echo $! >"$state/$name.pid"
        wait_until 10 python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" ||
            start_failed "the $name registry" "$state/$name.log"
        [ "$name" = open ] && echo "export STACKCHECK_REGISTRY=127.0.0.1:$port"
        [ "$name" = login ] && echo "export STACKCHECK_REGISTRY_LOGIN=127.0.0.1:$port"
    done
    echo "export STACKCHECK_REGISTRY_USER=stackcheck-test:stackcheck-test-password"
    ;;
stop) for name in open login; do stop_by_pidfile "$state/$name.pid"; done ;;
esac
