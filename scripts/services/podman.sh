#!/usr/bin/env bash
# podman from Debian serving the Docker API on a unix socket, with a private image store, for the
# image tests. Nothing outside STATE_DIR is written (the system image store is left alone).
# podman refuses a runroot longer than 50 characters: give it a short STATE_DIR (under /tmp).
#   podman.sh start STATE_DIR   install if needed, start, print `export` lines for the tests
#   podman.sh stop STATE_DIR    stop the service by its PID, and release the store's overlay mount
set -euo pipefail
source "$(dirname "$0")/common.sh"
service_arguments podman.sh "$@"

case $action in
start)
    command -v podman >/dev/null || install_packages podman
    stop_by_pidfile "$state/podman.pid"
    rm -f "$state/podman.sock"
    # cgroupfs and file events: there is no systemd on CI machines.
    printf '[engine]\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n' >"$state/containers.conf"
    CONTAINERS_CONF=$state/containers.conf \
        podman --root "$state/storage" --runroot "$state/runroot" \
        system service --time=0 "unix://$state/podman.sock" >"$state/podman.log" 2>&1 &
    echo $! >"$state/podman.pid"
    # Until the socket is there, or the service has already given up.
    wait_until 10 sh -c "test -S '$state/podman.sock' || ! kill -0 $(cat "$state/podman.pid")" || true
    test -S "$state/podman.sock" || start_failed "podman's service" "$state/podman.log"
    echo "export STACKCHECK_PODMAN_SOCKET=$state/podman.sock"
    echo "export STACKCHECK_PODMAN_STORE='--root $state/storage --runroot $state/runroot'"
    ;;
stop)
    stop_by_pidfile "$state/podman.pid"
    # podman's overlay driver bind-mounts its own store; release it so the directory can go.
    if mountpoint -q "$state/storage/overlay" 2>/dev/null; then
        umount "$state/storage/overlay" || true
    fi
    ;;
esac
