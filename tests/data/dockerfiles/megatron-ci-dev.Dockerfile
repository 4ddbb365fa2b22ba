# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
# syntax=docker/dockerfile:1.3-labs

ARG FROM_IMAGE_NAME=nvcr.io/nvidia/pytorch:26.06-py3
FROM ${FROM_IMAGE_NAME} AS main
ENV PIP_CONSTRAINT=""
ENV DEBIAN_FRONTEND=noninteractive
ARG UV_VERSION=0.7.2
ARG TARGETARCH
ARG YQ_VERSION=4.44.1
# TE 2.18's NCCL EP build requires NCCL 2.30.7+; the 26.06 base uses CUDA 13.3.
ARG NCCL_VERSION=2.30.7-1+cuda13.3
ENV PATH="/usr/local/bin:$PATH"
ARG UV_PROJECT_ENVIRONMENT=/opt/venv
ENV UV_PROJECT_ENVIRONMENT=${UV_PROJECT_ENVIRONMENT}
ENV VIRTUAL_ENV=$UV_PROJECT_ENVIRONMENT
ENV PATH="$UV_PROJECT_ENVIRONMENT/bin:$PATH"
ENV UV_LINK_MODE=copy

RUN bash -ex <<"EOF"
    apt-get update
    apt-get install -y --no-install-recommends gettext python3-venv psmisc uuid-runtime
    apt-get clean
    python -m venv /opt/jet
    ARCH=$(uname -m)
    case "${ARCH}" in \
      "x86_64") YQ_ARCH=amd64 ;; \
      "aarch64") YQ_ARCH=arm64 ;; \
      "armv7l") YQ_ARCH=arm ;; \
      *) echo "Unsupported architecture: ${ARCH}" && exit 1 ;; \
    esac 
    wget https://github.com/mikefarah/yq/releases/download/v${YQ_VERSION}/yq_linux_${YQ_ARCH} -O /usr/local/bin/yq
    chmod a+x /usr/local/bin/yq
    case "${TARGETARCH}" in \
      "amd64") UV_ARCH=x86_64; UV_SHA256=cfaab1b5166a6439ff66f020333d3a12bbdf622deee3b510718283e8f06c9de7 ;; \
      "arm64") UV_ARCH=aarch64; UV_SHA256=2872fdf4785666575d129ba90590c44e6508e22584735f3e7e8a30d773dfc3db ;; \
      *) echo "Unsupported TARGETARCH for uv: ${TARGETARCH}" >&2; exit 1 ;; \
    esac
    UV_ARCHIVE="uv-${UV_ARCH}-unknown-linux-gnu.tar.gz"
    curl -fLSs -o "/tmp/${UV_ARCHIVE}" \
        "https://github.com/astral-sh/uv/releases/download/${UV_VERSION}/${UV_ARCHIVE}"
    echo "${UV_SHA256}  /tmp/${UV_ARCHIVE}" | sha256sum -c -
    tar -xzf "/tmp/${UV_ARCHIVE}" -C /tmp
    install -m 0755 "/tmp/uv-${UV_ARCH}-unknown-linux-gnu/uv" /usr/local/bin/uv
    install -m 0755 "/tmp/uv-${UV_ARCH}-unknown-linux-gnu/uvx" /usr/local/bin/uvx
    rm -rf "/tmp/${UV_ARCHIVE}" "/tmp/uv-${UV_ARCH}-unknown-linux-gnu"
EOF

RUN --mount=type=bind,source=docker/common/install_nccl.sh,target=/opt/install_nccl.sh \
    bash /opt/install_nccl.sh --NCCL_VER=${NCCL_VERSION}

COPY README.md pyproject.toml uv.lock /workspace/
COPY megatron/core/__init__.py /workspace/megatron/core/
COPY megatron/core/package_info.py /workspace/megatron/core/
ARG IMAGE_TYPE=dev
ENV IMAGE_TYPE=${IMAGE_TYPE}
ENV NVTE_BUILD_NUM_PHILOX_ROUNDS=3
RUN --mount=type=cache,target=/root/.cache/uv \
    bash -ex <<"EOF"
    export NVTE_CUDA_ARCHS="80;90;100"
    export TMS_CUDA_MAJOR="$("${CUDA_HOME:-/usr/local/cuda}"/bin/nvcc --version | sed -n 's/.*release \([0-9][0-9]*\).*/\1/p' | head -1)"
    test -n "$TMS_CUDA_MAJOR"
    # flash-mla (no_pypi_wheels group) has no PyPI wheel and is built from source by uv. Point the
    # compilers at the CCCL/libcu++ headers (under cccl/ in this base image, not the default CUDA
    # include path) and scope the build to the target archs. Skipped for the LTS image.
    FLASH_MLA_GROUP=""
    if [ "$IMAGE_TYPE" != "lts" ]; then
        FLASH_MLA_GROUP="--group no_pypi_wheels"
        export FLASH_MLA_DISABLE_SM90=1 NVCC_THREADS=16 \
            CFLAGS="-I/usr/local/cuda/include/cccl" CXXFLAGS="-I/usr/local/cuda/include/cccl"
    fi
    uv venv ${UV_PROJECT_ENVIRONMENT} --system-site-packages
    uv sync --only-group build
    # Limit per-package compiler concurrency on ARM.
    if [ "$(uname -m)" = "aarch64" ]; then
        export MAX_JOBS=8
    fi
    # Prevent overlapping CUTLASS base and CUDA wheel payloads from interleaving.
    UV_CONCURRENT_INSTALLS=1 uv sync -v \
        --extra ${IMAGE_TYPE} --extra mlm --extra ssm --extra te ${FLASH_MLA_GROUP} --link-mode copy --locked \
        --no-install-package torch \
        --no-install-package torchvision \
        --no-install-package triton \
        --no-install-package transformer-engine-cu12 \
        --no-install-package nvidia-cublas-cu12 \
        --no-install-package nvidia-cuda-cupti-cu12 \
        --no-install-package nvidia-cuda-nvrtc-cu12 \
        --no-install-package nvidia-cuda-runtime-cu12 \
        --no-install-package nvidia-cudnn-cu12 \
        --no-install-package nvidia-cufft-cu12 \
        --no-install-package nvidia-cufile-cu12 \
        --no-install-package nvidia-curand-cu12 \
        --no-install-package nvidia-cusolver-cu12 \
        --no-install-package nvidia-cusparse-cu12 \
        --no-install-package nvidia-cusparselt-cu12 \
        --no-install-package nvidia-nccl-cu12
EOF

# Install DeepEP
ARG DEEPEP_COMMIT=de0dd1185142c727b9c118aeb4cc4702e34deeba
ENV DEEPEP_COMMIT=$DEEPEP_COMMIT
ENV HYBRID_EP_MULTINODE=1
ENV RDMA_CORE_HOME=/opt/rdma-core/build
ENV LD_LIBRARY_PATH=/usr/local/cuda/lib64/:$LD_LIBRARY_PATH
COPY docker/patches/deepep.patch /workspace/deepep.patch
RUN bash -ex <<"EOF"
    if [ "$IMAGE_TYPE" = "lts" ]; then
        echo "[DeepEP] skipping install for IMAGE_TYPE=lts"
        exit 0
    fi
    apt-get update
    apt-get install -y --allow-change-held-packages rdma-core libibverbs-dev
    apt-get clean
    ARCH_LIB=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
    test -f /usr/lib/${ARCH_LIB}/libmlx5.so || ln -sf /usr/lib/${ARCH_LIB}/libmlx5.so.1 /usr/lib/${ARCH_LIB}/libmlx5.so
    mkdir -p ${RDMA_CORE_HOME}
    ln -sfn /usr/include ${RDMA_CORE_HOME}/include
    ln -sfn /usr/lib/${ARCH_LIB} ${RDMA_CORE_HOME}/lib

    cd /workspace
    uv pip install nvidia-nvshmem-cu13==3.4.5
    pushd /opt/venv/lib/python3.12/site-packages/nvidia/nvshmem/lib/
        ln -sf libnvshmem_host.so.3 libnvshmem_host.so
    popd

    git clone https://github.com/deepseek-ai/DeepEP.git
    pushd DeepEP
        git fetch origin $DEEPEP_COMMIT
        git checkout FETCH_HEAD
        patch -p1 < /workspace/deepep.patch
        apt-get update
        apt-get install -y --no-install-recommends libnvidia-ml-dev
        TORCH_CUDA_ARCH_LIST="9.0 10.0 12.0" uv pip install --no-build-isolation -v .
        apt-get purge -y libnvidia-ml-dev
        apt-get autoremove -y
        rm -rf /var/lib/apt/lists/*
    popd
    rm -rf DeepEP
EOF

COPY assets/ /opt/data/
ENV UV_PYTHON=$UV_PROJECT_ENVIRONMENT/bin/python

ARG RUNTIME_UID=65532
ARG RUNTIME_GID=65532
RUN if ! getent group "${RUNTIME_GID}" >/dev/null; then \
        groupadd --gid "${RUNTIME_GID}" nemo-runtime; \
    fi && \
    if ! getent passwd "${RUNTIME_UID}" >/dev/null; then \
        useradd --no-log-init --uid "${RUNTIME_UID}" --gid "${RUNTIME_GID}" \
            --create-home --home-dir /home/nemo-runtime --shell /bin/bash nemo-runtime; \
    fi && \
    install -d -o "${RUNTIME_UID}" -g "${RUNTIME_GID}" \
        /home/nemo-runtime \
        /home/gitlab-runner/data/gpt3_data \
        /opt/megatron-lm \
        /tmp/regent-cache \
        /tmp/regent-cache/pip \
        /tmp/regent-cache/uv \
        /tmp/regent-cache/xdg \
        /workspace/data/cache && \
    venv_site_packages="$("${UV_PROJECT_ENVIRONMENT}/bin/python" -c \
        'import site; print(site.getsitepackages()[0])')" && \
    touch "${venv_site_packages}/.nonroot-uninstall-probe" && \
    find "${UV_PROJECT_ENVIRONMENT}" -type d \
        -exec chown "${RUNTIME_UID}:${RUNTIME_GID}" {} +

USER ${RUNTIME_UID}:${RUNTIME_GID}

# The CI harness materializes an immutable test commit here rather than over
# the dependency-build checkout in /workspace. Runtime callers select this UID
# and set HOME/cache variables explicitly; the published image remains root by
# default. Prove that the non-root contract works before restoring that default.
# The cache root is probed for directory creation, not just file writes: a
# caller pointing XDG_CACHE_HOME or HF_HOME below it materializes new
# subdirectories, which a root-owned parent rejects even when every pre-created
# leaf is writable.
RUN export HOME=/home/nemo-runtime \
        PIP_CACHE_DIR=/tmp/regent-cache/pip \
        XDG_CACHE_HOME=/tmp/regent-cache/xdg \
        UV_CACHE_DIR=/tmp/regent-cache/uv && \
    test "$(id -u)" = "${RUNTIME_UID}" && \
    test -w "${HOME}" && \
    test -w "${PIP_CACHE_DIR}" && \
    test -w "${XDG_CACHE_HOME}" && \
    test -w "${UV_CACHE_DIR}" && \
    test -x /usr/local/bin/uv && \
    test -x /opt/venv/bin/python && \
    venv_site_packages="$(python -c 'import site; print(site.getsitepackages()[0])')" && \
    rm "${venv_site_packages}/.nonroot-uninstall-probe" && \
    touch "${venv_site_packages}/.nonroot-write-probe" && \
    rm "${venv_site_packages}/.nonroot-write-probe" && \
    touch /workspace/data/cache/.nonroot-write-probe && \
    rm /workspace/data/cache/.nonroot-write-probe && \
    touch /opt/megatron-lm/.nonroot-write-probe && \
    rm /opt/megatron-lm/.nonroot-write-probe && \
    mkdir /tmp/regent-cache/.nonroot-mkdir-probe && \
    rmdir /tmp/regent-cache/.nonroot-mkdir-probe

USER root

##### For NVIDIANS only #####
FROM main AS jet
ARG JET_API_VERSION
ENV PATH="$PATH:/opt/jet/bin"
RUN --mount=type=secret,id=JET_INDEX_URLS bash -ex <<"EOF"
    JET_INDEX_URLS=$(cat /run/secrets/JET_INDEX_URLS)
    python -m venv /opt/jet 
    /opt/jet/bin/pip install --no-cache-dir $JET_INDEX_URLS \
        "jet-api==$JET_API_VERSION" "setuptools<82.0.0"
EOF

RUN --mount=type=secret,id=JET_INDEX_URLS \
    --mount=type=secret,id=LOGGER_INDEX_URL bash -ex <<"EOF"
    JET_INDEX_URLS=$(cat /run/secrets/JET_INDEX_URLS)
    LOGGER_INDEX_URL=$(cat /run/secrets/LOGGER_INDEX_URL)
    uv pip install --no-cache-dir --upgrade $LOGGER_INDEX_URL "one-logger"
    uv pip install --no-cache-dir --upgrade "setuptools>=80"
    uv pip install --no-cache-dir --upgrade $JET_INDEX_URLS "jet-client~=4.0" 
EOF

USER root
###
