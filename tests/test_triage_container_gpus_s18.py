"""The eighteenth pass's readings on GPUs in containers and Kubernetes (OCI runtimes without
nvidia-smi, engines without CDI, DCGM without NVML, nvidia-container-cli hanging), on shapes of
text beyond the corpus reports they were written for (1630, 1632, 1639, 1697, 1645)."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.test_triage_gpu_stack import findings


def _levels(matrix: Matrix, rule: str, *texts: str) -> dict[str, Severity | None]:
    """The level ``rule`` gives each text read alone (None: no finding)."""
    return {t: findings(matrix, t + "\n").get(rule) for t in texts}


def test_a_container_without_nvidia_smi_sees_no_gpu(matrix: Matrix) -> None:
    """runc (Docker, containerd, Kubernetes) quotes the command with double quotes, crun (podman)
    with backticks; a paste may strip either. Each says the toolkit injected nothing."""
    read = _levels(
        matrix,
        "SC532",
        "docker: Error response from daemon: failed to create task for container: failed to "
        "create shim task: OCI runtime create failed: runc create failed: unable to start "
        'container process: exec: "nvidia-smi": executable file not found in $PATH: unknown.',
        "Error: crun: executable file `nvidia-smi` not found in $PATH: No such file or "
        "directory: OCI runtime attempted to invoke a command that was not found",
        "Warning  Failed  12s  kubelet  Error: failed to create containerd task: exec: "
        "'nvidia-smi': executable file not found in $PATH",
        "after the reboot the pod says nvidia-smi: executable file not found in $PATH",
    )
    assert set(read.values()) == {Severity.ERROR}, read


def test_the_gpu_operator_validator_line_and_other_commands_are_not_read(
    matrix: Matrix,
) -> None:
    """gpu-operator 1.8.2's validator exec'd nvidia-smi the wrong way (NVIDIA/gpu-operator#265,
    a healthy node): its 'error validating toolkit installation' line is not the container's
    fault; another command missing from PATH says nothing about GPUs."""
    read = _levels(
        matrix,
        "SC532",
        'level=info msg="Error: error validating toolkit installation: exec: "nvidia-smi": '
        'executable file not found in $PATH"',
        'exec: "python": executable file not found in $PATH',
    )
    assert set(read.values()) == {None}, read


def test_a_cdi_device_name_taken_as_a_path_sees_no_gpu(matrix: Matrix) -> None:
    """podman before 4.1 stats the CDI name as a file; Docker before 25 gathers device
    information for it; both fail for any device name of the nvidia.com/gpu kind."""
    read = _levels(
        matrix,
        "SC532",
        "Error: stat nvidia.com/gpu=all: no such file or directory",
        "Error: stat nvidia.com/gpu=0: no such file or directory",
        "docker: Error response from daemon: error gathering device information while adding "
        'custom device "nvidia.com/gpu=all": no such file or directory.',
    )
    assert set(read.values()) == {Severity.ERROR}, read
    # The request alone, without the engine's refusal, is not a failure.
    command = "podman run --device nvidia.com/gpu=all ubuntu nvidia-smi -L"
    assert findings(matrix, command + "\n").get("SC532") is not Severity.ERROR


def test_dcgm_without_nvml_sees_no_gpu(matrix: Matrix) -> None:
    """dcgm-exporter's NVML start-up, DCGM's own error string for DCGM_ST_NVML_NOT_LOADED (as
    dcgmi or nv-hostengine print it) and the host engine's NVML failure (NVIDIA/gpu-operator#498's
    log line, another pod's)."""
    read = _levels(
        matrix,
        "SC532",
        'time="2024-05-02T10:00:00Z" level=error msg="Cannot init NVML library; err: '
        'ERROR_LIBRARY_NOT_FOUND"',
        "Error: Cannot perform the requested operation because NVML doesn't exist on this system.",
        "2021-11-23 00:15:28.951 ERROR [82:82] Cannot initialize the hostengine: Error: Failed to "
        "initialize NVML [/workspaces/dcgm-rel_dcgm_2_3-postmerge/dcgmlib/src/"
        "DcgmHostEngineHandler.cpp:3647] [DcgmHostEngineHandler::Init]",
    )
    assert set(read.values()) == {Severity.ERROR}, read


def test_nvidia_container_cli_hanging_names_persistence_mode(matrix: Matrix) -> None:
    """The hook's own CLI hangs while the driver initialises the GPUs: SC1120's warning, in the
    reporter's several phrasings; a question or a condition is not a report of it."""
    expected = {
        'I tried to "nvidia-container-cli list", but terminal hang.': Severity.WARNING,
        "nvidia-container-cli info just hangs forever on this node": Severity.WARNING,
        "Running nvidia-container-cli -k -d /dev/tty info gets stuck after loading the driver": (
            Severity.WARNING
        ),
        "If nvidia-container-cli hangs, check persistence mode.": None,
        "nvidia-container-cli info printed the driver and CUDA versions": None,
    }
    assert _levels(matrix, "SC1120", *expected) == expected


def test_rendezvous_store_failures_are_read_and_stay_quiet(matrix: Matrix) -> None:
    """TCPStore's name-resolution and port-binding failures, in PyTorch 1.x's and 1.13+'s words,
    are recognised (not 'nothing recognised') and name no layer of the GPU stack: no finding
    above info."""
    texts = (
        "ValueError: host not found: Name or service not known",
        "[W socket.cpp:663] [c10d] The IPv4 network addresses of (pytorchjob-master-0, 23456) "
        "cannot be retrieved (gai error: -2 - Name or service not known).",
        "RuntimeError: Address already in use",
        "[rank0]: torch.distributed.DistNetworkError: The server socket has failed to listen on "
        "any local network address. The server socket has failed to bind to [::]:29500 (errno: "
        "98 - Address already in use).",
    )
    for text in texts:
        snapshot = read_report(text + "\n", "report.txt").snapshot
        assert snapshot.observations("collective-failed"), text
        loud = {k: v for k, v in findings(matrix, text + "\n").items() if v is not Severity.INFO}
        assert not loud, (text, loud)


_PODS = (
    "NAME                                        READY   STATUS     RESTARTS      AGE\n"
    "gpu-operator-7bbf8bb6b7-2xzqj               1/1     Running    0             12m\n"
    "{row}\n"
)


def test_a_failing_gpu_stack_daemonset_means_no_gpu(matrix: Matrix) -> None:
    """kubectl rows of the device plugin's or the GPU operator's own pods in a failed state (as
    in NVIDIA/k8s-device-plugin#13's listing); with `-A` a namespace column comes first."""
    for row in (
        "nvidia-driver-daemonset-2kq4p               0/1     CrashLoopBackOff   7 (2m ago)    12m",
        "nvidia-container-toolkit-daemonset-4v6vj    0/1     Init:Error         2             12m",
        "gpu-operator   nvidia-operator-validator-q7v9x   0/1   Init:CrashLoopBackOff   5   9m",
        "kube-system    nvidia-device-plugin-daemonset-zb8xn   0/1   CrashLoopBackOff   6   9m",
        "nvidia-driver-daemonset-2kq4p               0/1     ImagePullBackOff   0             3m",
    ):
        assert findings(matrix, _PODS.format(row=row)).get("SC532") is Severity.ERROR, row


def test_a_gpu_stack_still_starting_or_running_is_not_a_failure(matrix: Matrix) -> None:
    """Init:0/4 and ContainerCreating are a rollout in progress; Running and Completed are
    healthy; another project's pod in CrashLoopBackOff says nothing about GPUs."""
    for row in (
        "nvidia-operator-validator-q7v9x             0/1     Init:0/4           0             1m",
        "nvidia-driver-daemonset-2kq4p               0/1     ContainerCreating  0             1m",
        "nvidia-driver-daemonset-2kq4p               1/1     Running            0             3d",
        "nvidia-cuda-validator-8t6lb                 0/1     Completed          0             3d",
        "my-app-5d9c8b7f4-x2x9z                      0/1     CrashLoopBackOff   4             9m",
    ):
        assert findings(matrix, _PODS.format(row=row)).get("SC532") is None, row
