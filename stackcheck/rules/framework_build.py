"""Family ``cpu-only-build``: a framework other than PyTorch (TensorFlow, JAX, PaddlePaddle, ONNX
Runtime) built without CUDA, where the report wants the GPU."""

from __future__ import annotations

import re
from collections.abc import Iterable

from stackcheck import versions
from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.snapshot.model import Evidence

# The last TensorFlow release with GPU support on native Windows: "TensorFlow 2.10 was the last
# TensorFlow release that supported GPU on native-Windows. Starting with TensorFlow 2.11, you
# will need to install TensorFlow in WSL2, or install tensorflow-cpu" (the v2.11.1 release
# notes, github.com/tensorflow/tensorflow/releases/tag/v2.11.1, read 2026-12-03).
_LAST_WINDOWS_GPU = "2.10"
_WINDOWS = re.compile(r"\bWindows\b", re.IGNORECASE)


class FrameworkCpuOnly(Rule):
    id = "SC1326"
    name = "framework-cpu-only"
    family = "cpu-only-build"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "Framework build without CUDA where a GPU is wanted"
    doc = RuleDoc(
        what="Reads a framework's own word that its build has no CUDA (TensorFlow's "
        "`tf.test.is_built_with_cuda()` False; JAX's `a CUDA-enabled jaxlib is not installed`; "
        "PaddlePaddle's `installed CPU version PaddlePaddle`; ONNX Runtime's "
        "`'CUDAExecutionProvider' is not in available provider names`) and a TensorFlow of 2.11 "
        "or later on native "
        "Windows (TensorFlow's issue form, or a sentence that states both), whose wheels carry "
        "no CUDA. A warning where the report shows an NVIDIA GPU, a driver or a CUDA install "
        "(JAX's warning shows one itself: JAX prints it only where it found an NVIDIA device "
        "node); advice (`info`) where it shows none.",
        why="The framework then lists no GPU device (TensorFlow's "
        "`tf.config.list_physical_devices('GPU')` is `[]`, JAX's backend is `cpu`) and runs on "
        "the CPU, whatever CUDA and cuDNN are installed: no driver or library change helps.",
        example="TensorFlow 2.12.0 on Windows 11 with an RTX 2060 and CUDA 12.1 installed.",
        fix="On Windows, run TensorFlow in WSL2 (`pip install tensorflow[and-cuda]`), or stay on "
        "TensorFlow 2.10 (CUDA 11.2, cuDNN 8.1) natively; the tensorflow-directml-plugin gives "
        "the CPU build a DirectX GPU path. Elsewhere, install the framework's CUDA build "
        '(`pip install tensorflow[and-cuda]`, `pip install -U "jax[cuda12]"`, '
        "`paddlepaddle-gpu`, `onnxruntime-gpu` in place of `onnxruntime`).",
        references=(
            "https://github.com/tensorflow/tensorflow/releases/tag/v2.11.1",
            "https://www.tensorflow.org/install/pip#windows-native",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        wanted = _gpu_wanted(ctx)
        said = ctx.snapshot.observations("framework-cpu-build")
        if said:
            yield self.finding(
                f"A framework says its build has no CUDA ({(said[0].value or '')[:100]}): it "
                "cannot use an NVIDIA GPU.",
                [said[0].evidence, *wanted[:1]],
                severity=Severity.WARNING if wanted else Severity.INFO,
            )
            return
        stated = ctx.snapshot.observations("windows-native")
        # collect_env's `OS: Microsoft Windows 10 Pro` is native Windows too (WSL shows Linux).
        os_name = ctx.snapshot.platform.os or ""
        windows = stated[0].value if stated else os_name if _WINDOWS.search(os_name) else None
        newer = [
            o
            for o in ctx.snapshot.observations("tensorflow-stated")
            if versions.key(o.value) > versions.key(_LAST_WINDOWS_GPU)
        ]
        if windows and newer:
            yield self.finding(
                f"TensorFlow {newer[0].value} on native Windows ({windows[:40]}) is built without "
                f"CUDA: GPU support there ended with {_LAST_WINDOWS_GPU}.",
                [newer[0].evidence, *(o.evidence for o in stated[:1]), *wanted[:1]],
                severity=Severity.WARNING if wanted else Severity.INFO,
            )


def _gpu_wanted(ctx: CheckContext) -> list[Evidence]:
    """Evidence that the machine has an NVIDIA GPU or a CUDA install meant for one."""
    found = list(ctx.nvidia_host_evidence)
    found.extend(
        o.evidence
        for o in ctx.snapshot.observations("version-stated", "gpu-implied", "cuda-unavailable")
        if o.kind != "version-stated" or (o.value or "").startswith("CUDA")
    )
    return found
