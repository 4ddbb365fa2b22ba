#!/usr/bin/env bash
# A private Slurm cluster on loopback for the fleet tests: Debian's slurm-wlm and munge, one
# slurmctld and several slurmd instances on this machine (each `slurmd -N nodeK`, its own port),
# with proctrack/linuxproc and task/none. Everything lives in one temporary directory: the munge
# key and socket, slurm.conf, state, logs and PID files. Processes are stopped by their PIDs.
#
#   slurm.sh install              install the packages (needs root; apt waits for its lock)
#   slurm.sh start [NODES]        start a cluster of NODES nodes (default 4) named node1..nodeN;
#                                 prints STATE_DIR=... and SLURM_CONF=... on stdout
#   slurm.sh stop STATE_DIR       stop that cluster's daemons by PID and remove STATE_DIR
set -euo pipefail

APT=(apt-get -o DPkg::Lock::Timeout=300 -y -q)
PACKAGES=(slurm-wlm munge)

have_slurm() {
    command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v srun >/dev/null \
        && command -v munged >/dev/null && command -v mungekey >/dev/null
}

install() {
    if have_slurm; then
        return 0
    fi
    if [ "$(id -u)" != 0 ]; then
        echo "slurm.sh: installing ${PACKAGES[*]} needs root" >&2
        return 1
    fi
    echo "== installing ${PACKAGES[*]} (Debian)" >&2
    export DEBIAN_FRONTEND=noninteractive
    "${APT[@]}" install --no-install-recommends "${PACKAGES[@]}" >&2 \
        || { "${APT[@]}" update >&2 && "${APT[@]}" install --no-install-recommends "${PACKAGES[@]}" >&2; }
}

free_ports() {  # the first of N consecutive free TCP ports on loopback
    python3 - "$1" <<'EOF'
import random, socket, sys
count = int(sys.argv[1])
for _ in range(200):
    first = random.randrange(20000, 60000 - count)
    sockets = []
    try:
        for port in range(first, first + count):
            sockets.append(socket.socket())
            sockets[-1].bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        for s in sockets:
            s.close()
    print(first)
    break
else:
    sys.exit("slurm.sh: no free range of ports on loopback")
EOF
}

wait_for() {  # wait_for SECONDS COMMAND...: until COMMAND succeeds
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            return 1
        fi
        sleep 0.1
    done
}

start() {
    local nodes=${1:-4}
    have_slurm || { echo "slurm.sh: Slurm is not installed (run: slurm.sh install)" >&2; return 1; }
    local dir
    dir=$(mktemp -d /tmp/stackcheck-slurm.XXXXXX)
    chmod 755 "$dir"  # munged wants a socket directory everyone may enter
    mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
    chmod 755 "$dir/munge"
    mungekey --create --keyfile="$dir/munge/munge.key" >&2
    munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
        --seed-file="$dir/munge/munged.seed"

    # slurmctld's port, then one per slurmd: NodeName=node[1-N] takes them as a range.
    local ctld_port first last
    ctld_port=$(free_ports $((nodes + 1)))
    first=$((ctld_port + 1))
    last=$((ctld_port + nodes))
    {
        echo "ClusterName=stackcheck"
        echo "SlurmctldHost=localhost(127.0.0.1)"
        echo "SlurmUser=root"
        echo "SlurmdUser=root"
        echo "AuthType=auth/munge"
        echo "AuthInfo=socket=$dir/munge/munge.socket"
        echo "CredType=cred/munge"
        echo "MpiDefault=none"
        echo "ProctrackType=proctrack/linuxproc"
        echo "TaskPlugin=task/none"
        echo "JobAcctGatherType=jobacct_gather/none"
        echo "AccountingStorageType=accounting_storage/none"
        echo "SwitchType=switch/none"
        echo "SchedulerType=sched/builtin"
        echo "SelectType=select/cons_tres"
        echo "SelectTypeParameters=CR_Core"
        echo "ReturnToService=2"
        echo "StateSaveLocation=$dir/state"
        echo "SlurmdSpoolDir=$dir/spool/%n"
        echo "SlurmctldPidFile=$dir/slurmctld.pid"
        echo "SlurmdPidFile=$dir/slurmd.%n.pid"
        echo "SlurmctldLogFile=$dir/log/slurmctld.log"
        echo "SlurmdLogFile=$dir/log/slurmd.%n.log"
        echo "SlurmctldPort=$ctld_port"
        echo "NodeName=node[1-$nodes] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$first-$last] CPUs=2 RealMemory=2000 State=UNKNOWN"
        echo "PartitionName=debug Nodes=node[1-$nodes] Default=YES MaxTime=INFINITE State=UP"
    } >"$dir/slurm.conf"
    export SLURM_CONF=$dir/slurm.conf
    slurmctld
    local n
    for n in $(seq 1 "$nodes"); do
        slurmd -N "node$n"
    done
    if ! wait_for 30 sh -c "[ \"\$(sinfo --noheader --states=idle --format=%D)\" = $nodes ]"; then
        echo "slurm.sh: the nodes did not become idle; logs in $dir/log" >&2
        sinfo >&2 || true
        stop "$dir" keep
        return 1
    fi
    echo "STATE_DIR=$dir"
    echo "SLURM_CONF=$dir/slurm.conf"
}

stop() {
    local dir=${1:?usage: slurm.sh stop STATE_DIR} keep=${2:-}
    local pidfile pid pids=()
    for pidfile in "$dir"/slurmd.*.pid "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
            pids+=("$pid")
        fi
    done
    for pid in "${pids[@]}"; do
        # gone, or a zombie waiting for its reaper (the daemons were reparented at start)
        wait_for 10 sh -c "! ps -o stat= -p $pid | grep -qv Z" || kill -9 "$pid" 2>/dev/null || true
    done
    if [ -z "$keep" ]; then
        rm -rf "$dir"
    fi
}

case ${1:-} in
    install) install ;;
    start) start "${2:-4}" ;;
    stop) stop "${2:-}" ;;
    *) echo "usage: slurm.sh install | start [NODES] | stop STATE_DIR" >&2; exit 2 ;;
esac
