"""PyTorch's wheel build script at a release branch (pytorch/pytorch .ci/manywheel/build_cuda.sh, or
pytorch/builder manywheel/build_cuda.sh before 2.6): TORCH_CUDA_ARCH_LIST per CUDA version, as the
arch list (sm_XY, compute_XY for +PTX) each wheel variant carries."""

from __future__ import annotations

import re
from datetime import date

from stackcheck.matrix.harvest.rows import Harvest, Row

_CASE = re.compile(r"^\s*([\d.|\[\]]+)\)\s*$")
_GLOB = re.compile(r"^(.*)\[(\d+)\]$")  # 11.[67] -> 11.6, 11.7
_ASSIGN = re.compile(r'TORCH_CUDA_ARCH_LIST="([^"]*)"')


def archs(value: str) -> list[str]:
    """``7.0;8.0;12.0+PTX`` -> ``sm_70, sm_80, sm_120, compute_120`` (also space-separated)."""
    out = []
    for item in re.split(r"[;\s]+", value.strip()):
        if not item:
            continue
        number = item.removesuffix("+PTX").replace(".", "")
        out.append(f"sm_{number}")
        if item.endswith("+PTX"):
            out.append(f"compute_{number}")
    return sorted(out, key=lambda a: (int(a.split("_")[1]), a.startswith("compute")))


def _labels(pattern: str) -> list[str]:
    labels: list[str] = []
    for label in pattern.split("|"):
        glob = _GLOB.match(label)
        labels += [glob.group(1) + d for d in glob.group(2)] if glob else [label]
    return labels


def arch_lists(script: str) -> dict[str, list[str]]:
    """CUDA version -> arch list, from the ``case ${CUDA_VERSION} in`` branches; a branch that
    appends to ``${TORCH_CUDA_ARCH_LIST}`` extends the list assigned before the case. Lines under
    an ``if`` on aarch64 are skipped: the matrix holds the x86_64 wheels."""
    base = ""
    found: dict[str, list[str]] = {}
    current: list[str] = []
    aarch64 = False
    for line in script.splitlines():
        stripped = line.strip()
        case = _CASE.match(line)
        if case:
            current = _labels(case.group(1))
        elif stripped.startswith("if ") and "aarch64" in stripped:
            aarch64 = True
        elif stripped in ("else", "fi"):
            aarch64 = False
        elif stripped == ";;":
            current = []
        elif (assign := _ASSIGN.search(line)) and not aarch64:
            value = assign.group(1).replace("${TORCH_CUDA_ARCH_LIST}", base)
            if current:
                found.update({cuda: archs(value) for cuda in current})
            else:
                base = value
    return found


def harvest(
    script: str, release: str, source: str, day: date, cuda: list[str] | None = None
) -> Harvest:
    """``cuda`` keeps only those variants (a script also has cases for builds never released)."""
    variants: list[Row] = [
        {"cuda": version, "archs": listed}
        for version, listed in sorted(arch_lists(script).items())
        if not cuda or version in cuda
    ]
    return Harvest(
        "torch", [{"version": release, "variants": variants, "source": source, "checked": day}]
    )
