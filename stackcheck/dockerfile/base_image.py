"""What a ``FROM`` line brings: known AWS DLC and NGC tags through the matrix, ``nvidia/cuda`` tags
by their documented naming (``<cuda>-[cudnn<N>-]<base|runtime|devel>-<os>``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stackcheck import versions
from stackcheck.matrix.index import MatrixIndex
from stackcheck.matrix.models import ContainerImage
from stackcheck.snapshot.model import ComponentName, Evidence, Installation

_ECR_REGION = re.compile(r"\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com")
_CUDA_TAG = re.compile(
    r"^(?P<cuda>\d+\.\d+(?:\.\d+)?)-(?:cudnn(?P<cudnn>\d*)-)?(?P<flavor>base|runtime|devel)-"
)
_NVIDIA_CUDA = {"nvidia/cuda", "docker.io/nvidia/cuda", "nvcr.io/nvidia/cuda"}


@dataclass
class BaseStack:
    reference: str
    known_as: str | None = None  # "DLC pytorch-training:2.5.1-…", "nvidia/cuda 12.4.1 devel"
    installations: list[tuple[ComponentName, Installation]] = field(default_factory=list)


def _split(reference: str) -> tuple[str, str | None]:
    name, _, digest = reference.partition("@")
    del digest
    head, sep, tag = name.rpartition(":")
    if sep and "/" not in tag:
        return head, tag
    return name, None


def _matrix_image(index: MatrixIndex, repository: str, tag: str) -> ContainerImage | None:
    normalized = _ECR_REGION.sub(".dkr.ecr.<region>.amazonaws.com", repository)
    for image in index.images:
        if image.tag == tag and image.repository in (repository, normalized):
            return image
    return None


def resolve_base_image(index: MatrixIndex, reference: str, evidence: Evidence) -> BaseStack:
    """The stack a base image carries, as far as the matrix or its tag says; empty if unknown."""
    repository, tag = _split(reference)
    stack = BaseStack(reference)
    if tag is None:
        return stack
    image = _matrix_image(index, repository, tag)
    if image is not None:
        source = Evidence(kind="matrix", source=image.source, detail=f"{image.repository}:{tag}")
        stack.known_as = f"{image.repository}:{tag}"

        def add(name: ComponentName, version: str | None, cuda: str | None = None) -> None:
            if version:
                stack.installations.append(
                    (
                        name,
                        Installation(
                            version=version,
                            origin="image-config",
                            cuda=cuda,
                            archs=list(image.archs) if name is ComponentName.TORCH else [],
                            evidence=[evidence, source],
                        ),
                    )
                )

        add(ComponentName.TORCH, image.torch, image.torch_cuda or versions.release(image.cuda, 2))
        add(ComponentName.CUDA_TOOLKIT, image.cuda, versions.release(image.cuda, 2))
        add(ComponentName.CUDNN, image.cudnn, str(versions.major(image.cuda) or "") or None)
        add(ComponentName.NCCL, image.nccl, versions.release(image.cuda, 2))
        add(ComponentName.EFA_INSTALLER, image.efa)
        add(ComponentName.OFI_NCCL, image.ofi_nccl)
        return stack
    match = _CUDA_TAG.match(tag)
    if repository in _NVIDIA_CUDA and match is not None:
        cuda = match.group("cuda")
        flavor = match.group("flavor")
        stack.known_as = f"nvidia/cuda {cuda} {flavor}"
        name = ComponentName.CUDA_TOOLKIT if flavor == "devel" else ComponentName.CUDA_RUNTIME
        stack.installations.append(
            (
                name,
                Installation(
                    version=cuda,
                    origin="image-config",
                    cuda=versions.release(cuda, 2),
                    evidence=[evidence],
                ),
            )
        )
        if match.group("cudnn") is not None:
            major = match.group("cudnn") or None
            stack.installations.append(
                (
                    ComponentName.CUDNN,
                    Installation(
                        version=major,
                        origin="image-config",
                        cuda=str(versions.major(cuda)),
                        evidence=[evidence],
                    ),
                )
            )
    return stack
