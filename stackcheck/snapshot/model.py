"""The snapshot: everything a probe learned about one stack, and where it learned it.

A host, an image and pasted text all become this one model; rules read only this. It is
versioned (``schema_version``) and round-trips through JSON unchanged.
"""

from __future__ import annotations

from dataclasses import Field, dataclass, field, fields
from datetime import datetime, timezone
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from stackcheck import __version__

if TYPE_CHECKING:
    from pydantic import ConfigDict

# 2: the ``hardware`` section (PCIe links, RDMA ports, GPU health, Xid events, IOMMU).
SCHEMA_VERSION = 2


class _Model:
    """A snapshot model: a plain dataclass, which pydantic validates where a snapshot is read
    from JSON (snapshot.io). The probes build theirs with the constructor: mypy checks their
    values, and importing pydantic and building its validators would cost `stackcheck probe`
    more than the probing itself.

    Building does what validation would to a value of the right type: lists and dicts are
    copied, so that no two models share one, and an int given for a float becomes a float."""

    # Read by pydantic when it validates the dataclass: an unknown field is refused.
    __pydantic_config__: ClassVar[ConfigDict] = {"extra": "forbid"}
    if TYPE_CHECKING:  # each model is a @dataclass: what fields() and replace() ask of one
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    def __post_init__(self) -> None:
        containers, floats = _shapes_of(type(self))
        for name in containers:
            value = getattr(self, name)
            if isinstance(value, (list, dict)):
                object.__setattr__(self, name, value.copy())  # frozen models too
        for name in floats:
            value = getattr(self, name)
            if type(value) is int:  # as validation makes it: JSON writes 16.0, never 16
                object.__setattr__(self, name, float(value))


def field_names(model: type[_Model]) -> tuple[str, ...]:
    """A model's fields, in their order."""
    names = _FIELD_NAMES.get(model)
    if names is None:
        names = _FIELD_NAMES[model] = tuple(f.name for f in fields(model))
    return names


def _shapes_of(model: type[_Model]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The fields of a model that may hold a list or a dict, and those that hold a float."""
    shapes = _SHAPES.get(model)
    if shapes is None:
        kinds = [(f.name, str(f.type)) for f in fields(model)]
        shapes = _SHAPES[model] = (
            tuple(name for name, kind in kinds if "list[" in kind or "dict[" in kind),
            tuple(name for name, kind in kinds if "float" in kind),
        )
    return shapes


# Read once per model, not on every build.
_FIELD_NAMES: dict[type[_Model], tuple[str, ...]] = {}
_SHAPES: dict[type[_Model], tuple[tuple[str, ...], tuple[str, ...]]] = {}


class ComponentName(str, Enum):
    """The layers of the stack that stackcheck versions."""

    DRIVER = "driver"
    CUDA_TOOLKIT = "cuda-toolkit"
    CUDA_RUNTIME = "cuda-runtime"
    CUDA_COMPAT = "cuda-compat"
    CUDNN = "cudnn"
    NCCL = "nccl"
    EFA_INSTALLER = "efa-installer"
    LIBFABRIC = "libfabric"
    OFI_NCCL = "ofi-nccl"
    TORCH = "torch"
    FABRIC_MANAGER = "fabric-manager"

    @property
    def display_name(self) -> str:
        return _TITLES[self]


_TITLES = {
    ComponentName.DRIVER: "NVIDIA driver",
    ComponentName.CUDA_TOOLKIT: "CUDA toolkit",
    ComponentName.CUDA_RUNTIME: "CUDA runtime",
    ComponentName.CUDA_COMPAT: "CUDA forward compat",
    ComponentName.CUDNN: "cuDNN",
    ComponentName.NCCL: "NCCL",
    ComponentName.EFA_INSTALLER: "EFA installer",
    ComponentName.LIBFABRIC: "libfabric",
    ComponentName.OFI_NCCL: "aws-ofi-nccl",
    ComponentName.TORCH: "PyTorch",
    ComponentName.FABRIC_MANAGER: "Fabric Manager",
}

EvidenceKind = Literal[
    "file",  # a small file's content (version.json, METADATA, /proc/...)
    "filename",  # a library's real file name (libnccl.so.2.21.5)
    "binary",  # a string read from inside a binary, without loading it
    "header",  # a C header's #define
    "package",  # a package database or dist-info record
    "command",  # a command's output (run with a timeout)
    "nvml",  # the NVIDIA Management Library
    "env",  # an environment variable
    "dmi",  # /sys/devices/virtual/dmi
    "imds",  # the EC2 instance metadata service
    "image-config",  # an image's config (ENV, labels)
    "target",  # a fact of the host an image is meant for (--driver, --gpu, --host)
    "text",  # a line of pasted text
    "matrix",  # derived from the compatibility matrix
]


@dataclass(kw_only=True, frozen=True)
class Evidence(_Model):
    """Where a value was read: which file, library, command or variable said so."""

    kind: EvidenceKind
    source: str
    detail: str | None = None
    layer: str | None = None
    line: int | None = None  # the line of ``source`` (a Dockerfile, a pasted report) it came from


Origin = Literal[
    "kernel",  # the loaded kernel module
    "system",  # a library in the system's loader path or a distro package
    "toolkit",  # inside a CUDA toolkit directory
    "pip",  # a Python wheel in a site-packages
    "conda",  # a conda package
    "vendor",  # a vendor install tree such as /opt/amazon
    "image-config",  # stated by an image's config, not seen as files
    "report",  # stated by pasted text
]


@dataclass(kw_only=True)
class Installation(_Model):
    """One copy of a component. A component may have several; each is recorded."""

    version: str | None = None
    path: str | None = None
    origin: Origin
    cuda: str | None = field(
        default=None,
        metadata={"description": "CUDA version this copy is built for, or supports (driver)."},
    )
    archs: list[str] = field(
        default_factory=list,
        metadata={"description": "GPU code it carries: sm_90, compute_90 (PTX)."},
    )
    python_env: str | None = field(
        default=None, metadata={"description": "The site-packages directory a wheel belongs to."}
    )
    properties: dict[str, str] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)


@dataclass(kw_only=True)
class Component(_Model):
    installations: list[Installation] = field(default_factory=list)
    unknown: str | None = field(
        default=None,
        metadata={"description": "Why nothing could be read, when installations is empty."},
    )

    @property
    def versions(self) -> list[str]:
        return sorted({i.version for i in self.installations if i.version})


@dataclass(kw_only=True)
class Gpu(_Model):
    index: int | None = None
    name: str
    memory_mib: int | None = None
    # MAJOR.MINOR, as NVML and nvidia-smi give it; a snapshot read from JSON is held to it.
    compute_capability: str | None = field(
        default=None, metadata={"pattern": r"^\d{1,3}\.\d{1,3}$"}
    )
    pci_bus_id: str | None = None
    evidence: list[Evidence] = field(default_factory=list)


@dataclass(kw_only=True)
class GpuInventory(_Model):
    devices: list[Gpu] = field(default_factory=list)
    unknown: str | None = None


@dataclass(kw_only=True)
class Instance(_Model):
    type: str | None = None
    ami: str | None = field(
        default=None, metadata={"description": "DLAMI name or id, where the AMI says."}
    )
    evidence: list[Evidence] = field(default_factory=list)
    unknown: str | None = None


@dataclass(kw_only=True)
class EnvVar(_Model):
    value: str
    evidence: Evidence


@dataclass(kw_only=True)
class Runtime(_Model):
    """Limits and devices of the place the job runs; None where not known."""

    shm_bytes: int | None = None
    memlock_bytes: int | None = field(
        default=None, metadata={"description": "Soft RLIMIT_MEMLOCK; -1 means unlimited."}
    )
    rdma_devices: list[str] | None = field(
        default=None,
        metadata={"description": "RDMA devices by name, e.g. rdmap16s27 (EFA), mlx5_0."},
    )
    efa_devices: list[str] | None = None
    uverbs_devices: list[str] | None = field(
        default=None,
        metadata={"description": "/dev/infiniband/uverbs* nodes this process can open."},
    )
    peermem_loaded: bool | None = field(
        default=None,
        metadata={"description": "A GPUDirect RDMA peer-memory module (nvidia_peermem) is loaded."},
    )
    nvswitch_count: int | None = field(
        default=None, metadata={"description": "NVSwitch devices present."}
    )
    evidence: list[Evidence] = field(default_factory=list)


# How RunSpec.gpus ends for a compose GPU reservation with neither `count` nor `device_ids`,
# which Docker Compose has passed as a request for zero GPUs (docker/docs#20588).
UNCOUNTED_RESERVATION = "no count or device_ids"


@dataclass(kw_only=True)
class RunSpec(_Model):
    """How a container is started: a docker run line, a compose service, a pod's container.

    ``None`` means the spec does not say; a value means the spec sets it.
    """

    kind: Literal["docker-run", "compose", "kubernetes", "hyperpod-job"]
    name: str | None = None
    image: str | None = None
    gpus: str | None = field(
        default=None,
        metadata={
            "description": "The GPU request as written: 'all', '2', 'device=0,1', '1 (limit)'."
        },
    )
    gpu_count: int | None = field(
        default=None, metadata={"description": "GPUs the spec exposes, when countable."}
    )
    runtime: str | None = None
    shm_bytes: int | None = None
    ipc: str | None = None
    memlock_bytes: int | None = field(default=None, metadata={"description": "-1 means unlimited."})
    devices: list[str] = field(default_factory=list)
    privileged: bool = False
    efa_requested: int | None = field(
        default=None,
        metadata={
            "description": "vpc.amazonaws.com/efa devices requested; 0 when a resource list is "
            "shown without it."
        },
    )
    entrypoint: str | None = field(
        default=None, metadata={"description": "An entrypoint the spec overrides."}
    )
    command: str | None = None
    volumes: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)


ObservationKind = Literal[
    "nccl-loaded",  # a process printed the NCCL version it loaded
    "net-transport",  # NCCL's network for inter-node traffic ("Socket", "AWS Libfabric", "IB")
    "net-gdr",  # an inter-node connection with ("yes") or without ("no") GPUDirect RDMA
    "gdr-disabled",  # the OFI plugin turned GPUDirect RDMA off
    "net-plugin-missing",  # no libnccl-net*.so was found
    "net-plugin-failed",  # a net plugin was found but failed to load or initialise
    "libfabric-provider",  # the libfabric provider aws-ofi-nccl selected
    "efa-provider-missing",  # libfabric found no EFA provider (fi_getinfo -61)
    "efa-provider-present",  # fi_info listed the EFA provider
    "libfabric-symbol-missing",  # libfabric lacks a symbol version a library needs
    "ofi-memory-registration-failed",  # NET/OFI Unable to register memory (type = 2)
    "shm-exhausted",  # /dev/shm could not hold NCCL's segments or DataLoader batches
    "rdma-enomem",  # RDMA resources could not be pinned: Cannot allocate memory (-12)
    "cuda-error",  # a CUDA error code, e.g. "802"
    "driver-insufficient",  # the driver is older than the CUDA a process needs
    "no-kernel-image",  # no kernel image is available for execution on the device
    "cudnn-mismatch",  # cuDNN loaded is not the one PyTorch was compiled against
    "library-missing",  # a shared library could not be opened
    "no-gpu",  # no GPU or NVIDIA driver reachable from the process
    "cuda-unavailable",  # torch.cuda.is_available() was False
    "fabric-manager-mismatch",  # fabric manager and driver versions differ
    "fabric-state",  # the NVLink fabric's state as nvidia-smi -q shows it ("In Progress")
    "base-image-floating",  # a build recipe's base image has no tag, or a moving one (latest)
    "pip-constraint-cleared",  # NGC's PIP_CONSTRAINT emptied before a later pip install
    "pip-unquoted-specifier",  # `pip install pkg>=X` unquoted: the shell redirects to a file
    "driver-library-mismatch",  # NVML / NVRM: user-space driver and kernel module differ
    "torch-cpu-only",  # "Torch not compiled with CUDA enabled": a CPU build asked for a GPU
    "fabric-manager-no-nvswitch",  # the fabric manager found no NVSwitch (NV_WARN_NOTHING_TO_DO)
    "rdma-fabric-stated",  # the report says its machines have InfiniBand or RoCE ("RoCE enabled")
    "shm-too-small",  # a program said /dev/shm is too small for it and worked around it (Ray)
    "driver-init-timeout",  # the driver took too long to initialise the GPUs (no persistence)
    "fabric-manager-down",  # the fabric manager service failed, was killed or is not running
    "gpu-unreachable",  # NVML cannot reach a GPU the driver lists (nvidia-smi: Unknown Error)
    "ecc-uncorrectable",  # CUDA met an uncorrectable ECC error in a GPU's memory (error 214)
    "nccl-gpu-unsupported",  # NCCL's kernels need more shared memory than the GPU gives
    "nvlink-p2p-broken",  # NCCL: P2P is disabled between NVLink-connected GPUs
    "efa-device-list-aborted",  # libfabric's EFA provider gave up over one unopenable device
    "ib-local-protection-error",  # NCCL NET/IB completion error 4 (IBV_WC_LOC_PROT_ERR)
    "nvls-multicast-failed",  # NCCL's NVLink SHARP multicast setup failed (fabric manager)
    "nccl-shadowed",  # a program met an NCCL other than the one it was built against
    "iommu-acs-stated",  # the report says ACS or the IOMMU was on, or turning it off fixed it
    "socket-fallback-stated",  # the report says NCCL fell back to sockets on EFA or InfiniBand
    "nvlink-down-stated",  # the report says an NVLink was down
    "cpu-intended",  # the report says the machine has no GPU or the program should run on CPU
    "cpu-instead-of-gpu",  # the report says a program ran on the CPU instead of the (its) GPU
    "cudnn-fault-stated",  # the report says cuDNN is absent where it runs, or installed wrongly
    "rdma-unselected",  # the launcher selected only transports without RDMA (btl sm,self; UCX_TLS)
    "mig-stated",  # the report says the GPUs are in MIG mode ("MIG is enabled on ...")
    "cuda-build-mismatch",  # an extension build found CUDA X, PyTorch's is Y (value "X Y")
    "gpu-request-stated",  # the report says the container lacked a GPU request (--gpus, limit)
    "memlock-raise-stated",  # the report says the locked-memory limit has to be raised
    "mig-selected",  # a process or pod is given MIG instances by name: MIG is meant to be on
    "mig-spanned-stated",  # the report says one job runs across several MIG instances
    "nvidia-runtime-not-default",  # containerd defines an nvidia runtime, not as CRI's default
    "socket-interface-missing",  # NCCL found no network interface to bootstrap on
    "mlock-failed",  # a process could not lock memory (mlock ENOMEM): RLIMIT_MEMLOCK too low
    "nccl-cuda-failure",  # NCCL's CUDACHECK failed in a source file ("enqueue.cc: CUDA error 1")
    "peermem-load-failed",  # the peer-memory module failed to load or is said not to be loaded
    "nccl-topo-invalid",  # NCCL rejected a topology file (an attribute missing) or it is faulty
    "ofi-topo-file",  # aws-ofi-nccl set NCCL_TOPO_FILE to its own file for the instance type
    "ipoib-interface",  # NCCL's socket transport uses an IPoIB interface (ib0): InfiniBand is there
    "ib-transport-unavailable",  # NCCL's IB transport: no libibverbs, or no device found
    "nccl-tests-run",  # a launcher line runs an nccl-tests binary (all_reduce_perf, ...)
    "nccl-setting-stated",  # the report names an NCCL_* setting as the cause ("set too large")
    "persistence-off-stated",  # the report says persistence mode was off
    "gpu-init-slow-stated",  # the report says nvidia-smi takes minutes (the GPUs initialise anew)
    "mig-pending",  # a MIG mode change waits for a GPU reset or a reboot
    "compute-mode-exclusive",  # a GPU in an exclusive or prohibited compute mode
    "devices-unavailable",  # CUDA error 46: the GPUs are busy (exclusive mode) or unavailable
    "toolkit-arch-unsupported",  # nvcc or ptxas does not know the GPU's architecture (too old)
    "driver-too-old-stated",  # the report says the driver is too old for the CUDA it needs
    "setting-tried",  # the report says a setting changed nothing: an experiment, value its name
    "nccl-private-copy",  # a program loads its own NCCL copy beside PyTorch's (vLLM 0.4's 2.18.1)
    "process-crashed",  # a shell says the process died of a signal (bus error, segmentation fault)
    "efa-installer-failed",  # the EFA installer stopped before installing (its own check failed)
    "p2p-unsupported",  # CUDA: peer access is not supported between two GPUs (error 217)
    "iommu-off-set",  # a BIOS or boot setting the report lists turns the IOMMU off (IOMMU=Disable)
    "p2p-restored-stated",  # the report says a run then succeeded without a P2P workaround
    "pcie-link-downgraded",  # lspci's LnkSta marks the link (downgraded), its device not shown
    "cuda-build-mismatch-stated",  # the report contrasts nvcc's CUDA X with PyTorch's Y ("X Y")
    "privileged-stated",  # the report says its container or pod runs privileged
    "all-gpus-seen-stated",  # the report says a container sees all the host's GPUs
    "no-gpu-probed",  # PyTorch's availability probe warned it found no driver (is_available False)
    "invalid-device-ordinal",  # CUDA error 101: a process asked for a GPU index it cannot see
    "gpu-count-stated",  # the report says how many GPUs the machine has ("my server has 2 A100")
    "ptx-jit-only",  # a framework has no cubin for the GPU and JIT-compiles its kernels from PTX
    "build-archs",  # a CUDA build's explicit -gencode/-arch flags (an extension's nvcc settings)
    "version-stated",  # a version a sentence states whose owner it does not say (CUDA 11.4)
    "program-fault",  # a message naming the program's or its input's fault (CUDA out of memory)
    "library-status",  # a CUDA library call failed with the status named (CUBLAS_STATUS_...)
    "health-check-failed",  # a node health check (NHC) failed by its own threshold
    "cuda-available",  # torch.cuda.is_available() was True, or device_count() above 0
    "collective-failed",  # an NCCL result code or a collective's timeout, naming no layer
    "docker-daemon",  # docker info: the daemon's runtimes, default runtime and cgroup driver
    "nccl-in-backtrace",  # a native backtrace's frame is inside NCCL (value: the function)
    "shm-default-stated",  # the report says the container had Docker's default 64 MB /dev/shm
    "gpu-marked-unhealthy",  # the k8s device plugin took a GPU out of service after an Xid
    "efa-missing-stated",  # the report says there is no EFA here (no efa.ko, fi_info finds none)
    "gpu-init-failed",  # the driver could not initialise a GPU (NVRM: RmInitAdapter failed)
    "ofi-tuner-refused",  # aws-ofi-nccl's tuner refused to load: NCCL_ALGO/NCCL_PROTO is set
    "efa-plugin-no-devices",  # the EFA k8s device plugin found no EFA device on its node
    "efa-peer-unresponsive",  # EFA reached a peer that never answered the handshake (4126)
    "pcie-downgrade-stated",  # the report says a PCIe link runs below its capability
    "slurmd-named",  # Slurm's node daemon is named: a limit shown for it is every job's
    "peermem-listed",  # lsmod lists a peer-memory module (nvidia_peermem, nv_peer_mem) as loaded
    "dataloader-workers",  # a DataLoader runs worker processes (num_workers > 0)
    "dataloader-worker-died",  # a DataLoader worker exited without saying why (PyTorch's message)
    "debugging-stated",  # the report says a run or a command is for debugging
    "no-gpu-banner",  # an image's start-up script printed that it found no NVIDIA driver
    "nvidia-runtime-unknown",  # the Docker daemon has no runtime named nvidia registered
    "docker-version",  # the Docker engine's version (value: major.minor, "19.03")
    "smi-works-stated",  # the report says nvidia-smi works where the process runs
    "ib-dmabuf-failed",  # NCCL's ibv_reg_dmabuf_mr failed (value: the error): DMA-BUF registration
    "hang-stated",  # the report says the job or a collective hangs (wedges, deadlocks, is stuck)
    "gpu-legacy-driver",  # NVRM: a GPU is supported only through a legacy branch (value: "470")
    "library-cuda-stated",  # a library is built for CUDA X, the system has Y ("nccl X Y")
    "nvswitch-lpf-candidate",  # a wrapper found an NVSwitch LPF port for NVLSM (value: its device)
    "fabric-nvlink-generation",  # the fabric manager's start script: "Pre-NVL5" or "NVL5+"
    "gpu-request-rejected",  # Docker refused a malformed --gpus value before touching any GPU
    "podman-compose-named",  # the report runs its compose file with podman-compose (value: version)
    "compose-deploy-ignored",  # docker-compose 1.x said it ignores the services' `deploy` key
    "gpu-unschedulable",  # no node had the GPUs a pod asks for (value: the resource)
    "nccl-graph-capture-refused",  # NCCL refused a CUDA graph capture (built for CUDA < 11.3)
    "memlock-limits-conf",  # a limits.conf line raises memlock (PAM logins only, not containers)
    "gpu-implied",  # a message only a GPU machine, a driver or a GPU request prints (NVML, toolkit)
    "memlock-ruled-out",  # the report says the locked-memory limit was checked and is not the cause
    "singularity-without-nv",  # a Singularity/Apptainer container started without --nv/--nvccli
    "notebook-hosted",  # the program runs on a hosted notebook service (Colab, Kaggle)
    "collective-named",  # the report names a collective the job runs (value: "alltoall")
    "fsdp-named",  # the job uses PyTorch FSDP (a config's strategy: fsdp2, fully_shard, prose)
    "efa-resource-missing",  # Kubernetes has no vpc.amazonaws.com/efa to give (Insufficient ...)
    "efa-use-stated",  # the report says the job uses (or is meant to use) EFA
    "os-named",  # an operating system and its release the text names ("Rocky 9", "Ubuntu 22.04")
    "tensorflow-stated",  # the report states the TensorFlow release it runs (value: "2.12")
    "windows-native",  # the report's machine runs native Windows, not WSL (value: as stated)
    "framework-cpu-build",  # a framework says its build has no CUDA (TensorFlow, JAX, Paddle, ORT)
    "no-nvidia-device",  # the kernel refused the nvidia module for want of a device (modprobe)
    "ranks-share-gpu",  # two ranks of one communicator on one GPU (a launcher's placement)
    "slurm-gpu-container",  # a Slurm job given GPUs runs in a pyxis/enroot container (srun)
    "slurm-cgroup-conf",  # a Slurm cgroup.conf is shown (value: a line of it)
    "slurm-constrain-devices",  # cgroup.conf's ConstrainDevices (value: yes or no)
    "linker-library-missing",  # a link step found no lib<name>.so (value: "cuda" for -lcuda)
    "rdma-register-failed",  # RDMA memory registration failed (value: the error it names)
    "image-not-found",  # a registry has no such image or tag (a pull failed): not the GPU stack
    "gpu-operator-version",  # the NVIDIA GPU Operator release the cluster runs (value: "23.6.1")
    "mpi-rdma-init-failed",  # Open MPI could not set up an RDMA device or queue (value: which)
    "cudnn-required",  # a program names the cuDNN major it is built for, having failed (value: "8")
    "mig-several-listed",  # one device list names two or more MIG devices (CUDA enumerates one)
    "one-device-seen-stated",  # the report says a program sees a single GPU or device only
    "require-arch-unsatisfied",  # the container toolkit refused an image's arch>= requirement
    "cudnn-unversioned-lookup",  # a program looked for the unversioned libcudnn.so (a dev symlink)
    "firmware-bar-off",  # the report names Above 4G Decoding / Resizable BAR off in the firmware
    "driver-module-unusable",  # no NVIDIA kernel module loads for the GPU (missing, refused)
    "gdrcopy-failed",  # gdrcopy could not open gdrdrv or pin a GPU buffer (value: the message)
    "libfabric-getinfo-failed",  # libfabric's fi_getinfo failed (value: "-19 (No such device)")
    "verbs-provider-missing",  # libibverbs has no userspace provider for a device (value: which)
    "mpi-launch-failed",  # Open MPI's launcher could not start its daemons on the other nodes
    "mpi-rank-signalled",  # mpirun saw a rank end on a signal (value: "rank 3: signal 11 (...)")
    "libfabric-unreleased",  # a report builds or runs libfabric's master or a release candidate
    "ptx-jit-limit",  # the driver's PTX JIT met PTX from a newer toolkit (XLA said so, or its fix)
    "cudnn-built-for",  # a package release names the cuDNN major it is built for (value: "8 (…)")
    "gpu-feature-unsupported",  # a program refuses a feature the GPU lacks by design (FP8)
    "gpu-floor",  # a program whose builds support GPUs from a compute capability ("Ollama 5.0")
    "mpi-cuda-optional",  # Open MPI found no libcuda and turned CUDA-aware support off (a notice)
    "wsl-version-1",  # the Linux runs under WSL 1, which gives it no GPU (kernel, form, wsl -l -v)
    "wsl-version-2",  # the Linux runs under WSL 2 (its kernel release, a report saying so)
    "linux-driver-package",  # a Linux NVIDIA driver package is selected for install (value: name)
    "mpi-cuda-ipc-off",  # a report says MPI/UCX run without CUDA IPC
    "ptx-newer-than-ptxas",  # ptxas or the driver's JIT refused PTX of a newer ISA ("7.3 7.2 …")
    "stub-libcuda-loaded",  # a process loaded the toolkit's stub libcuda (CUDA error 34)
    "stub-dir-on-path",  # the toolkit's stubs directory on a run-time search path (RPATH, ...)
    "triton-ptx-codegen",  # Triton 2.0+ wraps a ptxas failure (it derives PTX's ISA from ptxas)
    "windows-preview-build",  # a Windows Insider (preview) build, not a release (value: the build)
    "gpu-amd",  # a discrete AMD GPU named (Radeon RX 6800, Instinct MI250): no CUDA device
    "wsl-driver-copies",  # ldconfig's notice on WSL's driver files (copies, not symlinks): benign
    "triton-libcuda-lookup",  # Triton found no file named libcuda.so through ldconfig's cache
    "driver-call-too-new",  # CUDA error 36: the runtime called an API the older driver lacks
    "gpu-unrequested",  # a scheduler gave the task no GPU it did not ask for (Ray num_gpus=0)
    "device-uuid-unparsed",  # a program read CUDA_VISIBLE_DEVICES as integers and met a UUID
    "gpus-flag-unknown",  # a container CLI refused `--gpus` (Docker's client before 19.03)
    "nccl-deb",  # NCCL installed from NVIDIA's libnccl2 .deb (apt pin, .deb file, dpkg line)
    "nccl-nic-without-pci",  # NCCL uses a NIC with no PCI address (a USB NIC: enx<MAC>)
    "mpi-cuda-no-context",  # Open MPI's smcuda found no CUDA context at MPI_Init
    "ucx-cuda-ipc-missing",  # UCX says its cuda_ipc transport is not available
    "program-change-undone",  # the report says undoing a change of the program fixed the error
    "nccl-cumem-named",  # NCCL_CUMEM_ENABLE named set to 0 or without a value (cuMem maybe off)
    "vm-generation-mismatch",  # a cloud refused a VM size that cannot boot the image's generation
    "persistence-on-reported",  # a health checker read persistence mode on from NVML (gpud)
    "device-plugin-version",  # the NVIDIA k8s device plugin release the cluster runs ("0.18.2")
    "link-input-unreadable",  # GNU ld could not read an input file as an object (a stale build)
    "libcuda-not-in-ld-cache",  # the report says `ldconfig -p | grep libcuda` printed nothing
    "cudnn-libcuda-unfound",  # cuDNN's sub-library could not load libcuda (WSL: /usr/lib/wsl/lib)
    "engine-call-failed",  # vLLM's engine: a method its client called raised (value: the method)
    "scheduler-gpu-count",  # the GPUs a scheduler counts for a VM size or host ("SIZE 0", "NAME 1")
]


@dataclass(kw_only=True)
class Observation(_Model):
    """Something a running stack printed: a log line or an error message, with where it was read."""

    kind: ObservationKind
    value: str | None = None
    evidence: Evidence


@dataclass(kw_only=True)
class Platform(_Model):
    os: str | None = None
    kernel: str | None = None
    machine: str | None = None
    container: bool | None = field(
        default=None,
        metadata={
            "description": "The probed process runs in a container: host daemons (fabric manager) "
            "and limits set on the host are out of its sight."
        },
    )
    evidence: list[Evidence] = field(default_factory=list)


SourceKind = Literal["host", "root", "image", "text", "plan", "dockerfile"]


@dataclass(kw_only=True)
class SnapshotSource(_Model):
    kind: SourceKind
    target: str


@dataclass(kw_only=True)
class ProbeNote(_Model):
    probe: str
    message: str


@dataclass(kw_only=True)
class ImageLayer(_Model):
    digest: str
    size: int | None = None
    media_type: str | None = None
    created_by: str | None = None  # the build step that made it, from the config's history


@dataclass(kw_only=True)
class ImageInfo(_Model):
    """What an image's manifest and config say, beside what its files say."""

    reference: str
    transport: str
    manifest_digest: str | None = None
    config_digest: str | None = None
    os: str | None = None
    architecture: str | None = None
    created: str | None = None
    env: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    entrypoint: list[str] | None = None
    cmd: list[str] | None = None
    working_dir: str | None = None
    user: str | None = None
    layers: list[ImageLayer] = field(default_factory=list)


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def _empty_components() -> dict[ComponentName, Component]:
    return {name: Component() for name in ComponentName}


@dataclass(kw_only=True)
class Snapshot(_Model):
    schema_version: int = SCHEMA_VERSION
    stackcheck_version: str = __version__
    taken_at: datetime = field(default_factory=_now)
    source: SnapshotSource
    platform: Platform = field(default_factory=Platform)
    components: dict[ComponentName, Component] = field(default_factory=_empty_components)
    gpus: GpuInventory = field(default_factory=GpuInventory)
    instance: Instance = field(default_factory=Instance)
    env: dict[str, EnvVar] = field(default_factory=dict)
    runtime: Runtime = field(default_factory=Runtime)
    run_specs: list[RunSpec] = field(default_factory=list)
    observed: list[Observation] = field(default_factory=list)
    partial: bool = field(
        default=False,
        metadata={
            "description": "True when the snapshot holds only what a text stated: a component it "
            "does not mention is unknown, not absent."
        },
    )
    notes: list[ProbeNote] = field(default_factory=list)
    image: ImageInfo | None = field(
        default=None, metadata={"description": "Set when the source is an image."}
    )
    hardware: Hardware = field(default_factory=lambda: Hardware())

    def component(self, name: ComponentName) -> Component:
        return self.components.setdefault(name, Component())

    def installations(self, name: ComponentName) -> list[Installation]:
        return self.component(name).installations

    def env_value(self, name: str) -> str | None:
        var = self.env.get(name)
        return None if var is None else var.value

    def observations(self, *kinds: ObservationKind) -> list[Observation]:
        return [o for o in self.observed if o.kind in kinds]


# The hardware section's models cite Evidence, defined above; Snapshot is completed once they exist.
from stackcheck.snapshot.hardware import Hardware  # noqa: E402
