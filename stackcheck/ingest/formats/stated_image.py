"""An NGC image (or NVIDIA's CUDA image) a sentence names as the one in use ("Docker image:
nvcr.io/nvidia/pytorch:23.11-py3", "we run nvcr.io/nvidia/pytorch:24.05-py3 on 2 nodes"): the
stack the matrix lists for it (CUDA, cuDNN, NCCL), as a Dockerfile's FROM of the same image gives.
Not an image a sentence suggests or says works ("try nvcr.io/...:24.05-py3 instead", "works fine
with ..."): that is the comparison."""

from __future__ import annotations

import re

from stackcheck.dockerfile.base_image import resolve_base_image
from stackcheck.ingest.facts import REPORTED_ENV, ComponentFact, Fact
from stackcheck.ingest.formats.dockerfile import bundled_index
from stackcheck.ingest.lines import Line, sentences
from stackcheck.snapshot.model import ComponentName, Evidence

# A full NGC reference with its tag, or NVIDIA's CUDA image with its tag ("Base:
# `nvidia/cuda:7.5-cudnn5-devel-ubuntu14.04`", NVIDIA/nvidia-docker#191), whose tag names its
# CUDA; a path or URL around it (".../nvcr.io/...") is not one.
_NGC = re.compile(
    r"(?<![A-Za-z0-9_./-])((?:nvcr\.io/nvidia/[a-z0-9][a-z0-9._/-]{0,60}|"
    r"(?:docker\.io/)?nvidia/cuda):[\w][\w.-]{0,40})"
)
# Words that make a sentence's image the proposal or the one that works, not the stack at fault.
_NOT_IN_USE = re.compile(
    r"\b(?:try|tried|instead|should|recommend\w{0,2}|suggest\w{0,2}|upgrad\w{0,3}|updat\w{0,3}|"
    r"switch\w{0,3}|newer|latest|works?|worked|working|fine|fix\w{0,3}|resolv\w{0,3}|if|"
    r"whether|please)\b",
    re.IGNORECASE,
)


def stated_image(line: Line) -> list[Fact]:
    """The components of the NGC image a sentence of the line names as the one in use."""
    if "nvcr.io/nvidia/" not in line.text and "nvidia/cuda:" not in line.text:
        return []
    for sentence in sentences(line.text):
        found = _NGC.search(sentence)
        if found is None or _NOT_IN_USE.search(sentence):
            continue
        reference = found.group(1).rstrip(".,;:)`'\"")
        evidence = Evidence(kind="text", source="report", line=line.number)
        stack = resolve_base_image(bundled_index(), reference, evidence)
        said = {"stated": "prose", "image": reference}
        return [
            ComponentFact(
                line,
                component,
                version=installation.version,
                cuda=installation.cuda,
                archs=list(installation.archs),
                properties=said | dict(installation.properties),
                python_env=REPORTED_ENV if component is ComponentName.TORCH else None,
            )
            for component, installation in stack.installations
        ]
    return []
