"""The rule catalogue. IDs are stable: a rule's ID is never reused or renumbered."""

from __future__ import annotations

from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.cudnn_support import CudnnDriverTooOld, CudnnGpuUnsupported
from stackcheck.rules.device_ordinal import DeviceOrdinalBeyondGpus
from stackcheck.rules.dockerfile import RULES as DOCKERFILE_RULES
from stackcheck.rules.driver_cuda import (
    DriverDropsGpu,
    DriverLibraryMismatch,
    DriverModuleUnusable,
    DriverTooOld,
    ForwardCompatInUse,
    ForwardCompatUnsupportedGpu,
    LinuxDriverInWsl,
    MinorVersionCompatibility,
    StubDriverLibrary,
)
from stackcheck.rules.efa_compat import (
    EfaInstallerKnownIssue,
    LibfabricTooOld,
    OfiNcclKnownIssue,
    OfiNcclNcclMismatch,
)
from stackcheck.rules.efa_devices import EfaDevicesNotPassed, EfaNotVisible
from stackcheck.rules.efa_link import EfaDevicesMissing, EfaPortDown
from stackcheck.rules.env_vars import (
    CompatFirstOnUnsupportedGpu,
    CudaLaunchBlocking,
    DisableRequiresTypo,
    MaxConnectionsWithFsdp,
    NcclBlockingWait,
    NcclDebugVerbose,
    NcclGraphFileSet,
    NcclIbDisabled,
    NcclProtoLl128Forced,
    NcclSettingStatedCause,
    NcclSocketInterfaceMissing,
    NcclTransportDisabled,
    NgcEntrypointBypassed,
    VersionBoundPreset,
)
from stackcheck.rules.fabric_manager import (
    FabricManagerNotRunning,
    FabricManagerVersionMismatch,
    FabricManagerWithoutNvswitch,
    NvlsmPortGuessed,
)
from stackcheck.rules.fleet_drift import (
    ComponentDrift,
    EnvDrift,
    HardwareDrift,
    LimitsDrift,
    NcclDrift,
    NodeNoAnswer,
    PlatformDrift,
)
from stackcheck.rules.framework_build import FrameworkCpuOnly
from stackcheck.rules.gdr import GdrcopyUnusable, GdrNotUsed, PeermemNotLoaded
from stackcheck.rules.gpu_health import GpuMemoryErrors, GpuThrottled, GpuXid
from stackcheck.rules.gpu_mode import ComputeModeExclusive, MigEnabled, PersistenceModeOff
from stackcheck.rules.gpu_visibility import (
    ContainerWithoutGpus,
    FewerGpusThanParallelism,
    GpuPodUnschedulable,
    GpuRequestRejected,
    NoGpuVisible,
    PrivilegedSeesAllGpus,
    VisibleDeviceBeyondContainer,
)
from stackcheck.rules.gpus_flag import GpusFlagUnknown
from stackcheck.rules.hardware_drift import HardwarePathDrift
from stackcheck.rules.image_metadata import (
    EnvCudaMismatch,
    EnvCudnnMismatch,
    EnvNcclMismatch,
    RequireCudaUnsatisfied,
)
from stackcheck.rules.iommu_acs import AcsRedirect, IommuTranslated
from stackcheck.rules.layout import (
    ExpertAllToAllOutsideNvlink,
    ExpertParallelExperts,
    LayoutGpuMismatch,
    MultiNodeWithoutEfa,
    PipelineStagesUneven,
    TensorParallelHeads,
    TensorParallelOutsideNvlink,
)
from stackcheck.rules.libfabric_provider import (
    EfaCudaMemoryRegistration,
    LibfabricGetinfoFailed,
    LibfabricNotEfaProvider,
    LibfabricTooOldObserved,
    LibfabricUnreleased,
)
from stackcheck.rules.libraries import CudnnCudaMismatch, MultipleNccl
from stackcheck.rules.matrix_unknown import NotInMatrix
from stackcheck.rules.memlock import MemlockLimited, MlockFailed, RdmaCannotPinMemory
from stackcheck.rules.mpi_cuda_ipc import MpiCudaIpcOff
from stackcheck.rules.nccl_versions import (
    NcclGraphCaptureUnsupported,
    NcclKnownIssue,
    NcclTooOldForGpu,
)
from stackcheck.rules.network import NcclSocketFallback, NetPluginMissing, NetPluginUnresolved
from stackcheck.rules.numa_affinity import GpuNicAcrossNuma
from stackcheck.rules.nvlink import NvlinkDown
from stackcheck.rules.ofi_topology import OfiTopologyFileInvalid
from stackcheck.rules.pcie_link import PcieLinkDegraded, PcieLinkLimited
from stackcheck.rules.shm import ShmExhausted, ShmTooSmall
from stackcheck.rules.torch_build import CpuOnlyTorch, TorchCudaBaseMismatch, TorchMissingArch

RULES: tuple[Rule, ...] = (
    DriverTooOld(),
    MinorVersionCompatibility(),
    DriverLibraryMismatch(),
    ForwardCompatUnsupportedGpu(),
    ForwardCompatInUse(),
    CpuOnlyTorch(),
    TorchMissingArch(),
    TorchCudaBaseMismatch(),
    CudnnCudaMismatch(),
    MultipleNccl(),
    NcclKnownIssue(),
    NcclTooOldForGpu(),
    CudnnGpuUnsupported(),
    CudnnDriverTooOld(),
    EnvNcclMismatch(),
    EnvCudnnMismatch(),
    EnvCudaMismatch(),
    RequireCudaUnsatisfied(),
    NetPluginMissing(),
    NetPluginUnresolved(),
    EfaNotVisible(),
    EfaDevicesNotPassed(),
    NcclSocketFallback(),
    LibfabricNotEfaProvider(),
    LibfabricTooOldObserved(),
    EfaCudaMemoryRegistration(),
    GdrNotUsed(),
    PeermemNotLoaded(),
    OfiNcclNcclMismatch(),
    OfiNcclKnownIssue(),
    LibfabricTooOld(),
    EfaInstallerKnownIssue(),
    ShmTooSmall(),
    ShmExhausted(),
    MemlockLimited(),
    RdmaCannotPinMemory(),
    FabricManagerNotRunning(),
    FabricManagerVersionMismatch(),
    ContainerWithoutGpus(),
    NoGpuVisible(),
    FewerGpusThanParallelism(),
    NcclTransportDisabled(),
    NcclIbDisabled(),
    VersionBoundPreset(),
    CudaLaunchBlocking(),
    NcclBlockingWait(),
    NcclDebugVerbose(),
    MaxConnectionsWithFsdp(),
    CompatFirstOnUnsupportedGpu(),
    DisableRequiresTypo(),
    NgcEntrypointBypassed(),
    NodeNoAnswer(),
    NcclDrift(),
    ComponentDrift(),
    EnvDrift(),
    HardwareDrift(),
    LimitsDrift(),
    PlatformDrift(),
    TensorParallelOutsideNvlink(),
    ExpertAllToAllOutsideNvlink(),
    LayoutGpuMismatch(),
    PipelineStagesUneven(),
    TensorParallelHeads(),
    ExpertParallelExperts(),
    MultiNodeWithoutEfa(),
    NotInMatrix(),
    PcieLinkDegraded(),
    PcieLinkLimited(),
    NvlinkDown(),
    EfaPortDown(),
    EfaDevicesMissing(),
    GpuThrottled(),
    GpuMemoryErrors(),
    GpuXid(),
    PersistenceModeOff(),
    MigEnabled(),
    AcsRedirect(),
    IommuTranslated(),
    GpuNicAcrossNuma(),
    HardwarePathDrift(),
    *DOCKERFILE_RULES,
    FabricManagerWithoutNvswitch(),
    NcclGraphFileSet(),
    NcclSocketInterfaceMissing(),
    MlockFailed(),
    NcclProtoLl128Forced(),
    OfiTopologyFileInvalid(),
    NcclSettingStatedCause(),
    ComputeModeExclusive(),
    VisibleDeviceBeyondContainer(),
    PrivilegedSeesAllGpus(),
    DeviceOrdinalBeyondGpus(),
    DriverDropsGpu(),
    NvlsmPortGuessed(),
    GpuRequestRejected(),
    GpuPodUnschedulable(),
    NcclGraphCaptureUnsupported(),
    FrameworkCpuOnly(),
    DriverModuleUnusable(),
    GdrcopyUnusable(),
    LibfabricGetinfoFailed(),
    LibfabricUnreleased(),
    MpiCudaIpcOff(),
    StubDriverLibrary(),
    LinuxDriverInWsl(),
    GpusFlagUnknown(),
)


def rule_by_id(rule_id: str) -> Rule | None:
    wanted = rule_id.strip().upper()
    return next((r for r in RULES if r.id == wanted or r.name == rule_id.strip().lower()), None)


__all__ = ["RULES", "Rule", "RuleDoc", "rule_by_id"]
