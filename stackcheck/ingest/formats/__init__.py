"""The formats triage recognises. Order matters only where two could claim the same line: the
more specific comes first."""

from __future__ import annotations

from stackcheck.ingest.formats.azslurm import AzslurmBuckets
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.collect_env import CollectEnv
from stackcheck.ingest.formats.compose import Compose
from stackcheck.ingest.formats.conda_plan import CondaPlan
from stackcheck.ingest.formats.container_cli_info import ContainerCliInfo
from stackcheck.ingest.formats.containerd_config import ContainerdConfig
from stackcheck.ingest.formats.cuda_version_file import CudaVersionFile
from stackcheck.ingest.formats.device_banner import DeviceBanner
from stackcheck.ingest.formats.df import Df
from stackcheck.ingest.formats.docker_info import DockerInfo
from stackcheck.ingest.formats.docker_run import DockerRun
from stackcheck.ingest.formats.dockerfile import Dockerfile
from stackcheck.ingest.formats.ds_report import DsReport
from stackcheck.ingest.formats.efa_packages import EfaInstalledPackages
from stackcheck.ingest.formats.env_dump import EnvDump
from stackcheck.ingest.formats.fi_info import FiInfo
from stackcheck.ingest.formats.fi_info_verbose import FiInfoVerbose
from stackcheck.ingest.formats.gfd_labels import GfdLabels
from stackcheck.ingest.formats.gpu_list import GpuList
from stackcheck.ingest.formats.hf_env import HuggingFaceEnv
from stackcheck.ingest.formats.hyperpod_job import HyperPodJob
from stackcheck.ingest.formats.ibstat import Ibstat
from stackcheck.ingest.formats.ibv_devinfo import IbvDevinfo
from stackcheck.ingest.formats.issue_form import IssueFormNcclVersion
from stackcheck.ingest.formats.issue_form_tensorflow import IssueFormTensorflow
from stackcheck.ingest.formats.kernel_log import KernelLog
from stackcheck.ingest.formats.kubernetes import Kubernetes
from stackcheck.ingest.formats.launcher import Launcher
from stackcheck.ingest.formats.library_paths import LibraryPaths
from stackcheck.ingest.formats.lsmod import Lsmod
from stackcheck.ingest.formats.lspci import Lspci
from stackcheck.ingest.formats.nccl_log import NcclLog
from stackcheck.ingest.formats.nccl_tests import NcclTests
from stackcheck.ingest.formats.nvcc import Nvcc
from stackcheck.ingest.formats.nvidia_smi import NvidiaSmiTable
from stackcheck.ingest.formats.nvidia_smi_csv import NvidiaSmiCsv
from stackcheck.ingest.formats.nvidia_smi_query import NvidiaSmiQuery
from stackcheck.ingest.formats.nvidia_smi_topo import NvidiaSmiTopo
from stackcheck.ingest.formats.nvlink_status import NvlinkStatus
from stackcheck.ingest.formats.nvtop import Nvtop
from stackcheck.ingest.formats.p2p_test import P2pBandwidthTest
from stackcheck.ingest.formats.pip_show import PipShow
from stackcheck.ingest.formats.proc_driver import ProcDriverVersion
from stackcheck.ingest.formats.prose import Prose
from stackcheck.ingest.formats.python_packages import PythonPackages
from stackcheck.ingest.formats.setpci import SetpciAcs
from stackcheck.ingest.formats.singularity import Singularity
from stackcheck.ingest.formats.system_packages import SystemPackages
from stackcheck.ingest.formats.torch_config import TorchConfig
from stackcheck.ingest.formats.ulimit import Ulimit

PROSE = Prose()
FORMATS: tuple[Format, ...] = (
    NcclLog(),
    DockerRun(),
    HyperPodJob(),
    Launcher(),
    CollectEnv(),
    NvidiaSmiQuery(),
    NvidiaSmiTable(),
    Nvcc(),
    ContainerCliInfo(),
    ProcDriverVersion(),
    CudaVersionFile(),
    EfaInstalledPackages(),
    FiInfo(),
    NcclTests(),
    Compose(),
    Kubernetes(),
    Dockerfile(),
    Df(),
    Lsmod(),
    Ulimit(),
    EnvDump(),
    PipShow(),
    CondaPlan(),
    PythonPackages(),
    LibraryPaths(),
    GpuList(),
    KernelLog(),
    IbvDevinfo(),
    NvlinkStatus(),
    SystemPackages(),
    HuggingFaceEnv(),
    DsReport(),
    TorchConfig(),
    NvidiaSmiTopo(),
    Lspci(),
    FiInfoVerbose(),
    IssueFormNcclVersion(),
    P2pBandwidthTest(),
    Nvtop(),
    NvidiaSmiCsv(),
    DockerInfo(),
    Ibstat(),
    GfdLabels(),
    DeviceBanner(),
    SetpciAcs(),
    Singularity(),
    IssueFormTensorflow(),
    AzslurmBuckets(),
    ContainerdConfig(),
)

__all__ = ["FORMATS", "PROSE", "Format"]
