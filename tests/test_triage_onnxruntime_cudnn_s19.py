"""Triage reads an ONNX Runtime GPU package's release as the cuDNN major it is built for (s19):
1.5-1.17 are all built for cuDNN 8 (onnxruntime.ai's CUDA execution provider requirements), in
every shape the release is named (pip, a pip list row, a wheel, the release archives, NuGet)."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix

CUDNN_9 = "nvidia-cudnn-cu12        9.1.0.70\n"
CUDNN_8 = "nvidia-cudnn-cu12        8.9.2.26\n"


def required(text: str) -> list[str]:
    snapshot = read_report(text, "pasted").snapshot
    return [o.value or "" for o in snapshot.observations("cudnn-built-for")]


def test_each_shape_of_a_cudnn8_release_is_read() -> None:
    for named, release in (
        ("pip install onnxruntime-gpu==1.16.3\n", "1.16.3"),
        ("onnxruntime-gpu           1.17.1\n", "1.17.1"),
        ("onnxruntime_gpu-1.15.1-cp310-cp310-manylinux_2_28_x86_64.whl\n", "1.15.1"),
        ("tar xzf onnxruntime-linux-x64-gpu-1.16.3.tgz\n", "1.16.3"),
        ("onnxruntime-win-x64-gpu-cuda12-1.17.1.zip\n", "1.17.1"),
        ("apply yolov8n.onnx with cuda12.4 onnxruntime-win-x64-cuda12-1.17.1\n", "1.17.1"),
        ("Microsoft.ML.OnnxRuntime.Gpu 1.17.1\n", "1.17.1"),
        ('<PackageReference Include="Microsoft.ML.OnnxRuntime.Gpu" Version="1.16.0"/>\n', "1.16.0"),
        ("onnxruntime-gpu==1.5.1\n", "1.5.1"),
    ):
        assert required(named) == [f"8 (ONNX Runtime {release}'s package)"], named


def test_cpu_packages_and_other_releases_are_not_read() -> None:
    for named in (
        "pip install onnxruntime==1.17.1\n",  # the CPU package
        "onnxruntime-win-x64-1.17.1.zip\n",  # the CPU archive
        "onnxruntime-gpu==1.18.0\n",  # cuDNN 8 officially, 9 in source builds
        "onnxruntime-gpu==1.19.2\n",  # cuDNN 9 on PyPI, 8 in Jetson's builds
        "onnxruntime-gpu==1.4.0\n",  # cuDNN 7
    ):
        assert required(named) == [], named


def test_a_cudnn8_release_beside_only_cudnn9_is_a_warning(matrix: Matrix) -> None:
    listing = "Package                  Version\n" + "onnxruntime-gpu          1.17.1\n"
    for installed, expected in ((CUDNN_9, Severity.WARNING), (CUDNN_8, None)):
        report = check(read_report(listing + installed, "pasted").snapshot, matrix)
        found = {f.id: f.severity for f in report.findings}
        assert found.get("SC301") is expected, installed
