# Shared by the service scripts: their arguments, installing Debian packages, waiting for a
# service, and stopping it by its PID.

# service_arguments SCRIPT ARGS... : sets $action (start|stop) and $state (an absolute folder).
service_arguments() {
    local usage="usage: $1 start|stop STATE_DIR"
    action=${2:?$usage}
    state=${3:?$usage}
    case $action in start | stop) ;; *) echo "$usage" >&2 && exit 2 ;; esac
    mkdir -p "$state"
    state=$(cd "$state" && pwd)
}

# install PACKAGE... : apt-get install what is missing (other installs may hold the lock a while).
install_packages() {
    apt-get update -qq >&2
    apt-get -o DPkg::Lock::Timeout=300 install -y -qq "$@" >&2
}

# stop_by_pidfile FILE : end the process whose PID FILE holds, wait for it, forget it.
stop_by_pidfile() {
    local pidfile=$1 pid
    [ -f "$pidfile" ] || return 0
    pid=$(cat "$pidfile")
    if kill "$pid" 2>/dev/null; then
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
    fi
    rm -f "$pidfile"
}

# start_failed NAME LOG : say on stderr that NAME did not start and why (its log's last lines).
start_failed() {
    echo "$1 did not start; the end of $2:" >&2
    tail -n 5 "$2" | sed 's/^/  /' >&2
    exit 1
}

# wait_until SECONDS COMMAND... : retry COMMAND every 0.1 s until it succeeds or time is up.
wait_until() {
    local tries=$(($1 * 10))
    shift
    for _ in $(seq "$tries"); do
        "$@" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
