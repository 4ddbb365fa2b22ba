#!/usr/bin/env bash
# Real parts for the tests, made once and kept under the given directory:
#   realroot/  a filesystem tree holding a real Python venv at /opt/pytorch with PyTorch's CPU
#              wheel, nvidia-nccl-cu12 and nvidia-cuda-runtime-cu12 from the package index;
#   debs/      Debian's libfabric1 package (the real libfabric.so);
#   sarif-multitool/  Microsoft's SARIF Multitool from npm, the reference validator the SARIF
#              tests run on every SARIF they produce (npm from Debian is installed as root if
#              missing).
# Apart from the Multitool, files are only downloaded and unpacked: nothing from them is run.
set -euo pipefail
ARTIFACTS=${1:?usage: prepare-artifacts.sh DIR}
PYTHON=${PYTHON:-python3}
mkdir -p "$ARTIFACTS"
cd "$ARTIFACTS"

TORCH=2.13.0
NCCL=2.19.3
CUDART=12.4.127
STAMP="torch-$TORCH nccl-$NCCL cudart-$CUDART"
if [ "$(cat realroot/.stamp 2>/dev/null)" != "$STAMP" ]; then
    echo "== preparing realroot (PyTorch $TORCH CPU, nvidia-nccl-cu12 $NCCL, nvidia-cuda-runtime-cu12 $CUDART)"
    rm -rf realroot
    mkdir -p realroot/opt realroot/etc
    "$PYTHON" -m venv --without-pip realroot/opt/pytorch
    site=$(echo realroot/opt/pytorch/lib/python3*/site-packages)
    "$PYTHON" -m pip install -q --no-deps --no-compile --target "$site" \
        "torch==$TORCH" "nvidia-nccl-cu12==$NCCL" "nvidia-cuda-runtime-cu12==$CUDART"
    printf 'NAME="Ubuntu"\nVERSION_ID="22.04"\nPRETTY_NAME="Ubuntu 22.04.5 LTS"\n' > realroot/etc/os-release
    echo "$STAMP" > realroot/.stamp
fi

if ! ls debs/libfabric1_*.deb >/dev/null 2>&1; then
    echo "== downloading Debian's libfabric1"
    mkdir -p debs apt/lists/partial apt/cache/archives/partial
    # With the system's package lists when it has them; else with lists of its own under apt/,
    # which needs no root and leaves the system's alone.
    private=(-o "Dir::State::Lists=$PWD/apt/lists" -o "Dir::Cache=$PWD/apt/cache" -o Debug::NoLocking=1)
    (cd debs && { apt-get download libfabric1 2>/dev/null ||
        { apt-get -qq "${private[@]}" update && apt-get "${private[@]}" download libfabric1; }; })
fi

MULTITOOL=5.7.0
if [ ! -x sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool ]; then
    echo "== installing the SARIF Multitool $MULTITOOL (npm)"
    if ! command -v npm >/dev/null; then
        if [ "$(id -u)" != 0 ]; then
            echo "prepare-artifacts.sh: npm is missing and installing it needs root; the SARIF" \
                "validator tests will be skipped" >&2
            exit 0
        fi
        apt-get -o DPkg::Lock::Timeout=300 install -y -qq npm >&2 ||
            { apt-get update -qq && apt-get -o DPkg::Lock::Timeout=300 install -y -qq npm >&2; }
    fi
    rm -rf sarif-multitool
    npm install --silent --no-audit --no-fund --prefix sarif-multitool \
        "@microsoft/sarif-multitool@$MULTITOOL"
    # npm may not run the package's own install step (chmod u+x); do it here.
    chmod u+x sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
fi
