"""``python -m torch.utils.collect_env`` in all its layouts, and its derivatives (vLLM's
``collect_env.py``, ``python3 -m sglang.check_env``).

Labels changed over releases (``PyTorch version``, sglang's ``PyTorch``; ``Nvidia driver
version``, sglang's ``CUDA Driver Version``), vLLM pads labels before the colon, old layouts
print ``Yes``/``No`` where new ones print ``True``/``False``, Chinese input methods give
full-width colons, and values
can be ``Could not collect``, ``No CUDA``, ``N/A`` or ``None``. Multi-line values (the GPU list,
cuDNN candidates, the CPU block, package lines) run to the next label.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck import versions
from stackcheck.ingest.facts import (
    REPORTED_ENV,
    ComponentFact,
    Fact,
    GpuFact,
    ObservationFact,
    PlatformFact,
    toolkit_fact,
)
from stackcheck.ingest.formats.base import Format, wrapped_tail
from stackcheck.ingest.formats.env_dump import env_facts
from stackcheck.ingest.formats.gpu_list import MIG_INSTANCE, mig_instance
from stackcheck.ingest.formats.python_packages import package_line, settle, torch_fact
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName

_LABEL = re.compile(r"^([A-Za-z][\w .()/+,-]{0,60}?)\s*[:\uff1a]\s?(.{0,2000})$")
_GPU = re.compile(
    r"^\s*GPU ([\d,]{1,40})\s*[:\uff1a]\s*(\S.{0,200}?)\s*(?:\((?:UUID:[^)]*|\.\.\.)\))?\s*$"
)
_TORCH_NO_COLON = re.compile(r"^PyTorch version\s+(\d\S{0,60})\s*$")
_ENV = re.compile(r"^([A-Z][A-Z0-9_]{2,100})=(.{0,4000})$")
_NVCC = re.compile(r"release (\d+\.\d+), V(\d+\.\d+\.\d+)")
_VERSION = re.compile(r"^\d+\.\d+(?:\.\d+)*$")
_CUDNN_PATH = re.compile(r"(?:libcudnn\.so\.|cudnn64_)(\d+(?:\.\d+){0,2})")
_MISSING = ("could not collect", "n/a", "none", "no cuda", "", "module not found")
_FALSE = ("false", "no")

ANCHOR = re.compile(
    r"^(?:Collecting environment information|PyTorch version\s*[:\uff1a]?\s*\S|"
    r"Is debug build\s*[:\uff1a]|CUDA used to build PyTorch\s*[:\uff1a]|Python:\s+\d\.\d+|"
    r"CUDA available:\s*(?:True|False))"
)


def _value(text: str) -> str | None:
    value = text.strip()
    return None if value.lower() in _MISSING else value


def _key(label: str) -> str:
    return re.sub(r"\s+", " ", label.strip().lower())


class CollectEnv(Format):
    name = "collect_env"
    title = "PyTorch collect_env (or vLLM/SGLang check_env)"
    anchor = ANCHOR
    blank_ok = True

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        text = line.text
        return bool(
            self.opens(line)
            or _LABEL.match(text)
            or _GPU.match(text)
            or _ENV.match(text)
            or re.match(r"^(?:\s|/|\[\w+\]|=+$|-+$|\w+=|[A-Z]:\\)", text)
            or (bool(segment) and wrapped_tail(line, segment[-1]))
        )

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        torch: dict[str, tuple[Line, str]] = {}  # "version"/"cuda"/"rocm" -> (line, value)
        block: str | None = None  # the multi-line value being read
        listed: int | None = None  # the GPU last listed: MIG instances follow it
        for line in lines:
            text = line.text
            gpu = _GPU.match(text)
            if gpu is not None and not text.lower().startswith(("gpu models", "gpu topology")):
                facts.extend(self._gpus(line, gpu.group(1), gpu.group(2)))
                listed = int(re.split(r"\D+", gpu.group(1).strip(","))[-1] or 0)
                continue
            if listed is not None and MIG_INSTANCE.match(text):
                facts.append(mig_instance(line, listed))
                listed = None  # one instance says it
                continue
            if re.match(r"^\s*\[(?:pip3?|conda|uv)\]", text):
                facts.extend(package_line(line))
                continue
            env = _ENV.match(text)
            if env is not None:
                facts.extend(env_facts(line, env.group(1), env.group(2)))
                continue
            if block == "cudnn" and (path := _CUDNN_PATH.search(text)) is not None:
                facts.append(self._cudnn(line, path.group(1)))
                continue
            bare = _TORCH_NO_COLON.match(text)  # "PyTorch version 1.5.0" (a hand-typed layout)
            label = _LABEL.match(text)
            if bare is not None:
                torch["version"] = (line, bare.group(1))
                continue
            if label is None:
                continue
            key, value = _key(label.group(1)), _value(label.group(2))
            block = None
            if key == "gpu models and configuration" and value:
                one = _GPU.match(value)
                if one is not None:
                    facts.extend(self._gpus(line, one.group(1), one.group(2)))
            elif key in ("pytorch version", "pytorch"):
                if value:
                    torch["version"] = (line, value)
            elif key == "cuda used to build pytorch":
                torch["cuda"] = (line, value or "")
            elif key == "rocm used to build pytorch" and value:
                torch["rocm"] = (line, value)
            elif key in ("is cuda available", "cuda available") and (value or "").lower() in _FALSE:
                facts.append(ObservationFact(line, "cuda-unavailable", value))
            elif key in ("nvidia driver version", "cuda driver version") and value:
                if versions.parse(value):
                    facts.append(ComponentFact(line, ComponentName.DRIVER, version=value))
            elif key == "cuda runtime version" and value and _VERSION.match(value):
                facts.append(self._toolkit(line, value))
            elif key == "nvcc" and value and (nvcc := _NVCC.search(value)):
                facts.append(self._toolkit(line, nvcc.group(2)))
            elif key == "os" and value:
                facts.append(PlatformFact(line, value))
            elif key == "cudnn version":
                block = "cudnn"
                path = _CUDNN_PATH.search(value or "")
                if path is not None:
                    facts.append(self._cudnn(line, path.group(1)))
                elif value and _VERSION.match(value):
                    facts.append(self._cudnn(line, value))
            elif key.startswith("gpu ") and key.endswith("compute capability") and value:
                ids = key[4 : -len("compute capability")].strip()
                facts.extend(self._capabilities(line, ids, value))
        facts.extend(self._torch(torch))
        return settle(facts)

    @staticmethod
    def _gpus(line: Line, ids: str, name: str) -> list[Fact]:
        indexes = [int(i) for i in ids.split(",") if i.isdigit()]
        return [GpuFact(line, name.strip(), index=i) for i in indexes[:64]]

    @staticmethod
    def _capabilities(line: Line, ids: str, value: str) -> list[Fact]:
        cc = value.strip()
        if not re.fullmatch(r"\d{1,2}\.\d", cc):
            return []
        # sglang prints the names and the capabilities on two lines; the name is merged later.
        return [
            GpuFact(line, "", index=int(i), compute_capability=cc)
            for i in ids.split(",")[:64]
            if i.strip().isdigit()
        ]

    @staticmethod
    def _toolkit(line: Line, version: str) -> ComponentFact:
        # collect_env's "CUDA runtime version" is the nvcc on PATH: the default toolkit.
        return toolkit_fact(line, version, **{"from": "nvcc on PATH"})

    @staticmethod
    def _cudnn(line: Line, version: str) -> ComponentFact:
        # An integer such as 8902 is torch.backends.cudnn.version(); dotted is a library name.
        if version.isdigit() and len(version) >= 4:
            number = int(version)
            version = f"{number // 1000}.{(number % 1000) // 100}.{number % 100}"
        return ComponentFact(line, ComponentName.CUDNN, version=version)

    @staticmethod
    def _torch(torch: dict[str, tuple[Line, str]]) -> list[Fact]:
        if "version" not in torch:
            return []
        line, version = torch["version"]
        fact = torch_fact(line, version)
        if "rocm" in torch:
            fact.properties["rocm"] = torch["rocm"][1]
            fact.properties["cpu_only"] = "no"
        elif "cuda" in torch:
            cuda = torch["cuda"][1]
            if cuda and versions.parse(cuda):
                fact.cuda = cuda
                fact.properties["cpu_only"] = "no"
            elif fact.cuda is None:
                fact.properties["cpu_only"] = "yes"  # torch.version.cuda is None: a CPU build
        fact.python_env = REPORTED_ENV
        return [fact]
