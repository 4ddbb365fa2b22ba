"""What a ``FROM`` line brings.

First the matrix: AWS Deep Learning Containers under every registry AWS publishes them (ECR in any
region and account, the ``public.ecr.aws/deep-learning-containers`` mirror) and every tag form
(``-ec2``, ``-sagemaker``, ``-vX.Y`` patch suffixes), NGC tags. Then, for images the matrix does
not list, what their documented tag naming states: ``nvidia/cuda``
(``<cuda>-[cudnn[N]-]<base|runtime|devel>-<os>``), ``pytorch/pytorch``
(``<torch>-cuda<X.Y>-cudnn<N>-<runtime|devel>``), DLC tags (``<torch>-gpu-py<N>-cu<NNN>-…``) and
DLC base images (``<cuda>-gpu-py<N>-…``). A digest-pinned reference resolves by its tag when it
has one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stackcheck import versions
from stackcheck.matrix.index import MatrixIndex
from stackcheck.matrix.models import ContainerImage
from stackcheck.snapshot.model import ComponentName, Evidence, Installation

# Registries that serve the same DLC repositories: ECR (any account, any region, China too) and
# the public ECR mirror. The matrix names them by the canonical ECR pattern.
_DLC_REGISTRY = re.compile(
    r"^(?:\d{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?"
    r"|public\.ecr\.aws/deep-learning-containers)/"
)
_DLC_CANONICAL = "763104351884.dkr.ecr.<region>.amazonaws.com/"
# A DLC tag's platform and patch suffixes: -ec2, -sagemaker, -ec2-v1.5, -sagemaker-v1.8-2024-...
_DLC_SUFFIX = re.compile(r"-(?:ec2|sagemaker)(?:-v\d+(?:\.\d+)*(?:-\d{4}-\d{2}-\d{2}(?:-\d+)?)?)?$")
_DOCKER_HUB = re.compile(r"^(?:docker\.io/|index\.docker\.io/|registry-1\.docker\.io/)")
# An NGC release's variants on the same base: tritonserver's `21.10-py3-sdk`, `21.10-py3-min`.
_NGC_VARIANT = re.compile(r"(?<=-py3)-(?:sdk|min)$")
_NVIDIA_CUDA = {"nvidia/cuda", "nvcr.io/nvidia/cuda", "public.ecr.aws/nvidia/cuda"}
_PYTORCH = {"pytorch/pytorch", "ghcr.io/pytorch/pytorch"}

# Tag namings, by repository family; named groups: torch, cuda, cu (a cuXYZ tag), cudnn, flavor.
_CUDA_TAG = re.compile(
    r"^(?P<cuda>\d+\.\d+(?:\.\d+)?)-(?:cudnn(?P<cudnn>\d*)-)?(?P<flavor>base|runtime|devel)(?:-|$)"
)
_PYTORCH_TAG = re.compile(
    r"^(?P<torch>\d+\.\d+(?:\.\d+)?)-cuda(?P<cuda>\d+\.\d+)-cudnn(?P<cudnn>\d+)-(?P<flavor>runtime|devel)$"
)
_DLC_TAG = re.compile(r"^(?P<torch>\d+\.\d+\.\d+)-gpu-py\d+-cu(?P<cu>\d{3})-")
_DLC_NEW_TAG = re.compile(r"^(?P<torch>\d+\.\d+\.\d+)-cu(?P<cu>\d{3})-")
_DLC_BASE_TAG = re.compile(r"^(?P<cuda>\d+\.\d+\.\d+)-gpu-py\d+-")
# aws-samples/awsome-distributed-training's nccl-tests images (public.ecr.aws/hpc-cloud, or built
# locally as nccl-tests) name their stack in the tag: efa1.37.0-ofiv1.13.2-aws-ncclv2.23.4-1-….
_NCCL_TESTS = "nccl-tests"
_NCCL_TESTS_TAG = re.compile(
    r"^efa(?P<efa>\d+\.\d+\.\d+)-ofiv?(?P<ofi>\d+\.\d+\.\d+)(?:-aws)?-ncclv?(?P<nccl>\d+\.\d+\.\d+)"
)
# Repository names that say the image is for GPUs, whoever publishes it.
_GPU_NAME = re.compile(r"cuda|nccl|torch|nvidia|gpu|nemo|megatron|deep-learning|vllm|sglang")
_FLOATING = frozenset(["latest", "nightly", "main", "master", "edge"])


@dataclass(frozen=True)
class ImageReference:
    repository: str  # docker.io prefixes removed: "nvidia/cuda"
    tag: str | None
    digest: str | None

    @property
    def floating(self) -> bool:
        """No tag and no digest, or a tag that moves (``latest``)."""
        return self.digest is None and (self.tag is None or self.tag in _FLOATING)


def gpu_family(reference: str) -> bool:
    """Whether an image is of a family that exists for GPUs, tag or no tag."""
    repository = parse_reference(reference).repository
    return (
        _GPU_NAME.search(repository) is not None
        or repository in _PYTORCH
        or repository.startswith("nvcr.io/nvidia/")
        or _DLC_REGISTRY.match(repository) is not None
    )


def parse_reference(reference: str) -> ImageReference:
    name, _, digest = reference.partition("@")
    head, sep, tag = name.rpartition(":")
    repository, found_tag = (head, tag) if sep and "/" not in tag else (name, None)
    repository = _DOCKER_HUB.sub("", repository).removeprefix("library/").lower()
    return ImageReference(repository, found_tag, digest or None)


@dataclass
class BaseStack:
    reference: str
    known_as: str | None = None  # "DLC pytorch-training:2.5.1-…", "nvidia/cuda 12.4.1 devel"
    installations: list[tuple[ComponentName, Installation]] = field(default_factory=list)
    torch_nccl: str | None = None  # the NCCL the base's PyTorch was built with, when known
    vendor: str | None = None  # "ngc", "dlc": whose image it is

    def add(
        self,
        name: ComponentName,
        version: str | None,
        evidence: list[Evidence],
        cuda: str | None = None,
        archs: list[str] | None = None,
    ) -> None:
        if version:
            self.installations.append(
                (
                    name,
                    Installation(
                        version=version,
                        origin="image-config",
                        cuda=cuda,
                        archs=archs or [],
                        evidence=evidence,
                    ),
                )
            )


def _canonical(repository: str) -> str:
    return _DLC_REGISTRY.sub(_DLC_CANONICAL, repository)


def _core_tag(tag: str) -> str:
    return _DLC_SUFFIX.sub("", tag)


def _matrix_image(index: MatrixIndex, image: ImageReference) -> ContainerImage | None:
    if image.tag is None:
        return None
    repository = _canonical(image.repository)
    # Either side may name a DLC by its ECR pattern or by the public mirror.
    same = [i for i in index.images if _canonical(i.repository.lower()) == repository]
    exact = [i for i in same if i.tag == image.tag]
    if not exact and repository.startswith("nvcr.io/nvidia/"):
        # Triton's client SDK and minimal images are built on the release's own base.
        exact = [i for i in same if i.tag == _NGC_VARIANT.sub("", image.tag)]
    if exact or not repository.startswith(_DLC_CANONICAL):
        return exact[0] if exact else None
    core = _core_tag(image.tag)
    return next((i for i in same if _core_tag(i.tag) == core), None)


def matrix_image(index: MatrixIndex, reference: str) -> ContainerImage | None:
    """The matrix's row for an image reference (a tag's variants included), if it has one."""
    return _matrix_image(index, parse_reference(reference))


def _from_matrix(stack: BaseStack, image: ContainerImage, evidence: Evidence) -> None:
    source = Evidence(kind="matrix", source=image.source, detail=f"{image.repository}:{image.tag}")
    stack.known_as = f"{image.repository}:{image.tag}"
    stack.vendor = "ngc" if image.repository.startswith("nvcr.io/") else "dlc"
    cuda2 = versions.release(image.cuda, 2)
    both = [evidence, source]
    stack.add(ComponentName.TORCH, image.torch, both, image.torch_cuda or cuda2, list(image.archs))
    stack.add(ComponentName.CUDA_TOOLKIT, image.cuda, both, cuda2)
    stack.add(ComponentName.CUDNN, image.cudnn, both, str(versions.major(image.cuda) or "") or None)
    stack.add(ComponentName.NCCL, image.nccl, both, cuda2)
    stack.add(ComponentName.EFA_INSTALLER, image.efa, both)
    stack.add(ComponentName.OFI_NCCL, image.ofi_nccl, both)
    stack.torch_nccl = image.nccl


def _from_tag(stack: BaseStack, image: ImageReference, evidence: Evidence) -> None:
    """What a tag's documented naming states, for images the matrix does not list."""
    tag = image.tag or ""
    repository = _canonical(image.repository)
    cuda_match = _CUDA_TAG.match(tag) if image.repository in _NVIDIA_CUDA else None
    if cuda_match is not None:
        cuda, flavor = cuda_match.group("cuda"), cuda_match.group("flavor")
        stack.known_as = f"nvidia/cuda {cuda} {flavor}"
        name = ComponentName.CUDA_TOOLKIT if flavor == "devel" else ComponentName.CUDA_RUNTIME
        stack.add(name, cuda, [evidence], versions.release(cuda, 2))
        if cuda_match.group("cudnn") is not None:
            major = cuda_match.group("cudnn") or None
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
        return
    torch_match = _PYTORCH_TAG.match(tag) if image.repository in _PYTORCH else None
    if torch_match is not None:
        cuda = torch_match.group("cuda")
        stack.known_as = f"pytorch/pytorch {tag}"
        stack.add(ComponentName.TORCH, torch_match.group("torch"), [evidence], cuda)
        name = (
            ComponentName.CUDA_TOOLKIT
            if torch_match.group("flavor") == "devel"
            else ComponentName.CUDA_RUNTIME
        )
        stack.add(name, cuda, [evidence], cuda)
        stack.add(ComponentName.CUDNN, torch_match.group("cudnn"), [evidence], cuda.split(".")[0])
        return
    tests = _NCCL_TESTS_TAG.match(tag) if repository.endswith(_NCCL_TESTS) else None
    if tests is not None:
        stack.known_as = f"nccl-tests image {tag} (by its tag)"
        stack.add(ComponentName.EFA_INSTALLER, tests.group("efa"), [evidence])
        stack.add(ComponentName.OFI_NCCL, tests.group("ofi"), [evidence])
        stack.add(ComponentName.NCCL, tests.group("nccl"), [evidence])
        return
    if not repository.startswith(_DLC_CANONICAL):
        return
    dlc = _DLC_TAG.match(tag) or _DLC_NEW_TAG.match(tag)
    if dlc is not None and not repository.endswith("/base"):
        cuda = versions.cuda_from_tag(f"cu{dlc.group('cu')}")
        stack.known_as = f"DLC {repository.rsplit('/', 1)[-1]} {tag} (by its tag)"
        stack.vendor = "dlc"
        stack.add(ComponentName.TORCH, dlc.group("torch"), [evidence], cuda)
        stack.add(ComponentName.CUDA_TOOLKIT, cuda, [evidence], cuda)
        return
    base = _DLC_BASE_TAG.match(tag)
    if base is not None:
        cuda = base.group("cuda")
        stack.known_as = f"DLC base image, CUDA {cuda} (by its tag)"
        stack.vendor = "dlc"
        stack.add(ComponentName.CUDA_TOOLKIT, cuda, [evidence], versions.release(cuda, 2))


def resolve_base_image(index: MatrixIndex, reference: str, evidence: Evidence) -> BaseStack:
    """The stack a base image carries, as far as the matrix or its tag says; empty if unknown."""
    stack = BaseStack(reference)
    image = parse_reference(reference)
    if image.repository.startswith("nvcr.io/nvidia/"):
        stack.vendor = "ngc"  # NGC images carry NGC's pip constraint file, known tag or not
    if image.repository == "scratch":
        stack.known_as = "scratch (an empty image)"
        return stack
    found = _matrix_image(index, image)
    if found is not None:
        _from_matrix(stack, found, evidence)
    else:
        _from_tag(stack, image, evidence)
    return stack
