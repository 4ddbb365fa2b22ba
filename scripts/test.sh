#!/usr/bin/env bash
# The whole test suite, from a fresh clone: a virtualenv with the project and its dev tools, the
# real artefacts the tests read (NVIDIA wheels, PyTorch's CPU wheel, Debian's libfabric), lint,
# type checks and pytest. Extra arguments go to pytest.
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
scripts/services/slurm.sh install  # Slurm and munge; tests/test_fleet_slurm.py starts a cluster
scripts/services/node-exporter.sh install  # tests/test_prometheus.py starts its own node_exporter
export STACKCHECK_REQUIRE_ARTIFACTS=1
# The image tests' engine (podman's Docker API) and registry, stopped by PID on exit.
trap 'scripts/services/podman.sh stop .cache/services/podman; scripts/services/registry.sh stop .cache/services/registry' EXIT
eval "$(scripts/services/podman.sh start .cache/services/podman)" && eval "$(scripts/services/registry.sh start .cache/services/registry)"

echo "== ruff"
"$VENV/bin/ruff" check stackcheck tests benchmarks
"$VENV/bin/ruff" format --check stackcheck tests benchmarks
echo "== mypy"
"$VENV/bin/mypy"
"$VENV/bin/mypy" benchmarks  # scripts, not a package: checked on their own
echo "== pytest"
"$VENV/bin/python" -m pytest "$@"
