"""``pip list``, ``pip freeze``, ``conda list`` and collect_env's ``[pip3]``/``[conda]`` lines.

The packages that matter are PyTorch (its local version says the CUDA build: ``+cu121``,
``+cpu``; a conda build string says it too: ``py3.7_cuda10.1.243_cudnn7.6.3_0``, ``py3.8_cpu_0``)
and NVIDIA's wheels (``nvidia-nccl-cu12``, ``nvidia-cudnn-cu12``, ``nvidia-cuda-runtime-cu12``),
whose name carries the CUDA major they are built for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck import versions
from stackcheck.ingest.facts import REPORTED_ENV, ComponentFact, Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.probes.python_envs import normalize
from stackcheck.snapshot.model import ComponentName

_TAGGED = re.compile(r"^\s*\[(?:pip3?|conda|uv)\]\s+(\S.*)$")
_FREEZE = re.compile(r"^\s*([A-Za-z0-9][\w.+-]{0,100})\s*==\s*([\w.!+-]{1,60})\s*$")
_COLUMNS = re.compile(r"^\s*([A-Za-z0-9][\w.+-]{0,100})\s+(\d[\w.!+-]{0,60})(?:\s+(\S{1,120}))?")
_WHEEL = re.compile(r"nvidia-(nccl|cudnn|cuda-runtime)-cu(\d{2})$")
_CONDA_CUDA = re.compile(r"cuda(\d{1,2}\.\d{1,2}(?:\.\d{1,4})?)")
_CONDA_CUDNN = re.compile(r"cudnn(\d{1,2}\.\d{1,2}\.\d{1,4})")
_WHEEL_COMPONENTS = {
    "nccl": ComponentName.NCCL,
    "cudnn": ComponentName.CUDNN,
    "cuda-runtime": ComponentName.CUDA_RUNTIME,
}
_CONDA_COMPONENTS = {
    "cudatoolkit": ComponentName.CUDA_RUNTIME,
    "nccl": ComponentName.NCCL,
    "cudnn": ComponentName.CUDNN,
    "aws-ofi-nccl": ComponentName.OFI_NCCL,
    "libfabric": ComponentName.LIBFABRIC,
}
CPU_MUTEX = "pytorch-mutex cpu"


def torch_fact(line: Line, version: str, build: str = "") -> ComponentFact:
    """PyTorch from a version (``2.1.0+cu121``) and, for conda, a build string."""
    fact = ComponentFact(line, ComponentName.TORCH, version=version, python_env=REPORTED_ENV)
    tag = versions.local_tag(version)
    fact.cuda = versions.cuda_from_tag(tag)
    conda_cuda = _CONDA_CUDA.search(build)
    if conda_cuda:
        fact.cuda = conda_cuda.group(1)
    cudnn = _CONDA_CUDNN.search(build)
    if cudnn:
        fact.properties["cudnn"] = cudnn.group(1)
    if tag == "cpu" or re.search(r"(?:^|_)cpu(?:_|$)", build):
        fact.properties["cpu_only"] = "yes"
    elif fact.cuda:
        fact.properties["cpu_only"] = "no"
    return fact


def package_facts(line: Line, name: str, version: str, build: str = "") -> list[Fact]:
    """The facts one installed package states; [] for packages that do not matter here."""
    key = normalize(name)
    if key in ("torch", "pytorch"):
        return [torch_fact(line, version, build)]
    if key == "pytorch-mutex" and "cpu" in (build, version):
        return [ComponentFact(line, ComponentName.TORCH, properties={"marker": CPU_MUTEX})]
    wheel = _WHEEL.match(key)
    component = _WHEEL_COMPONENTS[wheel.group(1)] if wheel else _CONDA_COMPONENTS.get(key)
    if component is None:
        return []
    # A wheel's name carries its CUDA major; a CUDA runtime's own version says its release.
    cuda = wheel.group(2) if wheel else None
    if component is ComponentName.CUDA_RUNTIME:
        cuda = versions.release(version, 2) or cuda
    return [
        ComponentFact(
            line,
            component,
            version=version,
            cuda=cuda,
            properties={"package": f"{key} {version}"},
            python_env=REPORTED_ENV,
        )
    ]


def package_line(line: Line) -> list[Fact]:
    """One package line in any of the listing formats."""
    text = line.text
    tagged = _TAGGED.match(text)
    if tagged:
        text = tagged.group(1)
    freeze = _FREEZE.match(text)
    if freeze:
        return package_facts(line, freeze.group(1), freeze.group(2))
    columns = _COLUMNS.match(text)
    if columns:
        return package_facts(line, columns.group(1), columns.group(2), columns.group(3) or "")
    return []


def settle(facts: list[Fact]) -> list[Fact]:
    """What a whole listing says beyond its lines: a CPU ``pytorch-mutex`` makes its PyTorch a
    CPU build, and several ``nvidia-nccl-cuXX`` wheels write one libnccl.so.2 between them."""
    mutex = [f for f in facts if isinstance(f, ComponentFact) and f.properties.get("marker")]
    settled = [f for f in facts if f not in mutex]
    if mutex:
        for fact in settled:
            if isinstance(fact, ComponentFact) and fact.component is ComponentName.TORCH:
                fact.properties.setdefault("cpu_only", "yes")
    wheels = [
        f
        for f in settled
        if isinstance(f, ComponentFact)
        and f.component is ComponentName.NCCL
        and f.properties.get("package", "").startswith("nvidia-nccl-cu")
    ]
    if len({w.properties["package"].split()[0] for w in wheels}) > 1:
        assert isinstance(wheels[0], ComponentFact)
        combined = ComponentFact(
            wheels[0].line,
            ComponentName.NCCL,
            properties={"wheels": ", ".join(w.properties["package"] for w in wheels)},
            python_env=REPORTED_ENV,
        )
        settled = [f for f in settled if f not in wheels] + [combined]
    return settled


class PythonPackages(Format):
    name = "python_packages"
    title = "pip / conda package list"
    # A listing filtered by grep keeps no header: its command line opens it (`pip list | grep
    # nccl`, `conda list | grep torch`, `pip freeze | findstr torch`), after a shell prompt the
    # cleaning left in place (an indented or quoted paste's second prompt).
    anchor = re.compile(
        r"^\s*(?:Package\s+Version\s*$|# packages in environment at|"
        r"#\s+Name\s+Version\s+Build|\[(?:pip3?|conda|uv)\]\s+\S|"
        r"(?:[\w.@:/~-]{1,120}[#$]\s{1,3})?(?:python3?\s-m\s)?(?:pip3?|uv\spip|conda|mamba)\s"
        r"(?:list|freeze)\s?\|\s?"
        r"(?:grep|egrep|findstr|rg)\b)"
    )
    member = re.compile(
        r"^\s*(?:\[(?:pip3?|conda|uv)\]\s+\S|-{3,}\s+-{3,}|"
        r"[A-Za-z0-9][\w.+-]{0,100}\s*==\s*[\w.!+-]{1,60}\s*$)"
    )

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return self.joins(line) or (
            _COLUMNS.match(line.text) is not None and not line.text.rstrip().endswith(":")
        )

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        for line in lines:
            facts.extend(package_line(line))
        return settle(facts)
