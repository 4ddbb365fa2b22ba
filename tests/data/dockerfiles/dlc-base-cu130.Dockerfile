ARG CUDA_VERSION=13.0.2
# Short CUDA tag — also the docker/base/<dir> name (cu129, cu130, ...)
ARG CUDA_VERSION_SHORT=cu130
# uv release to copy the binary from (pinned via the config build: block)
ARG UV_VERSION=0.11.33

# ============================================================
# uv binary source (pinned)
# ============================================================
FROM ghcr.io/astral-sh/uv:${UV_VERSION} AS uv

# ============================================================
# Python builder (compile from source on cuda-base)
# ============================================================
FROM nvidia/cuda:${CUDA_VERSION}-base-amzn2023 AS python-builder

ARG PYTHON_VERSION="3.13.12"
ARG PYTHON_SHORT_VERSION="3.13"

RUN dnf install -y --setopt=install_weak_deps=False \
  gcc gcc-c++ make tar gzip wget \
  openssl-devel libffi-devel bzip2-devel xz-devel zlib-devel \
  sqlite-devel readline-devel ncurses-devel \
  && dnf clean all && rm -rf /var/cache/dnf

COPY ./scripts/docker/common/install_python.sh install_python.sh
RUN --mount=type=cache,target=/root/.cache/pip bash install_python.sh ${PYTHON_VERSION} && rm install_python.sh

# ============================================================
# Runtime: CUDA runtime libs + Python
# ============================================================
FROM nvidia/cuda:${CUDA_VERSION}-runtime-amzn2023 AS runtime

ARG PYTHON_SHORT_VERSION="3.13"
ARG CUDA_VERSION_SHORT

LABEL maintainer="Amazon AI"
LABEL dlc_major_version="2"
LABEL dlc_minor_version="0"

ENV LANG=C.UTF-8 \
  LC_ALL=C.UTF-8 \
  PYTHONDONTWRITEBYTECODE=1 \
  PYTHONUNBUFFERED=1 \
  PYTHONIOENCODING=UTF-8 \
  CUDA_HOME="/usr/local/cuda" \
  PATH="/usr/local/cuda/bin:${PATH}" \
  LD_LIBRARY_PATH="/usr/local/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH}"

WORKDIR /

COPY --from=python-builder /usr/local/lib/python${PYTHON_SHORT_VERSION} /usr/local/lib/python${PYTHON_SHORT_VERSION}
COPY --from=python-builder /usr/local/include/python${PYTHON_SHORT_VERSION} /usr/local/include/python${PYTHON_SHORT_VERSION}
COPY --from=python-builder /usr/local/bin/python${PYTHON_SHORT_VERSION} /usr/local/bin/python${PYTHON_SHORT_VERSION}
COPY --from=python-builder /usr/local/bin/pip${PYTHON_SHORT_VERSION} /usr/local/bin/pip${PYTHON_SHORT_VERSION}
COPY --from=python-builder /usr/local/lib/libpython${PYTHON_SHORT_VERSION}* /usr/local/lib/
RUN echo "/usr/local/lib" >/etc/ld.so.conf.d/python.conf && ldconfig
RUN ln -sf /usr/local/bin/python${PYTHON_SHORT_VERSION} /usr/local/bin/python3 \
  && ln -sf /usr/local/bin/python${PYTHON_SHORT_VERSION} /usr/local/bin/python \
  && ln -sf /usr/local/bin/pip${PYTHON_SHORT_VERSION} /usr/local/bin/pip3 \
  && ln -sf /usr/local/bin/pip${PYTHON_SHORT_VERSION} /usr/local/bin/pip

RUN dnf install -y --allowerasing --setopt=install_weak_deps=False curl \
  && dnf upgrade -y --security --releasever latest \
  # Explicitly upgrade cuda-compat-13-0 to pick up fix for CVE-2025-33219
  && dnf upgrade -y --releasever latest cuda-compat-13-0 \
  && dnf clean all && rm -rf /var/cache/dnf

COPY --from=uv /uv /usr/local/bin/uv
ENV UV_PROJECT_ENVIRONMENT=/usr/local
COPY ./docker/base/${CUDA_VERSION_SHORT}/pyproject.toml ./docker/base/${CUDA_VERSION_SHORT}/uv.lock /tmp/deps/
RUN --mount=type=cache,target=/root/.cache/uv cd /tmp/deps \
  && uv sync --frozen --no-dev --no-install-project \
  && rm -rf /tmp/deps /tmp/uv-*.lock

COPY ./scripts/docker/common/setup_oss_compliance.sh /tmp/setup_oss_compliance.sh

ARG PYTHON="python3"
RUN bash /tmp/setup_oss_compliance.sh ${PYTHON} \
  && rm /tmp/setup_oss_compliance.sh \
  && rm -rf /root/oss_compliance* \
  && rm -rf /tmp/tmp* \
  && rm -rf /root/.cache

# ============================================================
# Telemetry
# ============================================================
COPY ./scripts/docker/telemetry/deep_learning_container.py /usr/local/bin/deep_learning_container.py
COPY ./scripts/docker/telemetry/bash_telemetry.sh.template /tmp/bash_telemetry.sh.template

ARG FRAMEWORK
ARG FRAMEWORK_VERSION
ARG CONTAINER_TYPE
ENV DLC_CONTAINER_TYPE=${CONTAINER_TYPE}

RUN chmod +x /usr/local/bin/deep_learning_container.py \
  && sed -e "s/{{FRAMEWORK}}/${FRAMEWORK}/g" \
    -e "s/{{FRAMEWORK_VERSION}}/${FRAMEWORK_VERSION}/g" \
    -e "s/{{CONTAINER_TYPE}}/${CONTAINER_TYPE}/g" \
    /tmp/bash_telemetry.sh.template >/usr/local/bin/bash_telemetry.sh \
  && chmod +x /usr/local/bin/bash_telemetry.sh \
  && rm /tmp/bash_telemetry.sh.template \
  && echo 'source /usr/local/bin/bash_telemetry.sh' >>/etc/bashrc \
  && echo 'source /usr/local/bin/bash_telemetry.sh' >>/root/.bashrc

CMD ["/bin/bash"]

# ============================================================
# Devel: CUDA devel libs + Python + build tools
# ============================================================
FROM nvidia/cuda:${CUDA_VERSION}-devel-amzn2023 AS devel

ARG PYTHON_SHORT_VERSION="3.13"
ARG CUDA_VERSION_SHORT

LABEL maintainer="Amazon AI"
LABEL dlc_major_version="2"
LABEL dlc_minor_version="0"

ENV LANG=C.UTF-8 \
  LC_ALL=C.UTF-8 \
  PYTHONDONTWRITEBYTECODE=1 \
  PYTHONUNBUFFERED=1 \
  PYTHONIOENCODING=UTF-8 \
  CUDA_HOME="/usr/local/cuda" \
  PATH="/usr/local/cuda/bin:${PATH}" \
  LD_LIBRARY_PATH="/usr/local/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH}"

WORKDIR /

COPY --from=python-builder /usr/local/lib/python${PYTHON_SHORT_VERSION} /usr/local/lib/python${PYTHON_SHORT_VERSION}
COPY --from=python-builder /usr/local/include/python${PYTHON_SHORT_VERSION} /usr/local/include/python${PYTHON_SHORT_VERSION}
COPY --from=python-builder /usr/local/bin/python${PYTHON_SHORT_VERSION} /usr/local/bin/python${PYTHON_SHORT_VERSION}
COPY --from=python-builder /usr/local/bin/pip${PYTHON_SHORT_VERSION} /usr/local/bin/pip${PYTHON_SHORT_VERSION}
COPY --from=python-builder /usr/local/lib/libpython${PYTHON_SHORT_VERSION}* /usr/local/lib/
RUN echo "/usr/local/lib" >/etc/ld.so.conf.d/python.conf && ldconfig
RUN ln -sf /usr/local/bin/python${PYTHON_SHORT_VERSION} /usr/local/bin/python3 \
  && ln -sf /usr/local/bin/python${PYTHON_SHORT_VERSION} /usr/local/bin/python \
  && ln -sf /usr/local/bin/pip${PYTHON_SHORT_VERSION} /usr/local/bin/pip3 \
  && ln -sf /usr/local/bin/pip${PYTHON_SHORT_VERSION} /usr/local/bin/pip

RUN dnf install -y --allowerasing --setopt=install_weak_deps=False \
  curl automake autoconf cmake gcc gcc-c++ git make tar \
  && dnf upgrade -y --security --releasever latest \
  # Explicitly upgrade cuda-compat-13-0 to pick up fix for CVE-2025-33219
  && dnf upgrade -y --releasever latest cuda-compat-13-0 \
  && dnf clean all && rm -rf /var/cache/dnf

COPY --from=uv /uv /usr/local/bin/uv
ENV UV_PROJECT_ENVIRONMENT=/usr/local
COPY ./docker/base/${CUDA_VERSION_SHORT}/pyproject.toml ./docker/base/${CUDA_VERSION_SHORT}/uv.lock /tmp/deps/
RUN --mount=type=cache,target=/root/.cache/uv cd /tmp/deps \
  && uv sync --frozen --no-dev --no-install-project \
  && rm -rf /tmp/deps /tmp/uv-*.lock

COPY ./scripts/docker/common/setup_oss_compliance.sh /tmp/setup_oss_compliance.sh

ARG PYTHON="python3"
RUN bash /tmp/setup_oss_compliance.sh ${PYTHON} \
  && rm /tmp/setup_oss_compliance.sh \
  && rm -rf /root/oss_compliance* \
  && rm -rf /tmp/tmp* \
  && rm -rf /root/.cache

# ============================================================
# Telemetry
# ============================================================
COPY ./scripts/docker/telemetry/deep_learning_container.py /usr/local/bin/deep_learning_container.py
COPY ./scripts/docker/telemetry/bash_telemetry.sh.template /tmp/bash_telemetry.sh.template

ARG FRAMEWORK
ARG FRAMEWORK_VERSION
ARG CONTAINER_TYPE
ENV DLC_CONTAINER_TYPE=${CONTAINER_TYPE}

RUN chmod +x /usr/local/bin/deep_learning_container.py \
  && sed -e "s/{{FRAMEWORK}}/${FRAMEWORK}/g" \
    -e "s/{{FRAMEWORK_VERSION}}/${FRAMEWORK_VERSION}/g" \
    -e "s/{{CONTAINER_TYPE}}/${CONTAINER_TYPE}/g" \
    /tmp/bash_telemetry.sh.template >/usr/local/bin/bash_telemetry.sh \
  && chmod +x /usr/local/bin/bash_telemetry.sh \
  && rm /tmp/bash_telemetry.sh.template \
  && echo 'source /usr/local/bin/bash_telemetry.sh' >>/etc/bashrc \
  && echo 'source /usr/local/bin/bash_telemetry.sh' >>/root/.bashrc

CMD ["/bin/bash"]