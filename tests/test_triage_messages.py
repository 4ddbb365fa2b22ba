"""What the rules make of the catalogue's driver, shared-memory, GPU-health, fabric-manager and
persistence messages, independent of the report corpus. Each text is a catalogue entry's real
example (copied from the public thread its entry names) or, where a test needs one, a sentence
that states the opposite; the rules must turn a message into a warning or an error only where
it shows the failure."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report, signatures
from stackcheck.matrix import Matrix


def example(signature_id: str) -> str:
    return next(s.example for s in signatures.catalogue() if s.id == signature_id)


def findings(matrix: Matrix, *lines: str) -> dict[str, Severity]:
    report = check(read_report("\n".join(lines), "pasted").snapshot, matrix)
    return {f.id: f.severity for f in report.findings}


def test_cuda_803_and_222_name_the_driver(matrix: Matrix) -> None:
    assert findings(matrix, example("cuda-803-driver-mismatch")) == {"SC103": Severity.ERROR}
    assert findings(matrix, example("cuda-222-unsupported-ptx")) == {"SC101": Severity.ERROR}


def test_an_xid_stated_outside_nvrm_is_read_unless_denied(matrix: Matrix) -> None:
    assert findings(matrix, example("xid-stated")) == {"SC1117": Severity.ERROR}
    assert findings(matrix, "dmesg shows no Xid 79 and no Xid 48 on this node.") == {}
    # An Xid the matrix names as usually the application's fault (13) is advice only.
    said = "XidCriticalError: Xid=13 on Device=GPU-0; marking device"
    assert findings(matrix, said) == {"SC1117": Severity.INFO}


def test_fallen_off_the_bus_once_whether_or_not_an_xid_line_says_it(matrix: Matrix) -> None:
    nvrm = [
        "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0",
        "               NVRM: (PCI ID: 10de:26b5) installed in this system has",
        "               NVRM: fallen off the bus and is not responding to commands.",
    ]
    report = check(read_report("\n".join(nvrm), "pasted").snapshot, matrix)
    assert [(f.id, f.severity) for f in report.findings] == [("SC1117", Severity.ERROR)]
    assert report.findings[0].message.startswith("A GPU: Xid 79")
    xid_line = "NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus."
    report = check(read_report(xid_line, "pasted").snapshot, matrix)
    assert [f.message.split(",")[0] for f in report.findings] == ["GPU 0000:44:00.0: Xid 79"]


def test_nvml_lost_gpu_is_an_error_unknown_error_a_warning(matrix: Matrix) -> None:
    assert findings(matrix, example("nvml-gpu-is-lost")) == {"SC1117": Severity.ERROR}
    unknown = example("nvidia-smi-device-handle-unknown")
    assert findings(matrix, unknown) == {"SC1117": Severity.WARNING}


def test_ray_on_tmp_is_a_warning_whatever_the_size(matrix: Matrix) -> None:
    assert findings(matrix, example("ray-object-store-tmp")) == {"SC501": Severity.WARNING}


def test_a_bus_error_with_ample_shm_is_only_noted(matrix: Matrix) -> None:
    bus_error = example("torch-dataloader-insufficient-shm")
    assert findings(matrix, bus_error) == {"SC502": Severity.ERROR}
    stated = "I use --ipc=host, so I have /dev/shm space of 254GB."
    assert findings(matrix, stated, bus_error) == {"SC502": Severity.INFO}
    small = "My /dev/shm size is 2G."
    assert findings(matrix, small, bus_error) == {"SC502": Severity.ERROR}


def test_container_cli_driver_timeout_warns_of_persistence_mode(matrix: Matrix) -> None:
    assert findings(matrix, example("container-cli-driver-timeout")) == {"SC1120": Severity.WARNING}


def test_a_failed_fabric_manager_service(matrix: Matrix) -> None:
    systemd = example("fabricmanager-service-failed")
    assert findings(matrix, systemd) == {"SC521": Severity.WARNING}
    # Where NVSwitches are shown, the fabric cannot come up: an error.
    assert findings(matrix, "instance type p4d.24xlarge", systemd)["SC521"] is Severity.ERROR
    # The service fails the same way on a machine without NVSwitches; the fabric manager says so.
    nothing = example("fabricmanager-no-nvswitch")
    assert "SC521" not in findings(matrix, systemd, nothing)
    # A sentence that asks or advises is not the service's state.
    advice = "Check whether the fabric manager is not running before you start the job."
    assert findings(matrix, advice) == {}


def test_an_old_gpu_is_named_and_a_newer_one_is_not_an_error(matrix: Matrix) -> None:
    too_old = example("torch-gpu-too-old")
    assert findings(matrix, too_old)["SC202"] is Severity.ERROR
    # PyTorch 2.8+ prints the same first line for a GPU newer than its range (GB10, 12.1),
    # which runs; without "too old" it is a GPU and its capability, not a failure.
    newer = [
        "UserWarning: Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.",
        "Minimum and Maximum cuda capability supported by this version of PyTorch is",
        "(8.0) - (12.0)",
    ]
    report = check(read_report("\n".join(newer), "pasted").snapshot, matrix)
    assert [f.id for f in report.findings if f.severity is not Severity.INFO] == []
    assert [(g.name, g.compute_capability) for g in report.snapshot.gpus.devices] == [
        ("NVIDIA GB10", "12.1")
    ]


def test_nccl_and_pytorch_shared_memory_failures(matrix: Matrix) -> None:
    assert findings(matrix, example("nccl-shm-extend")) == {"SC502": Severity.ERROR}
    assert findings(matrix, example("torch-shm-write-file")) == {"SC502": Severity.ERROR}


def test_psm3_cannot_register_memory(matrix: Matrix) -> None:
    assert findings(matrix, example("psm3-verbs-enomem")) == {"SC512": Severity.ERROR}


def test_an_uncorrectable_ecc_error_is_a_memory_error(matrix: Matrix) -> None:
    assert findings(matrix, example("cuda-214-ecc-uncorrectable")) == {"SC1116": Severity.ERROR}


def test_a_tensorflow_cudnn_older_than_its_build(matrix: Matrix) -> None:
    report = check(read_report(example("tf-cudnn-loaded-vs-compiled"), "pasted").snapshot, matrix)
    [finding] = report.findings
    assert (finding.id, finding.severity) == ("SC301", Severity.ERROR)
    assert "compiled against 8.9.4, loaded 8.7.0" in finding.message


def test_containers_that_get_no_gpu_from_the_runtime(matrix: Matrix) -> None:
    runtimes = ("docker-unknown-runtime-nvidia", "cdi-unresolvable-gpu")
    for message in runtimes:
        assert findings(matrix, example(message))["SC532"] is Severity.ERROR, message
    # nvidia-smi without its library says no driver, not that a GPU was meant to be there.
    assert findings(matrix, example("nvidia-smi-no-libnvml"))["SC532"] is Severity.WARNING


def test_the_ngc_driver_check(matrix: Matrix) -> None:
    ngc = [
        example("ngc-driver-release-too-old"),
        "       version 440.33.01 was detected and compatibility mode is UNAVAILABLE.",
        "",
        example("ngc-cuinit-code"),
    ]
    assert findings(matrix, *ngc) == {"SC101": Severity.ERROR, "SC104": Severity.ERROR}


def test_a_device_plugin_without_the_toolkit_sees_no_gpu(matrix: Matrix) -> None:
    assert findings(matrix, example("device-plugin-no-toolkit")) == {"SC532": Severity.ERROR}
