#!/bin/sh
# Slurm's health check with stackcheck: slurmd runs this on every node at HealthCheckInterval
# (and once when it starts). A node whose stack fails the check is drained with a reason
# such as "stackcheck: SC101,SC401 Driver too old for the CUDA in use"; a node stackcheck
# drained is resumed once it passes again; a node drained by anyone else is left alone.
#
# slurm.conf (slurm.conf(5): slurmd kills the program after 60 s, and gives it no arguments):
#   HealthCheckProgram=/usr/local/sbin/stackcheck-healthcheck
#   HealthCheckInterval=300
#   HealthCheckNodeState=ANY,CYCLE
#
# Install this file as /usr/local/sbin/stackcheck-healthcheck (mode 755) on every node, and set
# STACKCHECK to the stackcheck every node can run. For drift from the cluster's intended stack
# to drain a node too, put a reference node's snapshot at EXPECTED:
#   stackcheck probe --json > /etc/stackcheck/expected.json
# The node's Slurm name is $SLURMD_NODENAME, which slurmd sets for the program; with LBNL NHC,
# call this script from a check and pass --node "$HOSTNAME_S" if the names differ.
STACKCHECK=${STACKCHECK:-/opt/stackcheck/bin/stackcheck}
EXPECTED=${EXPECTED:-/etc/stackcheck/expected.json}

set -- node-check --drain --no-network --fail-on error
if [ -r "$EXPECTED" ]; then
    set -- "$@" --expected "$EXPECTED"
fi
# The log is for people; the exit code and the drain are for Slurm.
exec timeout -k 5 45 "$STACKCHECK" "$@" >/var/log/stackcheck-healthcheck.log 2>&1
