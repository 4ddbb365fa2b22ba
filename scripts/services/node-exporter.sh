#!/usr/bin/env bash
# Debian's prometheus-node-exporter on 127.0.0.1 at a free port, with only the textfile collector,
# reading STATE_DIR/textfile: the tests write stackcheck's .prom files there and scrape /metrics.
#   node-exporter.sh install            install the package (needs root; apt waits for its lock)
#   node-exporter.sh start STATE_DIR    start it; prints `export` lines for the tests
#   node-exporter.sh stop STATE_DIR     stop it by its PID
set -euo pipefail
source "$(dirname "$0")/common.sh"

have_exporter() { command -v prometheus-node-exporter >/dev/null; }

if [ "${1:-}" = install ]; then
    have_exporter || install_packages --no-install-recommends prometheus-node-exporter
    exit 0
fi
service_arguments node-exporter.sh "$@"

case $action in
start)
    have_exporter || install_packages --no-install-recommends prometheus-node-exporter
    stop_by_pidfile "$state/node-exporter.pid"
    mkdir -p "$state/textfile"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # Only the textfile collector: the others read this machine, which the tests do not need.
    prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
        --collector.disable-defaults --collector.textfile \
        --collector.textfile.directory="$state/textfile" >"$state/node-exporter.log" 2>&1 &
    echo $! >"$state/node-exporter.pid"
    if ! wait_until 10 python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/metrics', timeout=1)"; then
        echo "node_exporter did not start; see $state/node-exporter.log" >&2
        exit 1
    fi
    echo "export STACKCHECK_NODE_EXPORTER=http://127.0.0.1:$port/metrics"
    echo "export STACKCHECK_TEXTFILE_DIR=$state/textfile"
    ;;
stop) stop_by_pidfile "$state/node-exporter.pid" ;;
esac
