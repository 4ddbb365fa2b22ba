#!/usr/bin/env bash
# podman from Debian serving the Docker API on a unix socket, with a private image store, for the
# image tests. Nothing outside STATE_DIR is written (the system image store is left alone).
#   podman.sh start STATE_DIR   install if needed, start, print `export` lines for the tests
#   podman.sh stop STATE_DIR    stop the service by its PID
set -euo pipefail
action=${1:?usage: podman.sh start|stop STATE_DIR}
state=${2:?usage: podman.sh start|stop STATE_DIR}
mkdir -p "$state"
state=$(cd "$state" && pwd)
pidfile=$state/podman.pid

case $action in
start)
    if ! command -v podman >/dev/null; then
        apt-get update -qq >&2
        apt-get -o DPkg::Lock::Timeout=300 install -y -qq podman >&2
    fi
    "$0" stop "$state"
    rm -f "$state/podman.sock"
    # cgroupfs and file events: there is no systemd on CI machines.
    printf '[engine]\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n' >"$state/containers.conf"
    CONTAINERS_CONF=$state/containers.conf \
        podman --root "$state/storage" --runroot "$state/runroot" \
        system service --time=0 "unix://$state/podman.sock" >"$state/podman.log" 2>&1 &
    echo $! >"$pidfile"
    for _ in $(seq 100); do
        [ -S "$state/podman.sock" ] && break
        sleep 0.1
    done
    if [ ! -S "$state/podman.sock" ]; then
        echo "podman service did not start; see $state/podman.log" >&2
        exit 1
    fi
    echo "export STACKCHECK_PODMAN_SOCKET=$state/podman.sock"
    echo "export STACKCHECK_PODMAN_STORE='--root $state/storage --runroot $state/runroot'"
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
    echo "usage: podman.sh start|stop STATE_DIR" >&2
    exit 2
    ;;
esac
