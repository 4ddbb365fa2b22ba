#!/usr/bin/env bash
# Real parts for the tests, made once and kept under the given directory:
#   realroot/  a filesystem tree holding a real Python venv at /opt/pytorch with PyTorch's CPU
#              wheel, nvidia-nccl-cu12 and nvidia-cuda-runtime-cu12 from the package index;
#   debs/      Debian's libfabric1 package (the real libfabric.so).
# Files are only downloaded and unpacked: nothing from them is run.
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
    mkdir -p debs
    (cd debs && { apt-get download libfabric1 2>/dev/null || { apt-get update -qq && apt-get download libfabric1; }; })
fi
