"""Triage readings of the fourteenth pass on cuDNN, the fabric manager and CUDA settings: a
library built against one cuDNN running on another (TensorRT's two message forms and reports'
words), systemd saying the fabric manager's unit is not installed (status, start, enable and
SysV's service), and FSDP named by a config or a sentence next to CUDA_DEVICE_MAX_CONNECTIONS=1.
Texts from the corpus reports cited in tests/data/reports and the other shapes the same
programs print."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.matrix import Matrix
from tests import test_triage_cudnn_arch_shm_thirteenth as thirteenth

findings = thirteenth.findings  # a report's findings by rule, and its observations by kind
observed = thirteenth.observed


def flagged(
    matrix: Matrix, rule: str, severity: Severity, read: tuple[str, ...], clean: tuple[str, ...]
) -> None:
    """Each text of ``read`` gets ``rule`` at ``severity``; none of ``clean`` gets it."""
    for said in read:
        assert findings(matrix, said + "\n").get(rule) is severity, said
    for said in clean:
        assert rule not in findings(matrix, said + "\n"), said


def test_a_library_built_against_another_cudnn_is_an_error(matrix: Matrix) -> None:
    """TensorRT 5-7 ('compiled against ... but is linked against'), TensorRT 8+ ('linked
    against ... but loaded') and a report's sentence with a package's version (Megatron-Bridge
    #5993): SC301; one version on both sides, a question or a condition: nothing."""
    for said in (
        "WARNING: TensorRT was compiled against cuDNN 7.5.0 but is linked against cuDNN 7.0.5. "
        "This mismatch may potentially cause undefined behavior.",
        "[W] [TRT] TensorRT was linked against cuDNN 8.6.0 but loaded cuDNN 8.4.1",
        "PyTorch 2.13.0a0+nv26.6 was compiled against cuDNN **9.23.0**, but the image ships only "
        "the system package libcudnn9-cuda-13 9.21.1 and no pip-bundled nvidia-cudnn-cu13.",
    ):
        assert findings(matrix, said + "\n").get("SC301") is Severity.ERROR, said
    assert observed("[W] [TRT] TensorRT was linked against cuDNN 8.6.0 but loaded cuDNN 8.4.1\n")[
        "cudnn-mismatch"
    ] == ("built against 8.6.0, loaded 8.4.1")
    for said in (
        "TensorRT was linked against cuDNN 8.6.0 but loaded cuDNN 8.6.0",
        "Is it a problem if TensorRT was compiled against cuDNN 7.5.0 but linked against 7.0.5?",
        "Make sure that the app built against cuDNN 8.9 but running on cuDNN 8.6 is not used.",
    ):
        assert "cudnn-mismatch" not in observed(said + "\n"), said


def test_the_fabric_managers_unit_not_installed_is_read(matrix: Matrix) -> None:
    """systemctl's words for a unit that is not installed (NVIDIA/gpu-operator#286): the fabric
    manager is down; a warning where nothing shows NVSwitches. Another unit: nothing."""
    for said in (
        "Unit nvidia-fabricmanager.service could not be found.",
        "Failed to start nvidia-fabricmanager.service: Unit nvidia-fabricmanager.service not "
        "found.",
        "Failed to restart nvidia-fabricmanager.service: Unit not found.",
        "Failed to enable unit: Unit file nvidia-fabricmanager.service does not exist.",
        "nvidia-fabricmanager: unrecognized service",
        "Failed to start nvidia-fabricmanager.service: Unit nvidia-fabricmanager.service is "
        "masked.",
    ):
        assert "fabric-manager-down" in observed(said + "\n"), said
        assert findings(matrix, said + "\n").get("SC521") is Severity.WARNING, said
    for said in (
        "Unit nvidia-persistenced.service could not be found.",
        "Failed to start nvidia-dcgm.service: Unit nvidia-dcgm.service is masked.",
    ):
        assert "fabric-manager-down" not in observed(said + "\n"), said


_RAY_ENV = """\
The workload uses Torch FSDP2 with:

```yaml
actor_rollout_ref:
  actor:
    strategy: fsdp2
```

the pinned verl revision sets `CUDA_DEVICE_MAX_CONNECTIONS=1` in the Ray runtime environment.
"""


def test_fsdp_named_next_to_one_device_connection_is_a_warning(matrix: Matrix) -> None:
    """verl-omni#421: FSDP2 named by its config and a sentence, CUDA_DEVICE_MAX_CONNECTIONS=1
    set: SC607. The setting alone (Megatron's TP needs it), or FSDP denied: nothing."""
    assert findings(matrix, _RAY_ENV).get("SC607") is Severity.WARNING
    flagged(
        matrix,
        "SC607",
        Severity.WARNING,
        (
            "model = FullyShardedDataParallel(model)  # CUDA_DEVICE_MAX_CONNECTIONS=1",
            "fully_shard(block) for each layer; export CUDA_DEVICE_MAX_CONNECTIONS=1",
        ),
        (
            "export CUDA_DEVICE_MAX_CONNECTIONS=1 for Megatron tensor parallelism",
            "We train without FSDP, with CUDA_DEVICE_MAX_CONNECTIONS=1 for TP.",
        ),
    )
    assert "fsdp-named" not in observed("a checkout under 3.test_cases/pt_fsdp_lib\n")


def test_no_efa_resource_for_a_pod_is_a_warning(matrix: Matrix) -> None:
    """The scheduler's 'Insufficient vpc.amazonaws.com/efa' and a node said not to advertise
    the resource (aws/eks-charts#1358): SC411 as a warning; a question or a condition: nothing."""
    for said in (
        "Warning  FailedScheduling  0/2 nodes are available: 2 Insufficient "
        "vpc.amazonaws.com/efa. preemption: 0/2 nodes are available",
        "Observe that the node does not advertise `vpc.amazonaws.com/efa`.",
        "there is no vpc.amazonaws.com/efa resource on the p5 nodes",
    ):
        assert findings(matrix, said + "\n").get("SC411") is Severity.WARNING, said
    for said in (
        "Why does the node not advertise vpc.amazonaws.com/efa?",
        "If the node does not advertise vpc.amazonaws.com/efa, install the device plugin.",
        "resources: limits: vpc.amazonaws.com/efa: 4",
    ):
        assert "efa-resource-missing" not in observed(said + "\n"), said


_NO_PLUGIN = (
    "NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file "
    "or directory No plugin found (libnccl-net.so), using internal implementation\n"
)


def test_no_net_plugin_where_the_report_says_efa_is_used(matrix: Matrix) -> None:
    """NCCL's 'No plugin found' beside a sentence that the job uses EFA (aws-parallelcluster
    #6942): SC413 as a warning. Without such a sentence, or where it denies EFA, the line is
    harmless (a single node, no EFA)."""
    for said in (
        "NCCL test has been able to use EFA on AL2023",
        "We run NCCL over EFA on two p4d nodes.",
        "the cluster is EFA-enabled",
    ):
        got = findings(matrix, said + "\n\n" + _NO_PLUGIN).get("SC413")
        assert got is Severity.WARNING, said
    assert "SC413" not in findings(matrix, _NO_PLUGIN)
    for said in (
        "We do not use EFA on these nodes.",
        "EFA disabled on the queue; using EFA is not possible on g4dn.xlarge",
        "Should I use EFA here?",
    ):
        assert "efa-use-stated" not in observed(said + "\n"), said
        assert "SC413" not in findings(matrix, said + "\n\n" + _NO_PLUGIN), said


def test_an_efa_installer_replaced_on_rocky_9_has_its_known_issue(matrix: Matrix) -> None:
    """An EFA installer upgrade that names the release replaced states that release
    (aws-parallelcluster-cookbook#2906); 1.38.0 on Rocky Linux 9 is a known issue (SC454). The
    same release on another OS, or with no OS named: no finding."""
    flagged(
        matrix,
        "SC454",
        Severity.ERROR,
        (
            "[EFA] Upgrade EFA to version 1.38.1 (from 1.38.0) to address issue on Rocky9.",
            "bump EFA installer from 1.38.0 to 1.38.1 on Rocky Linux 9.5 compute nodes",
        ),
        (
            "[EFA] Upgrade EFA to version 1.38.1 (from 1.38.0) on Ubuntu 22.04.",
            "[EFA] Upgrade EFA to version 1.38.1 (from 1.38.0).",
            "We run Rocky 9 with EFA installer 1.38.1.",
        ),
    )
    # ParallelCluster's validator names the OS in its own case (aws-parallelcluster#2360).
    assert (
        observed("EFA currently not supported on centos8 for arm64 architecture\n")["os-named"]
        == "centos8"
    )
    # An OS named away from EFA is not a stack fact: it does not make a text recognised.
    assert "os-named" not in observed("The desktop runs Ubuntu 22.04 with an RTX 3090.\n")
