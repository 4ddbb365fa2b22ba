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
from tests.test_triage_gpu_stack import findings

BANNER = (
    "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
    "   Use 'nvidia-docker run' to start this container; see\n"
    "   https://github.com/NVIDIA/nvidia-docker/wiki/nvidia-docker .\n"
)


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
        "I use docker 19.03.12 on Ubuntu 18.04.",
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
        "Docker version 24.0.7, build afdd53b",  # the toolkit's setup registers the runtime
        "I use docker 20.10.7 on Ubuntu 20.04.",
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


def test_the_kernel_module_against_the_driver_packages_listed(matrix: Matrix) -> None:
    """952 (machine-shop-maintenance#70): /proc/driver/nvidia/version 520.56.06 beside
    `dpkg -l nvidia-smi` 525.85.12: the user space was upgraded, the module was not reloaded."""
    assert findings(matrix, body("952")).get("SC103") is Severity.ERROR
    proc = (
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n\n"
    )
    dpkg = (
        "||/ Name           Version      Architecture Description\n"
        "+++-==============-============-============-=================================\n"
    )
    for row in (
        "ii  nvidia-smi     525.85.12-1  amd64        NVIDIA System Management Interface",
        "ii  libnvidia-compute-550:amd64 550.54.15-0ubuntu1 amd64 NVIDIA libcompute package",
        "ii  libcuda1:amd64 525.85.12-1  amd64        NVIDIA CUDA Driver Library",
    ):
        assert findings(matrix, proc + dpkg + row).get("SC103") is Severity.ERROR, row
    rpm = "xorg-x11-drv-nvidia-cuda-libs-525.85.05-1.fc37.x86_64"
    assert findings(matrix, proc + rpm).get("SC103") is Severity.ERROR
    # The same release in both: nothing.
    same = "ii  nvidia-utils-535 535.104.05-0ubuntu1 amd64 NVIDIA driver support binaries"
    assert "SC103" not in findings(matrix, proc + dpkg + same)


def test_the_driver_mismatch_said_in_chinese(matrix: Matrix) -> None:
    """982 (DockerMonitor#12): 驱动不一致 (the driver is inconsistent) after ldconfig relinked."""
    assert findings(matrix, body("982")) == {"SC103": Severity.ERROR}
    for said in ("nvidia-smi 报驱动版本不一致", "提示驱动和库版本不匹配"):
        assert findings(matrix, said) == {"SC103": Severity.ERROR}, said
    for asked in ("是否驱动不一致\uff1f", "会不会是驱动不一致吗"):
        assert findings(matrix, asked) == {}, asked


def test_nvidia_docker_1_beta_unsupported_cuda(matrix: Matrix) -> None:
    """939 (nvidia-docker#68): the image's CUDA first, then the driver's."""
    assert findings(matrix, body("939")).get("SC101") is Severity.ERROR
    line = "nvidia-docker | 2016/04/09 00:07:59 Error: unsupported CUDA version: 8.0 < 7.5"
    assert findings(matrix, line).get("SC101") is Severity.ERROR


def test_nvidia_smi_said_to_work_in_the_container(matrix: Matrix) -> None:
    """988 (stable-diffusion-webui-docker#348): nvidia-smi works inside, CUDA is unavailable:
    the container did get the GPU, so no missing GPU request is claimed."""
    assert "SC531" not in findings(matrix, body("988"))
    base = "I run it in a docker container.\n>>> torch.cuda.is_available()\nFalse\n"
    assert findings(matrix, base).get("SC531") is Severity.WARNING
    for said in ("nvidia-smi works fine inside the container.", "nvidia-smi shows all 4 GPUs."):
        assert "SC531" not in findings(matrix, base + said), said
    for said in ("nvidia-smi works on the host.", "Does nvidia-smi work?"):
        assert findings(matrix, base + said).get("SC531") is Severity.WARNING, said


def test_a_privileged_pod_said_to_see_more_gpus(matrix: Matrix) -> None:
    """971 (k8s-device-plugin#161): `privileged: true` pasted alone, and "if you remove this
    field, you can only see the limited number of graphics cards"."""
    assert findings(matrix, body("971")) == {"SC1324": Severity.WARNING}
    said = (
        "securityContext:\n  privileged: true\nWithout it the pod can only see the allocated GPUs."
    )
    assert findings(matrix, said) == {"SC1324": Severity.WARNING}


def test_a_partitioned_a100_is_mig(matrix: Matrix) -> None:
    """986 (megalodon): "any partitioned Nvidia A100 card" and CUDA_ERROR_NO_DEVICE."""
    assert findings(matrix, body("986")).get("SC1121") is Severity.WARNING
    for said in ("We run on a partitioned A100.", "the partitioned NVIDIA H100 nodes"):
        assert findings(matrix, said).get("SC1121") is Severity.WARNING, said
    assert "SC1121" not in findings(matrix, "a partitioned disk on the RTX 3090 box")


def test_compose_output_says_the_process_ran_in_a_container(matrix: Matrix) -> None:
    """991 (stable-diffusion-webui-docker): `Attaching to NAME` and v2's `⠿ Container NAME
    Running` are Compose's own lines once the containers run; recognised, and no finding."""
    snapshot = read_report(body("991"), "pasted").snapshot
    assert snapshot.platform.container
    assert findings(matrix, body("991")) == {}
    for line in ("Attaching to web-1, worker-1", "\u2714 Container app-gpu-1  Started"):
        assert read_report(line, "pasted").snapshot.platform.container, line
    for prose in ("I was attaching to the debugger.", "docker compose up -d fails"):
        assert not read_report(prose, "pasted").snapshot.platform.container, prose


def test_nccl_without_the_gpus_kernels(matrix: Matrix) -> None:
    """903 (nccl#1372): an NCCL built for sm_80 only on H100, and 904 (an RTX 5090 with a
    cu118 build's NCCL): `Cuda failure 'named symbol not found'` under lazy loading."""
    for key in ("903", "904"):
        assert findings(matrix, body(key)).get("SC202") is Severity.ERROR, key
    for line in (
        "node1:1:1 [0] enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'",
        "node1:1:1 [0] init.cc:1200 NCCL WARN Cuda failure 500 'named symbol not found'",
        "  NCCL WARN Cuda failure 'named symbol not found'",
    ):
        assert findings(matrix, line).get("SC202") is Severity.ERROR, line
    # CUDA's own error 500 at device count (WSL, Docker Desktop) is not NCCL's kernels.
    other = "Error 500: named symbol not found"
    assert "SC202" not in findings(matrix, other)


def test_a_gpu_the_matrix_lacks_takes_its_first_cuda_from_its_capability(
    matrix: Matrix,
) -> None:
    """946 (DINet): torch==1.7.1+cu101 on an RTX 3090 (sm_86, first in CUDA 11.1). With the
    3090 taken out of the matrix, the A10G, also sm_86, gives its first CUDA; with it listed,
    its own row does: the same answer either way."""
    lacking = matrix.model_copy(
        update={"gpu": [g for g in matrix.gpu if not any("3090" in n for n in (g.name, *g.match))]}
    )
    assert len(lacking.gpu) < len(matrix.gpu)
    newer = "I have a RTX 3090 graphics card. I installed torch==1.8.1+cu111."
    for known in (lacking, matrix):
        assert findings(known, body("946")).get("SC202") is Severity.WARNING
        assert "SC202" not in findings(known, newer)


def test_an_image_that_predates_the_gpu(matrix: Matrix) -> None:
    """NGC's per-GPU check (BEVDet#314 and the messages' other shapes): the image's build lists
    no architecture of the GPU; a warning of the gpu-arch family, not a GPU missing."""
    for text in (
        "WARNING: Detected NVIDIA NVIDIA GeForce RTX 4090 GPU, which is not yet supported in "
        "this version of the container\nERROR: No supported GPU(s) detected to run this container",
        "triton-1  | WARNING: Detected NVIDIA NVIDIA GeForce RTX 4060 Laptop GPU GPU, which is "
        "not yet supported in this version of the container",
        "WARNING: Detected NVIDIA GB10 GPU, which is not yet supported in this version of the "
        "container",
        "ERROR: No supported GPU(s) detected to run this container",
    ):
        assert findings(matrix, text) == {"SC202": Severity.WARNING}, text


def test_the_drivers_own_library_missing(matrix: Matrix) -> None:
    """pytorch#2985 (`import torch` in a container started without nvidia-docker): the driver's
    user-space libcuda.so.1 or libnvidia-ml.so.1 not found is no driver where the process runs:
    an error where the text shows the GPU was meant to be there (a container, a GPU named), a
    warning where it shows nothing of the machine (any CPU machine prints it too); TensorFlow's
    probe printing it (Chiron#99) is advice where no GPU is shown."""
    for line in (
        "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory",
        "OSError: libnvidia-ml.so.1: cannot open shared object file: No such file or directory",
    ):
        assert findings(matrix, line) == {"SC532": Severity.WARNING}, line
        smi = f"{line}\n| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |"
        assert findings(matrix, smi).get("SC532") is Severity.ERROR, line
        cpu = f"{line}\nI don't have an NVIDIA GPU on this laptop."
        assert findings(matrix, cpu) == {"SC532": Severity.INFO}, line
    for probe in (
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic "
        "library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such "
        "file or directory",
        "I tensorflow/stream_executor/dso_loader.cc:105] Couldn't open CUDA library libcuda.so.1. "
        "LD_LIBRARY_PATH: /usr/local/cuda/lib64",
    ):
        assert findings(matrix, probe) == {"SC532": Severity.INFO}, probe
    # The unversioned libcuda.so (the toolkit's stub, a linker's name) is not the driver's.
    assert "SC532" not in findings(matrix, "libcuda.so: cannot open shared object file")


def test_tensorflows_kernel_and_dso_versions_disagree(matrix: Matrix) -> None:
    """tensorflow#4768: the kernel module 352.63 against libcuda 361.93.2; when they match,
    TensorFlow says `kernel version seems to match DSO` and nothing is read."""
    mismatch = (
        "E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:296] kernel version 352.63.0 does "
        "not match DSO version 361.93.2 -- cannot find working devices in this configuration"
    )
    assert findings(matrix, mismatch) == {"SC103": Severity.ERROR}
    match = (
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:310] kernel version seems to "
        "match DSO: 515.43.4"
    )
    assert "SC103" not in findings(matrix, match)


def test_a_gpu_requested_as_a_cdi_device(matrix: Matrix) -> None:
    """podman's (and Docker 25+'s) CDI request `--device nvidia.com/gpu=all` is a GPU request:
    no "requests no GPU" claim; each indexed device counts one GPU."""
    every = read_report(
        "podman run --rm --device nvidia.com/gpu=all nvidia/cuda:12.4.1-base-ubuntu22.04 "
        "nvidia-smi",
        "pasted",
    ).snapshot.run_specs[0]
    assert (every.gpus, every.gpu_count) == ("nvidia.com/gpu=all", None)
    two = read_report(
        "podman run --device nvidia.com/gpu=0 --device nvidia.com/gpu=1 --ipc=host "
        "vllm/vllm-openai:latest --tensor-parallel-size 4",
        "pasted",
    )
    assert two.snapshot.run_specs[0].gpu_count == 2
    assert check(two.snapshot, matrix).findings[0].id == "SC533"  # 2 GPUs for 4
    failed = (
        "$ docker run --rm --ipc=host --device nvidia.com/gpu=all nvcr.io/nvidia/pytorch:24.01-py3"
        "\nRuntimeError: No CUDA GPUs are available"
    )
    assert "SC531" not in findings(matrix, failed)


def test_compose_gpus_as_cdi_names_and_block_lists() -> None:
    """A compose service's GPUs as CDI names under `devices:` and as a block `device_ids:`
    list (one item a line): requested, and counted, not a reservation of zero GPUs."""
    head = "services:\n  app:\n    image: vllm/vllm-openai:latest\n"
    reservation = "    deploy:\n      resources:\n        reservations:\n          devices:\n"
    cases = {
        "    devices:\n      - nvidia.com/gpu=all\n": None,
        reservation
        + '            - driver: nvidia\n              device_ids:\n                - "0"\n'
        + '                - "1"\n              capabilities: [gpu]\n': 2,
        reservation
        + "            - driver: cdi\n              device_ids:\n"
        + "                - nvidia.com/gpu=all\n              capabilities: [gpu]\n": None,
        reservation
        + "            - driver: cdi\n              device_ids: ['nvidia.com/gpu=all']\n"
        "              capabilities: [gpu]\n": None,
        # All of them, then one more: still all (as `docker run` reads two --device flags).
        "    devices:\n      - nvidia.com/gpu=all\n      - nvidia.com/gpu=0\n": None,
        "    devices:\n      - nvidia.com/gpu=0\n      - nvidia.com/gpu=1\n": 2,
    }
    for body_, count in cases.items():
        spec = read_report(head + body_, "pasted").snapshot.run_specs[0]
        assert spec.gpus and (spec.gpu_count == count), (body_, spec.gpus, spec.gpu_count)


def test_a_pod_asking_for_a_mig_instance_or_a_shared_gpu(matrix: Matrix) -> None:
    """The device plugin's other GPU resources, a MIG instance (`nvidia.com/mig-1g.10gb`, the
    mixed strategy) and a shared GPU (`nvidia.com/gpu.shared`), are GPU requests."""
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n"
        "    image: nvcr.io/nvidia/pytorch:24.01-py3\n    resources:\n      limits:\n"
    )
    for limit in ("nvidia.com/mig-1g.10gb: 1", "nvidia.com/gpu.shared: 1"):
        spec = read_report(f"{pod}        {limit}\n", "pasted").snapshot.run_specs[0]
        assert (spec.gpus, spec.gpu_count) == (limit, 1), limit
        failed = f"{pod}        {limit}\nRuntimeError: No CUDA GPUs are available"
        assert "SC531" not in findings(matrix, failed), limit
    other = read_report(f"{pod}        nvidia.com/foo: 1\n", "pasted").snapshot.run_specs[0]
    assert other.gpus is None


def test_wsl_refusing_the_gpu(matrix: Matrix) -> None:
    """microsoft/WSL#9938: NVML in the WSL2 guest, the GPU not passed through."""
    said = (
        "Failed to initialize NVML: GPU access blocked by the operating system\n"
        "Failed to properly shut down NVML: GPU access blocked by the operating system"
    )
    assert findings(matrix, said) == {"SC532": Severity.ERROR}


def test_mig_stated_beside_a_contrasting_clause(matrix: Matrix) -> None:
    """Doubt counts in the clause that states MIG: "enabled ... but no GPU instance" is MIG on
    (the instance missing is the problem); a denial or a condition in its own clause is not."""
    said = "MIG mode is enabled on the A100 but no GPU instance has been created."
    assert findings(matrix, said) == {"SC1121": Severity.WARNING}
    for denied in (
        "MIG is not enabled, but the job fails.",
        "If MIG is enabled, but no instance exists, it fails.",
        "Is MIG enabled on this node, or not?",
    ):
        assert findings(matrix, denied) == {}, denied


def test_a_tools_conditional_hint_is_not_the_reporters_machine(matrix: Matrix) -> None:
    """PyTorch's torch.load hint "If you are running on a CPU-only machine, please use ..." is a
    condition the tool prints on every machine, not the reporter saying theirs has no GPU."""
    hint = (
        "RuntimeError: Attempting to deserialize object on a CUDA device but "
        "torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use "
        "torch.load with map_location=torch.device('cpu') to map your storages to the CPU."
    )
    assert not read_report(hint, "pasted").snapshot.observations("cpu-intended")
    said = read_report("I am running this on a CPU-only machine.", "pasted").snapshot
    assert said.observations("cpu-intended")
