#!/usr/bin/env bash
# The whole test suite, from a fresh clone at any path: a virtualenv with the project and its dev
# tools, the real artefacts the tests read (NVIDIA wheels, PyTorch's CPU wheel, Debian's
# libfabric, the SARIF Multitool), lint, type checks and pytest. Extra arguments go to pytest.
#
# As root (CI) it also installs and starts the services some tests need (podman's Docker API, two
# registries, a Slurm cluster, node_exporter), and those tests must pass. Without root they are skipped, each with
# one line saying why. Service state lives in a short private temporary directory: podman refuses
# a runroot path longer than 50 characters, so it cannot live inside a deep clone.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${STACKCHECK_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e '.[dev]'

export STACKCHECK_ARTIFACTS=${STACKCHECK_ARTIFACTS:-$PWD/.cache/artifacts}
scripts/prepare-artifacts.sh "$STACKCHECK_ARTIFACTS"
export STACKCHECK_REQUIRE_ARTIFACTS=1

services=""
stop_services() {
    if [ -n "$services" ]; then
        scripts/services/podman.sh stop "$services/podman" || true
        scripts/services/registry.sh stop "$services/registry" || true
        rm -rf "$services"
    fi
}
# start_service NAME : start scripts/services/NAME.sh under the state directory and take its
# `export` lines; a failed start ends the run here, with the service's own reason on stderr.
start_service() {
    local exports=$services/$1.env
    if ! scripts/services/"$1".sh start "$services/$1" >"$exports"; then
        echo "test.sh: the $1 service did not start (reason above); stopping" >&2
        exit 1
    fi
    # shellcheck disable=SC1090
    source "$exports"
}
if [ "$(id -u)" = 0 ]; then
    export STACKCHECK_REQUIRE_SERVICES=1
    scripts/services/slurm.sh install # Slurm and munge; tests/test_fleet_slurm.py starts a cluster
    scripts/services/node-exporter.sh install # tests/test_prometheus.py starts its own
    services=$(mktemp -d /tmp/stackcheck.XXXXXX)
    trap stop_services EXIT
    start_service podman
    start_service registry
else
    echo "== not root: the tests that need podman, a registry or Slurm are skipped"
fi

echo "== ruff"
"$VENV/bin/ruff" check stackcheck tests benchmarks
"$VENV/bin/ruff" format --check stackcheck tests benchmarks
echo "== mypy"
"$VENV/bin/mypy"
"$VENV/bin/mypy" benchmarks # scripts, not a package: checked on their own
echo "== pytest"
"$VENV/bin/python" -m pytest "$@"
