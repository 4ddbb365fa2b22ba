"""Environment variables that steer NCCL, libfabric, CUDA and PyTorch, with secrets left out.

Also reads ``/etc/nccl.conf`` (or ``NCCL_CONF_FILE``), which NCCL applies like variables that
are not set in the environment: DLC images ship one with ``NCCL_DEBUG=INFO``.
"""

from __future__ import annotations

import re

from stackcheck.probes.base import Probe
from stackcheck.probes.context import ProbeContext
from stackcheck.snapshot.model import EnvVar, Snapshot
from stackcheck.views.needs import Needs

RELEVANT = re.compile(
    r"^(?:NCCL_|FI_|OFI_NCCL_|RDMAV_|CUDA_|CUDNN_|CUBLAS_|TORCH_|PYTORCH_|NVIDIA_|NV_|OMP_NUM_THREADS$"
    r"|MKL_NUM_THREADS$|LD_LIBRARY_PATH$|LD_PRELOAD$|_CUDA_COMPAT|ACCELERATE_USE_FSDP$|FSDP_)"
)
SECRET = re.compile(r"TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|(?:^AWS_.*KEY)|API_?KEY", re.I)
NCCL_CONF = "/etc/nccl.conf"


def is_recorded(name: str) -> bool:
    return bool(RELEVANT.match(name)) and not SECRET.search(name)


class EnvironmentProbe(Probe):
    name = "environment"
    needs = Needs(contents=(NCCL_CONF,))

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        for name in sorted(ctx.env):
            if is_recorded(name):
                snapshot.env[name] = EnvVar(value=ctx.env[name], evidence=ctx.env_evidence(name))
        conf = ctx.env.get("NCCL_CONF_FILE") or NCCL_CONF
        text = ctx.view.read_text(conf, 65536)
        for raw in (text or "").splitlines():
            line = raw.split("#", 1)[0].strip()
            name, sep, value = line.partition("=")
            name = name.strip()
            if sep and is_recorded(name) and name not in snapshot.env:
                snapshot.env[name] = EnvVar(
                    value=value.strip(), evidence=ctx.file_evidence(conf, line)
                )
