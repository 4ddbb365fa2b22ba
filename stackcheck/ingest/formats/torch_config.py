"""``print(torch.__config__.show())``: how PyTorch was built. ``CUDA Runtime 11.1`` is the CUDA
of the build, ``CuDNN 8.0.5`` the cuDNN it loaded (``Built with CuDNN`` the one it was built
with), and the ``NVCC architecture flags`` list the GPU architectures it has kernels for.
The ``Build settings:`` item (1.1+: caffe2's build options, ``KEY=value, ...``) names the release
(``TORCH_VERSION=2.1.0``), the build's CUDA (``CUDA_VERSION=11.1``) and whether CUDA was built
in at all (``USE_CUDA=OFF``: a CPU build, unless another GPU backend is on: ROCm and XPU builds
say ``USE_CUDA=OFF`` too)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import REPORTED_ENV, ComponentFact, Fact
from stackcheck.ingest.formats.base import Format, wrapped_tail
from stackcheck.ingest.lines import Line, joined_line
from stackcheck.snapshot.model import ComponentName

_CUDA = re.compile(r"^\s*-\s+CUDA Runtime (\d{1,2}\.\d{1,2})\s*$")
_CUDNN = re.compile(r"^\s*-\s+Cu[Dd][Nn][Nn] (\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\s*$")
_ARCHS = re.compile(r"^\s*-\s+NVCC architecture flags:\s*(.{0,2000})$")
_CODE = re.compile(r"code=(sm_\d{2,3}[af]?)")
_BUILD_SETTINGS = re.compile(r"^\s{0,40}-\s{1,8}Build settings:\s{0,8}(.{0,20000})$")
# KEY=value after the start or a comma (a flag's "-Werror=format" inside CXX_FLAGS is no key)
_SETTING = re.compile(r"(?:^|,)\s{0,4}([A-Z][A-Z0-9_]{1,40})=([^,]{0,400})")
_OFF = frozenset({"OFF", "0", "FALSE", "NO"})
_OTHER_GPU = ("USE_ROCM", "USE_XPU")  # a GPU build without CUDA, not a CPU build


def _build_settings(line: Line, settings: str) -> list[Fact]:
    found = {key: value.strip() for key, value in _SETTING.findall(settings)}
    facts: list[Fact] = []
    if version := found.get("TORCH_VERSION"):
        facts.append(
            ComponentFact(line, ComponentName.TORCH, version=version, python_env=REPORTED_ENV)
        )
    if cuda := found.get("CUDA_VERSION"):
        facts.append(ComponentFact(line, ComponentName.TORCH, cuda=cuda))
    other_gpu = any(found.get(key, "OFF").upper() not in _OFF for key in _OTHER_GPU)
    if found.get("USE_CUDA", "").upper() in _OFF and "USE_CUDA" in found and not other_gpu:
        torch = ComponentFact(line, ComponentName.TORCH, python_env=REPORTED_ENV)
        torch.properties["cpu_only"] = "yes"
        facts.append(torch)
    return facts


class TorchConfig(Format):
    name = "torch_config"
    title = "torch.__config__.show()"
    anchor = re.compile(r"^\s*PyTorch built with:\s*$")
    item = re.compile(r"^\s{1,8}-\s")

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        # An item goes on a segment its heading opened; alone, an indented "- " is any list's
        # (an issue template's "  - PyTorch Version: 1.7.1").
        return self.is_item(line) or (bool(segment) and wrapped_tail(line, segment[-1]))

    def is_item(self, line: Line) -> bool:
        return self.item.search(line.text) is not None

    def logical(self, lines: Sequence[Line]) -> list[Line]:
        """Each item as printed: a line that is not an item is the wrapped tail of the one
        before (the architecture flags run to hundreds of characters)."""
        logical: list[Line] = []
        for line in lines:
            if logical and not self.is_item(line) and not self.opens(line):
                logical[-1] = joined_line(logical[-1], line)
            else:
                logical.append(line)
        return logical

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        for line in lines:
            text = line.text
            if (found := _CUDA.match(text)) is not None:
                facts.append(ComponentFact(line, ComponentName.TORCH, cuda=found.group(1)))
            elif (found := _CUDNN.match(text)) is not None:
                facts.append(
                    ComponentFact(
                        line,
                        ComponentName.CUDNN,
                        version=found.group(1),
                        properties={"loaded": "yes"},
                    )
                )
            elif (found := _ARCHS.match(text)) is not None:
                archs = list(dict.fromkeys(_CODE.findall(found.group(1))))
                if archs:
                    facts.append(ComponentFact(line, ComponentName.TORCH, archs=archs))
            elif (found := _BUILD_SETTINGS.match(text)) is not None:
                facts.extend(_build_settings(line, found.group(1)))
        return facts
