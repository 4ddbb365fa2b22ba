"""The environment reports of Hugging Face tools: ``accelerate env``, ``transformers env``
(``transformers-cli env``), ``huggingface-cli env``, ``diffusers-cli env``. Each is a Markdown
list, ``- Key: value``; the lines that matter name PyTorch's build and whether it sees a GPU
(``- PyTorch version (GPU?): 2.3.0+cu121 (True)``) and the GPU (``- GPU type: NVIDIA A10G``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, GpuFact, ObservationFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.python_packages import torch_fact
from stackcheck.ingest.lines import Line

_ITEM = re.compile(r"^\s*[-*]\s+([^:]{1,80}?)\s*:\s*(.{0,400}?)\s*$")
_TORCH = re.compile(r"^(?:PyTorch|Torch) version(?: \((?:GPU|accelerator)\?\))?$", re.IGNORECASE)
_TORCH_VALUE = re.compile(
    r"^(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?(?:[+\w.-]{0,30}))(?:\s+\((\w{1,20})\))?"
)
_GPU = re.compile(r"^GPU type$", re.IGNORECASE)


class HuggingFaceEnv(Format):
    name = "hf_env"
    title = "Hugging Face env report (accelerate, transformers, huggingface-cli)"
    anchor = re.compile(
        r"^\s*[-*]\s+(?:Accelerate|transformers|diffusers|huggingface_hub|peft|trl)\s+version:",
        re.IGNORECASE,
    )
    member = re.compile(
        r"^\s*[-*]\s+(?:Platform|Python version|Numpy version|(?:PyTorch|Torch) version|"
        r"GPU type|System RAM|Using GPU in script\?|Using distributed or parallel set-up)"
    )

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return _ITEM.match(line.text) is not None

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        for line in lines:
            item = _ITEM.match(line.text)
            if item is None:
                continue
            key, value = item.group(1), item.group(2)
            if _TORCH.match(key) and (found := _TORCH_VALUE.match(value)) is not None:
                facts.append(torch_fact(line, found.group(1)))
                if found.group(2) in ("False", "NA"):
                    facts.append(
                        ObservationFact(line, "cuda-unavailable", "PyTorch sees no GPU (False)")
                    )
            elif _GPU.match(key) and value.startswith(("NVIDIA", "Tesla", "GeForce", "Quadro")):
                facts.append(GpuFact(line, value))
        return facts
