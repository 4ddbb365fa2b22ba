"""The compatibility matrix's schema. Every fact carries its source and when it was checked.

Each table lives in its own TOML file under ``matrices/`` (``cuda.toml`` holds ``[[cuda_major]]``
and ``[[cuda_release]]`` entries, and so on); the top-level keys of all files together must be
fields of :class:`Matrix`. A fact marked ``unsure = true`` is never the sole basis of an ``error``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any, Literal

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from pydantic import BaseModel, ConfigDict, Field, field_validator

from stackcheck import versions
from stackcheck.snapshot.model import ComponentName, ObservationKind

CpuArch = Literal["x86_64", "aarch64"]


class Fact(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    source: str = Field(
        min_length=4, description="URL, or repository@commit:path, it was read from"
    )
    checked: date = Field(description="When the source was read")
    unsure: bool = Field(default=False, description="Read but unconfirmed, or sources disagree")
    via: str | None = Field(
        default=None,
        description="A secondary copy (translation, mirror, third-party record) the values were "
        "read from, when the primary `source` itself could not be read",
    )
    note: str | None = None


def _check_version(value: str | None) -> str | None:
    if value is not None and versions.parse(value) is None:
        raise ValueError(f"not a version: {value!r}")
    return value


class CudaMajor(Fact):
    """Minor-version compatibility: any 12.x runtime runs on a driver >= the 12.x floor.

    Before CUDA 11 there was none (``minor_version_compatible = false``): each release needs at
    least its own release's driver, and ``min_driver`` is only the oldest release's.
    """

    major: int
    min_driver: str
    minor_version_compatible: bool = True
    last_driver_branch: int | None = Field(
        default=None, description="Newest driver branch that still covers this major"
    )

    _v = field_validator("min_driver")(_check_version)


class CudaRelease(Fact):
    """A toolkit release and the driver it needs for full (not minor-version) compatibility."""

    version: str  # "12.4" or "12.4.1"
    min_driver: str
    released: date | None = None

    _v = field_validator("version", "min_driver")(_check_version)


class DriverBranch(Fact):
    branch: int  # 535, 580, ...
    kind: Literal["LTSB", "PB", "NFB"]
    eol: date | None = None
    max_cuda_major: int
    fabric_manager: bool = True


class Gpu(Fact):
    name: str  # canonical: "H100"
    match: list[str] = Field(min_length=1, description="Substrings of NVML/nvidia-smi names")
    compute_capability: str
    architecture: str
    memory_gib: float | None = Field(
        default=None,
        description="GiB as the driver reports it (nvidia-smi memory.total MiB / 1024)",
    )
    memory_gb_marketed: float | None = Field(
        default=None, description="GB as NVIDIA markets the part (the name's '80GB')"
    )
    memory_source: str | None = Field(
        default=None, description="Where memory_gib was read (a recorded nvidia-smi output)"
    )
    datacenter: bool = Field(description="Forward compatibility (cuda-compat) is allowed")
    first_cuda: str | None = None
    last_cuda_major: int | None = None
    last_driver_branch: int | None = None
    nvswitch: bool = False

    _v = field_validator("compute_capability", "first_cuda")(_check_version)

    def is_any(self, names: list[str]) -> bool:
        """Whether this GPU is one of ``names``, each a GPU name or an architecture."""
        wanted = {n.lower() for n in names}
        return self.name.lower() in wanted or self.architecture.lower() in wanted


class TorchVariant(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    cuda: str  # "12.4"
    status: Literal["stable", "experimental"] = "stable"
    cudnn: str | None = None
    nccl: str | None = None
    archs: list[str] = Field(
        default_factory=list, description="sm_XY / compute_XY (PTX) the wheel carries"
    )
    source: str | None = None  # when it differs from the release's
    unsure: bool | None = None  # None: as the release


class TorchRelease(Fact):
    version: str  # "2.5" (a minor line; patch releases share its builds)
    released: date | None = None
    python: str | None = None  # ">=3.9,<3.13"
    variants: list[TorchVariant] = Field(default_factory=list)

    _v = field_validator("version")(_check_version)


class CudnnBuild(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    cuda_major: int
    cuda: list[str] = Field(default_factory=list, description="Toolkit minors supported")
    min_driver: str | None = None
    compute_capabilities: list[str] = Field(default_factory=list)


class CudnnRelease(Fact):
    version: str  # "9.10.2"
    builds: list[CudnnBuild] = Field(default_factory=list)


def _check_specifier(value: str) -> str:
    try:
        SpecifierSet(value)
    except InvalidSpecifier:
        raise ValueError(f"not a version specifier: {value!r}") from None
    return value


class KnownIssue(BaseModel):
    """A bug or a documented behaviour of the versions in ``affected``, under conditions.

    The issue applies only where every condition holds: a GPU named in ``gpus`` (by matrix name
    or architecture) is present, the CPU is ``cpu_arch``, and each component in ``requires`` has
    an installation whose version matches its specifier, and one of the variables in ``env`` is
    set to a value its expression finds, and one of the observations in ``observed`` has a value
    its expression finds. A condition that cannot be checked
    (no GPU found, version unknown) means the issue is not reported.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    summary: str
    affected: str  # a PEP 440 specifier over the component's version: ">=2.19.3,<2.20.3"
    fixed_in: str | None = None
    workaround: str | None = None
    severity: Literal["error", "warning", "info"] = "warning"
    kind: Literal["bug", "behaviour"] = Field(
        default="bug", description="'behaviour': documented, no fix; shown, never reported"
    )
    gpus: list[str] = Field(default_factory=list, description="GPU names or architectures")
    cpu_arch: CpuArch | None = None
    requires: dict[ComponentName, str] = Field(
        default_factory=dict, description="Other components' versions: {efa-installer: '>=1.35'}"
    )
    env: dict[str, str] = Field(
        default_factory=dict,
        description="Environment variables, any one of which set to a value the expression finds "
        "makes the condition hold: {NCCL_NET_PLUGIN: '/'}",
    )
    observed: dict[ObservationKind, str] = Field(
        default_factory=dict,
        description="What a running stack printed: observation kinds, any one of which with a "
        "value the expression finds makes the condition hold: {net-plugin-failed: 'libcudart'}",
    )
    observed_all: dict[ObservationKind, str] = Field(
        default_factory=dict,
        description="What a running stack printed, every one of these kinds with a value the "
        "expression finds: {net-gdr: '^no$', peermem-listed: 'nvidia_peermem'}",
    )
    observed_names_release: bool = Field(
        default=False,
        description="Only the affected releases print what `observed` names: the issue is "
        "reported where the component's version is not stated",
    )
    source: str
    unsure: bool = False

    _affected = field_validator("affected")(_check_specifier)

    @field_validator("requires")
    @classmethod
    def _check_requires(cls, value: dict[ComponentName, str]) -> dict[ComponentName, str]:
        for specifier in value.values():
            _check_specifier(specifier)
        return value


class NcclRelease(Fact):
    version: str
    released: date | None = None
    net_api: int | None = Field(default=None, description="Newest ncclNet_vN the release asks for")
    net_api_min: int | None = Field(
        default=None, description="Oldest ncclNet_vN it still loads from a plugin"
    )
    new_gpus: list[str] = Field(
        default_factory=list, description="GPUs this release is the first to support"
    )
    known_issues: list[KnownIssue] = Field(default_factory=list)

    def net_api_span(self) -> range | None:
        """The ncclNet_vN versions it loads from a plugin; None where the matrix does not say."""
        if self.net_api is None:
            return None
        return range(self.net_api_min or self.net_api, self.net_api + 1)


class OfiNcclRelease(Fact):
    version: str
    released: date | None = None
    nccl_tested: list[str] = Field(default_factory=list)
    nccl_min: str | None = None
    libfabric_min: str | None = None
    net_api: list[int] = Field(default_factory=list, description="ncclNet_vN it exports")
    known_issues: list[KnownIssue] = Field(default_factory=list)

    def loadable_by(self, span: range) -> bool:
        """Whether an NCCL that loads these ncclNet versions finds one this plugin exports."""
        return any(v in span for v in self.net_api)


class EfaInstaller(Fact):
    version: str
    released: date | None = None
    libfabric: str | None = None
    ofi_nccl: str | None = None
    bundles_ofi_nccl: bool | None = Field(
        default=None,
        description="Whether the installer ships aws-ofi-nccl at all (from 1.38.0); None: not read",
    )
    rdma_core: str | None = None
    plugin_path: str | None = None
    known_issues: list[KnownIssue] = Field(default_factory=list)


WithKnownIssues = NcclRelease | OfiNcclRelease | EfaInstaller


class Instance(Fact):
    type: str  # "p5.48xlarge"
    gpu: str | None = None  # a Gpu.name
    gpu_count: int = 0
    gpu_memory_gib: float | None = Field(
        default=None, description="GiB per GPU as the driver reports it (the GPU's memory_gib)"
    )
    nvlink_domain_gpus: int | None = None
    nvlink_bandwidth_gb_s: float | None = Field(
        default=None, description="GB/s per GPU, both directions together (as NVIDIA states it)"
    )
    nvlink_source: str | None = Field(
        default=None,
        description="Where the NVLink figures were read, when not in `source`",
    )
    efa_interfaces: int = 0
    efa_bandwidth_gb_s: float | None = Field(
        default=None, description="GB/s per instance, each way (EC2's Gbit/s / 8)"
    )
    gdr: bool = False
    fabric_manager: bool = False
    arch: CpuArch = "x86_64"


class NonGpuFamily(Fact):
    """EC2 instance families with no NVIDIA GPU, grouped by the accelerator they carry instead."""

    accelerator: str = Field(
        description="What the families carry instead of an NVIDIA GPU: `none` (CPU only), or "
        "the accelerator's name (AWS Inferentia, AWS Trainium, an AMD GPU)"
    )
    families: list[str] = Field(min_length=1, description="Instance families (`inf1`, `c5`)")


class TensorrtFloor(Fact):
    """The oldest GPU architecture TensorRT supports from a release on (until a later floor)."""

    version: str  # the first release of the floor: "8.6"
    min_compute_capability: str  # "5.0": GPUs below it are not supported

    _v = field_validator("version", "min_compute_capability")(_check_version)


class Dlami(Fact):
    name: str  # "Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 22.04)"
    release: str  # "20260102"
    arch: CpuArch
    os: str
    driver: str
    cuda: list[str] = Field(default_factory=list)
    cuda_default: str | None = None
    efa: str | None = None
    ofi_nccl: str | None = None
    torch: str | None = None
    instances: list[str] = Field(default_factory=list, description="Families: p5, g6e, ...")
    ami_name_pattern: str | None = None
    ssm_parameter: str | None = Field(
        default=None,
        description="The SSM public parameter whose value is this DLAMI family's latest AMI ID",
    )


def _x86_only() -> list[CpuArch]:
    return ["x86_64"]


class ContainerImage(Fact):
    repository: str  # "763104351884.dkr.ecr.<region>.amazonaws.com/pytorch-training"
    tag: str
    torch: str | None = None
    torch_cuda: str | None = Field(
        default=None, description="CUDA build of the PyTorch inside, where it differs from cuda"
    )
    torch_build: Literal["official", "vendor"] = Field(
        default="official",
        description="'official': a pytorch.org wheel variant; 'vendor': built by the image's maker",
    )
    platforms: list[CpuArch] = Field(default_factory=_x86_only)
    cuda: str | None = None
    cudnn: str | None = None
    nccl: str | None = None
    efa: str | None = None
    ofi_nccl: str | None = None
    python: str | None = None
    min_driver: str | None = None
    archs: list[str] = Field(default_factory=list)
    released: date | None = None
    end_of_patch: date | None = None


EnvSeverity = Literal["warning", "info"]


class EnvVarAdvice(Fact):
    """A variable that older stacks needed and newer ones do not: when it is needed, by version.

    ``needed_when`` lists alternatives; each maps a component (``ofi-nccl``, ``libfabric``,
    ``efa-installer``, ``nccl``) to a PEP 440 specifier, and holds when every component in it
    matches. The variable is needed when any alternative holds; an empty list means never.
    """

    name: str
    values: list[str] = Field(
        default_factory=list, description="Values it applies to (any case); empty: any value"
    )
    needed_when: list[dict[str, str]] = Field(default_factory=list)
    severity: EnvSeverity = Field(description="When the versions in use do not need it")
    severity_unknown: EnvSeverity | None = Field(
        default=None, description="When the versions it depends on are unknown; None: silent"
    )
    summary: str = Field(description="What setting it costs where it is not needed")


class GpuLink(Fact):
    """What one GPU model's links should train at: its PCIe generation and width, and (for the
    SXM module that 8-GPU instances carry) how many NVLink links it has."""

    gpu: str  # a Gpu.name
    pcie_gen: int = Field(ge=1, le=6)
    pcie_width: int = Field(ge=1, le=32)
    nvlink_links: int | None = Field(
        default=None, description="NVLink links of the SXM module; None: PCIe only"
    )


XidSeverity = Literal["error", "warning", "info"]


class Xid(Fact):
    """One Xid code of the NVIDIA driver: what it means and what to do."""

    code: int
    mnemonic: str
    meaning: str
    severity: XidSeverity = Field(description="How stackcheck reports a GPU that logged it")
    action: str


class GpuPerformance(Fact):
    """A GPU's dense peak per precision (the vendor's figure without sparsity) and the share of
    it a well-tuned training step achieves, each with its source: what `plan` times steps by."""

    gpu: str  # a Gpu.name
    dense_tflops: dict[str, float] = Field(description="precision -> dense peak TFLOPS")
    achievable: dict[str, float] = Field(
        description="precision -> achieved share of the dense peak in training (MFU-like)"
    )
    achievable_source: str


class Matrix(BaseModel):
    """All tables. ``version`` names this edition of the data; ``built`` is its date."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    version: str = "unversioned"
    built: date | None = None
    primary_sources: list[str] = Field(
        default_factory=list,
        description="Prefixes of sources that count as primary (vendor pages in English, vendor "
        "repositories at a commit); `matrix --audit` counts the rest as secondary",
    )
    cuda_major: list[CudaMajor] = Field(default_factory=list)
    cuda_release: list[CudaRelease] = Field(default_factory=list)
    driver_branch: list[DriverBranch] = Field(default_factory=list)
    gpu: list[Gpu] = Field(default_factory=list)
    torch: list[TorchRelease] = Field(default_factory=list)
    cudnn: list[CudnnRelease] = Field(default_factory=list)
    nccl: list[NcclRelease] = Field(default_factory=list)
    ofi_nccl: list[OfiNcclRelease] = Field(default_factory=list)
    efa_installer: list[EfaInstaller] = Field(default_factory=list)
    instance: list[Instance] = Field(default_factory=list)
    dlami: list[Dlami] = Field(default_factory=list)
    dlc: list[ContainerImage] = Field(default_factory=list)
    ngc: list[ContainerImage] = Field(default_factory=list)
    env_var: list[EnvVarAdvice] = Field(default_factory=list)
    gpu_link: list[GpuLink] = Field(default_factory=list)
    xid: list[Xid] = Field(default_factory=list)
    gpu_performance: list[GpuPerformance] = Field(default_factory=list)
    non_gpu_family: list[NonGpuFamily] = Field(default_factory=list)
    tensorrt: list[TensorrtFloor] = Field(default_factory=list)


# The field that identifies an entry of each table; a user matrix entry with the same key
# replaces the bundled one.
TABLE_KEYS: dict[str, tuple[str, ...]] = {
    "cuda_major": ("major",),
    "cuda_release": ("version",),
    "driver_branch": ("branch",),
    "gpu": ("name",),
    "torch": ("version",),
    "cudnn": ("version",),
    "nccl": ("version",),
    "ofi_nccl": ("version",),
    "efa_installer": ("version",),
    "instance": ("type",),
    "dlami": ("name", "release", "arch"),
    "dlc": ("tag",),
    "ngc": ("tag",),
    "env_var": ("name",),
    "gpu_link": ("gpu",),
    "xid": ("code",),
    "gpu_performance": ("gpu",),
    "non_gpu_family": ("accelerator",),
    "tensorrt": ("version",),
}


def entry_key(table: str, entry: Mapping[str, Any] | Fact) -> tuple[str, ...]:
    """The values that identify an entry of ``table`` (TABLE_KEYS), as text: the same for a
    table as a TOML file writes it, a harvested row and a validated entry."""
    if isinstance(entry, Mapping):
        return tuple(str(entry.get(k)) for k in TABLE_KEYS[table])
    return tuple(str(getattr(entry, k)) for k in TABLE_KEYS[table])
