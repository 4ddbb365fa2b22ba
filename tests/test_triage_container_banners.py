"""Container and machine readings where a message alone would over-claim: an image's start-up
banner, Docker's refusal of the legacy nvidia runtime, a macOS that has no CUDA driver. Each on
the real text of a corpus report (tests/data/reports, source cited there) and on the other
shapes the same kind of text takes, independent of the corpus's expectations."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body

BANNER = (
    "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
    "   Use 'nvidia-docker run' to start this container; see\n"
    "   https://github.com/NVIDIA/nvidia-docker/wiki/nvidia-docker .\n"
)


def findings(matrix: Matrix, text: str) -> dict[str, Severity]:
    report = check(read_report(text, "pasted").snapshot, matrix)
    return {f.id: f.severity for f in report.findings}


def test_an_image_banner_in_a_container_started_with_gpus_is_advice(matrix: Matrix) -> None:
    """976 (nvidia-docker#1548): NGC's banner on WSL2 after `docker run --gpus all`."""
    assert findings(matrix, body("976")) == {"SC532": Severity.INFO}
    for command in (
        "docker run --gpus all --ipc=host --rm nvcr.io/nvidia/pytorch:23.10-py3",
        "docker run --gpus '\"device=0\"' --shm-size=8g nvcr.io/nvidia/tensorflow:20.03-tf2-py3",
        "docker run --runtime=nvidia --ipc=host -it nvcr.io/nvidia/pytorch:19.10-py3",
    ):
        assert findings(matrix, f"$ {command}\n{BANNER}") == {"SC532": Severity.INFO}, command


def test_an_image_banner_without_a_gpu_request_stays_an_error(matrix: Matrix) -> None:
    """975 (nvidia-docker#1071): the same banner where no GPU was requested."""
    assert findings(matrix, body("975")).get("SC532") is Severity.ERROR
    assert findings(matrix, BANNER) == {"SC532": Severity.ERROR}
    # A run line without a GPU request is the cause SC531 names.
    plain = f"$ docker run -it --ipc=host nvcr.io/nvidia/pytorch:23.10-py3\n{BANNER}"
    assert findings(matrix, plain).get("SC531") is Severity.ERROR


def test_the_banner_hint_names_a_command_it_does_not_run() -> None:
    """ "Use 'nvidia-docker run' to start this container" is no container spec (it gave one with
    no /dev/shm size, hence a false SC501)."""
    assert not read_report(BANNER, "pasted").snapshot.run_specs
    for quoted in (
        "Use 'docker run' here.",
        "Try \u201cdocker run\u201d instead.",
        'a "podman run"',
    ):
        assert not read_report(quoted, "pasted").snapshot.run_specs, quoted


def test_the_legacy_runtime_flag_on_docker_1903_is_advice(matrix: Matrix) -> None:
    """974 (nvidia-docker#1065): `--runtime=nvidia` refused on Docker 19.03 with the toolkit."""
    assert findings(matrix, body("974")) == {"SC532": Severity.INFO}
    refused = "docker: Error response from daemon: Unknown runtime specified nvidia.\n"
    flag = "$ docker run --runtime=nvidia --rm nvidia/cuda nvidia-smi\n"
    for version in (
        "Docker version 19.03.1, build 74b1e89",
        "Docker version 24.0.7, build afdd53b",
        "I use docker 20.10.7 on Ubuntu 20.04.",
        "docker-ce 19.03.2 is installed",
    ):
        assert findings(matrix, f"{version}\n{flag}{refused}") == {"SC532": Severity.INFO}, version


def test_the_nvidia_runtime_refused_stays_an_error_where_nothing_explains_it(
    matrix: Matrix,
) -> None:
    """379, 380 and 381: the runtime unknown without a Docker version, on Docker 18, or where
    `--gpus` was given too (the toolkit itself is missing)."""
    for key in ("379", "380", "381"):
        assert findings(matrix, body(key)).get("SC532") is Severity.ERROR, key
    refused = "docker: Error response from daemon: Unknown runtime specified nvidia.\n"
    flag = "$ docker run --runtime=nvidia --rm nvidia/cuda nvidia-smi\n"
    for version in (
        "",
        "Docker version 18.09.7, build 2d0083d",
        "This needs Docker 19.03 or later.",
        "It requires docker 19.03.",
    ):
        said = f"{version}\n{flag}{refused}"
        assert findings(matrix, said).get("SC532") is Severity.ERROR, version
    both = "Docker version 24.0.7, build afdd53b\n$ docker run --gpus all --runtime=nvidia x/y:1\n"
    assert findings(matrix, both + refused).get("SC532") is Severity.ERROR


def test_a_macos_without_a_cuda_driver_is_a_cpu_machine(matrix: Matrix) -> None:
    """951 (ChatGLM-6B#549): `- OS: mac 13.0` beside "Torch not compiled with CUDA enabled"."""
    assert findings(matrix, body("951")) == {"SC201": Severity.INFO}
    message = "AssertionError: Torch not compiled with CUDA enabled\n"
    assert findings(matrix, message) == {"SC201": Severity.ERROR}
    for said in (
        "- OS: mac 13.0",
        "OS: macOS 14.2.1 (arm64)",
        "- Platform: macOS-14.4.1-arm64-arm-64bit",
        "Python platform: macOS-13.2.1-arm64-arm-64bit",
        "OS: Mac OS X 10.15.7",
        "OS\uff1amacOS 12.6",  # a full-width colon, as Chinese templates write it
    ):
        assert findings(matrix, message + said) == {"SC201": Severity.INFO}, said
    # macOS up to 10.13 had NVIDIA's web drivers and CUDA 10.2: no reading there.
    for said in ("OS: Mac OS X 10.13.6", "OS: macOS 10.12", "My macOS 14 laptop"):
        assert findings(matrix, message + said) == {"SC201": Severity.ERROR}, said
