"""Triage readings of the driver against the CUDA that runs on it, and of CPU-only PyTorch builds,
from the eleventh split's reports (tests/data/reports, source cited there) and the other shapes
the same kinds of text take: error 35 where no driver was reached, an image's CUDA named in prose,
the container toolkit's unmet requirement, CUDA error 803 in NGC's banner, and an install said to
have put the CPU-only PyTorch in place."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report, signatures
from stackcheck.matrix import Matrix
from stackcheck.snapshot.model import ComponentName
from tests.corpus import body
from tests.support.pasted import findings, reads

_ERROR_35 = (
    "Error CUDA driver version is insufficient for CUDA runtime version at line 167 in file "
    "ops.cu\n"
)


def observed(text: str) -> set[str]:
    return {o.kind for o in read_report(text, "pasted").snapshot.observed}


def test_error_35_on_a_machine_with_only_an_intel_gpu_is_advice(matrix: Matrix) -> None:
    """1151: the CUDA runtime finds no driver where there is no NVIDIA GPU at all."""
    assert findings(matrix, body("1151")).get("SC101") is Severity.INFO
    for said in (
        "I'm using a integrated Intel GPU(iris xe graphics).",
        "My laptop only has Intel UHD Graphics 620.",
        "I am on an Intel HD Graphics 4000 notebook, so using Intel graphics.",
        "I have an AMD Radeon RX 6800.",
    ):
        assert findings(matrix, _ERROR_35 + said + "\n").get("SC101") is Severity.INFO, said
    # The message alone, or beside an NVIDIA GPU (a laptop has both), stays an error.
    assert findings(matrix, _ERROR_35).get("SC101") is Severity.ERROR
    both = "I'm using a laptop with Intel Iris Xe graphics and an NVIDIA GeForce MX450.\n"
    assert findings(matrix, _ERROR_35 + both).get("SC101") is Severity.ERROR


def test_error_35_where_the_driver_runs_the_images_cuda_is_advice(matrix: Matrix) -> None:
    """1182: driver 367.48 runs nvidia/cuda:7.5's CUDA; the error came from a build step that
    reached no driver. Where the driver is too old for the image's CUDA, it stays an error."""
    assert findings(matrix, body("1182")).get("SC101") is Severity.INFO
    older = body("1182").replace("`367.48`", "`340.29`")
    assert findings(matrix, older).get("SC101") is Severity.ERROR
    newer_image = body("1182").replace("nvidia/cuda:7.5-", "nvidia/cuda:9.0-")
    assert findings(matrix, newer_image).get("SC101") is Severity.ERROR


def test_an_nvidia_cuda_image_named_in_prose_gives_its_cuda() -> None:
    for said, cuda in (
        ("  * Base: `nvidia/cuda:7.5-cudnn5-devel-ubuntu14.04`", "7.5"),
        ("We run docker.io/nvidia/cuda:12.4.1-devel-ubuntu22.04 on the host.", "12.4"),
        ("Image: nvidia/cuda:10.0-base", "10.0"),
    ):
        snapshot = read_report(said + "\n", "pasted").snapshot
        found = [
            i.cuda
            for name in (ComponentName.CUDA_TOOLKIT, ComponentName.CUDA_RUNTIME)
            for i in snapshot.installations(name)
        ]
        assert found == [cuda], said
    for said in (
        "docker run --rm nvidia/cuda nvidia-smi",  # no tag: no CUDA
        "Try nvidia/cuda:12.4.1-devel-ubuntu22.04 instead.",  # a proposal
        "see https://hub.docker.com/r/nvidia/cuda:12.4.1-base",  # a URL's path
    ):
        snapshot = read_report(said + "\n", "pasted").snapshot
        assert not snapshot.installations(ComponentName.CUDA_TOOLKIT), said
        assert not snapshot.installations(ComponentName.CUDA_RUNTIME), said


def test_the_toolkits_unmet_alternative_means_the_driver_is_too_old(matrix: Matrix) -> None:
    """1190: `cuda>=10.0 brand=tesla,driver>=384,driver<385` is two alternatives; the hook names
    the last failed condition, so `brand = tesla` (or a driver bound) means cuda>=10.0 failed."""
    assert findings(matrix, body("1190")).get("SC101") is Severity.ERROR
    for condition in ("brand = tesla", "driver >= 384", "driver < 385", "brand = quadro"):
        line = f"nvidia-container-cli: requirement error: unsatisfied condition: {condition}\n"
        assert findings(matrix, line).get("SC101") is Severity.ERROR, condition
    # Another requirement error (a missing device, an arch) is not this one.
    other = "nvidia-container-cli: requirement error: unsatisfied condition: arch = sm_80\n"
    assert "SC101" not in findings(matrix, other)


def test_error_803_in_ngcs_banner_is_the_driver_mismatch(matrix: Matrix) -> None:
    """1127: NGC's entrypoint capitalises the message ("System has unsupported ...")."""
    assert findings(matrix, body("1127")).get("SC103") is Severity.ERROR
    for line in (
        "   [[ System has unsupported display driver / cuda driver combination (error 803) ]]",
        "Error 803: system has unsupported display driver / cuda driver combination",
    ):
        assert findings(matrix, line + "\n").get("SC103") is Severity.ERROR, line


def test_an_install_said_to_put_the_cpu_build_in_place(matrix: Matrix) -> None:
    """1128 and 1147: the reporter states the CPU-only PyTorch an install brought."""
    assert findings(matrix, body("1128")).get("SC201") is Severity.ERROR
    assert findings(matrix, body("1147")).get("SC201") is Severity.ERROR
    for said in (
        "Installing lightning changes my pytorch version from cuda118 to cpu.",
        "I ended up with pytorch-cpu and torch does not recognise my GPUs",
        "for some people when installing pytorch it installs the cpu only version",
        "pip installed the CPU version of torch over my cu121 build.",
        "conda picked the cpu build of pytorch.",
        "The update replaced torch 2.1.0+cu121 with the CPU wheel.",
    ):
        assert "torch-cpu-only" in observed(said + "\n"), said
    for said in (
        "How do I stop pip from installing the cpu version?",
        "Does conda install the cpu build by default?",
        "If pip installs the CPU version, reinstall from the cu121 index.",
        "I changed the device to cpu.",
        "We switched to CPU inference.",
    ):
        assert "torch-cpu-only" not in observed(said + "\n"), said


def test_pytorchs_cuda_checkpoint_on_a_process_without_cuda() -> None:
    line = (
        "RuntimeError: Attempting to deserialize object on a CUDA device but "
        "torch.cuda.is_available() is False. If you are running on a CPU-only machine, please "
        "use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.\n"
    )
    kinds = observed(line)
    assert "cuda-unavailable" in kinds and "cpu-intended" not in kinds


def test_this_rounds_catalogue_entries_are_screened_by_words() -> None:
    entries = {s.id: s for s in signatures.catalogue()}
    for name in ("container-cli-requirement-alternative", "torch-deserialize-cuda-unavailable"):
        needles = entries[name].needles
        assert needles and all(any(not c.isdigit() for c in n) for n in needles), name


def test_a_driver_note_that_the_branch_dropped_the_gpu(matrix: Matrix) -> None:
    """1119: the cloud's note that its driver no longer supports the K80, and the K80's last
    branch, quoted in a report; the same notes for the branches after R580."""
    assert findings(matrix, body("1119")).get("SC1406") is Severity.ERROR
    read = (
        "The latest NVIDIA driver version does not support K80 GPUs.",
        "Reason: K80 requires nvidia-driver version to be <=470.",
        "Driver 590 no longer supports Pascal, so the P100 nodes fail.",
        "the R590 driver does not support the Tesla V100",
        "Tesla K40 needs driver <= 470",
    )
    not_read = (
        "Does the latest driver support K80 GPUs?",
        "If the driver does not support the K80, use R470.",
        "The driver does not support MIG on this GPU.",
    )
    reads(matrix, "SC1406", Severity.ERROR, read, not_read)


def test_the_reporters_driver_called_old_beside_the_cuda_built_with(matrix: Matrix) -> None:
    """1155: "compiled using 12.6.3 ... my driver version is archaic": the reporter's word, a
    warning, where the text's versions do not settle it."""
    assert findings(matrix, body("1155")).get("SC101") is Severity.WARNING
    read = (
        "I built it with CUDA 12.8 but my driver is outdated (535.104.05).",
        "The host driver is too old for the cu128 wheel.",
        "Our driver version is quite old, the image has CUDA 12.4.",
    )
    not_read = (
        "My driver is old, is that a problem for CUDA 12.4?",
        "If your driver is old, install the cu118 build.",
        "My driver is not old: 550.54, built with CUDA 12.4.",
        "My driver is outdated.",  # nothing said of the CUDA it runs
    )
    reads(matrix, "SC101", Severity.WARNING, read, not_read)


def test_more_ways_to_say_an_install_brought_the_cpu_build() -> None:
    for said in (
        "Running the setup script, it installs torch for CPU.",
        "pip安装的是cpu版本，所以cuda不可用",  # noqa: RUF001
        "requirements里的torch默认是CPU版本",
        "装完之后torch变成了cpu版",
    ):
        assert "torch-cpu-only" in observed(said + "\n"), said
    for said in ("我想装cpu版本吗？", "CPU版本的torch在哪里下载"):  # noqa: RUF001
        assert "torch-cpu-only" not in observed(said + "\n"), said


def test_error_35_in_a_dockerfile_run_step_is_advice(matrix: Matrix) -> None:
    """The build step gets no driver: error 35 there says nothing of the host's driver."""
    for said in (
        "I am running this inside docker build.",
        "The script is called in a RUN step of the Dockerfile.",
        "It fails in the Dockerfile's RUN instruction but works with CMD.",
    ):
        assert findings(matrix, _ERROR_35 + said + "\n").get("SC101") is Severity.INFO, said
    run_word = "We run the job in a run step of our pipeline.\n"  # "run", not Docker's RUN
    assert findings(matrix, _ERROR_35 + run_word).get("SC101") is Severity.ERROR


def test_a_docker_build_step_reaches_no_driver_but_the_toolkits_verdict_stands(
    matrix: Matrix,
) -> None:
    """Error 35 under a build step's header is advice; the container toolkit's requirement
    error under one (100: the daemon's default runtime was nvidia) read the driver: an error."""
    for header in (
        "Step 5/9 : RUN python3 -c 'import torch; torch.zeros(1).cuda()'",
        "#8 [4/6] RUN th neural_style.lua -gpu 0",
        "#12 [builder 3/7] RUN python setup.py install",
    ):
        text = f"{header}\n{_ERROR_35}"
        assert findings(matrix, text).get("SC101") is Severity.INFO, header
    assert findings(matrix, body("100")).get("SC101") is Severity.ERROR
    ngc = "ERROR: This container was built for NVIDIA Driver Release 530.30 or later, but\n"
    assert findings(matrix, f"Step 2/3 : RUN nvidia-smi\n{ngc}").get("SC101") is Severity.ERROR


def test_a_cpu_build_beside_the_cuda_runtime_wheel_a_cuda_build_brought(matrix: Matrix) -> None:
    """pip installs nvidia-cuda-runtime-cu12 only with a CUDA PyTorch wheel: a +cpu torch beside
    it was put there over the CUDA build (the 1128 kind), as beside conda's cudatoolkit."""
    listing = (
        "Versions of relevant libraries:\n"
        "[pip3] numpy==1.26.4\n"
        "[pip3] nvidia-cuda-runtime-cu12==12.1.105\n"
        "[pip3] nvidia-cudnn-cu12==8.9.2.26\n"
        "[pip3] torch==2.4.0+cpu\n"
    )
    assert findings(matrix, listing).get("SC201") is Severity.WARNING
    without = listing.replace("[pip3] nvidia-cuda-runtime-cu12==12.1.105\n", "")
    assert "SC201" not in findings(matrix, without)


def test_the_drivers_cuda_alone_against_what_runs_on_it(matrix: Matrix) -> None:
    """nvidia-smi's `CUDA Version` said without the driver's version: beyond its major, or
    above it before CUDA 11, the driver cannot run the build; within a major from 11 on it can."""
    too_old = (
        "nvidia-smi shows CUDA Version: 11.4 and I installed torch 2.1.0+cu121",
        "nvidia-smi shows CUDA Version: 10.1 and I installed torch 1.6.0+cu102",
    )
    for said in too_old:
        assert findings(matrix, said + "\n").get("SC101") is Severity.ERROR, said
    fits = "nvidia-smi shows CUDA Version: 12.2 and I installed torch 2.4.0+cu124\n"
    assert "SC101" not in findings(matrix, fits)
    # A CUDA said without its owner is not the driver's.
    assert "SC101" not in findings(matrix, "- CUDA Version: 11.4\n- torch: 2.1.0+cu121\n")


def test_conda_superseding_a_cuda_pytorch_with_a_cpu_build(matrix: Matrix) -> None:
    """conda's change rows (ContinuumIO/anaconda-issues#12302's SUPERSEDED row) and conda info's
    `__cuda` virtual package, which says a driver is installed: SC201 on that host."""
    superseded = (
        "The following packages will be SUPERSEDED by a higher-priority channel:\n"
        "  pytorch            pytorch::pytorch-1.7.1-py3.8_cuda10.2~ --> "
        "pkgs/main::pytorch-1.7.1-cpu_py38h6a09485_0\n"
    )
    driver = "       virtual packages : __cuda=10.2=0\n"
    assert findings(matrix, superseded + driver).get("SC201") is Severity.ERROR
    assert "SC201" not in findings(matrix, superseded)  # no GPU or driver shown
    downgraded = (
        "The following packages will be DOWNGRADED:\n"
        "  pytorch                     2.0.1-py3.10_cuda11.8_cudnn8.7.0_0 --> 2.0.1-py3.10_cpu_0\n"
    )
    assert findings(matrix, downgraded + driver).get("SC201") is Severity.ERROR
    # The other way round (a CPU build replaced by a CUDA one) is no CPU build.
    upgraded = (
        "  pytorch            pkgs/main::pytorch-1.7.1-cpu_py38h6a09485_0 --> "
        "pytorch::pytorch-1.7.1-py3.8_cuda10.2_cudnn7.6.5_0\n"
    )
    assert "SC201" not in findings(matrix, upgraded + driver)
    snapshot = read_report(driver, "pasted").snapshot
    assert [i.cuda for i in snapshot.installations(ComponentName.DRIVER)] == ["10.2"]


def test_autocast_finding_no_cuda_beside_a_cpu_build(matrix: Matrix) -> None:
    warned = (
        "autocast_mode.py:204: UserWarning: User provided device_type of 'cuda', but CUDA is "
        "not available. Disabling\n"
    )
    assert "cuda-unavailable" in observed(warned)
    assert findings(matrix, warned) == {}  # the program's probe alone: no finding
    assert findings(matrix, warned + "torch 2.0.1+cpu\n").get("SC201") is Severity.WARNING


def test_the_pytorch_installed_named_by_its_cpu_local_version() -> None:
    """056: the sentence names the +cpu wheel installed; read, though with no GPU shown it is
    no finding (the report's GPU is only in its title)."""
    for said, version in (
        ("Note that the PyTorch wheel for 2.9.1+cpu has been installed.", "2.9.1"),
        ("torch version: 2.3.0+cpu", "2.3.0"),
        ("PyTorch is 2.1.2+cpu here", "2.1.2"),
    ):
        snapshot = read_report(said + "\n", "pasted").snapshot
        torch = snapshot.installations(ComponentName.TORCH)
        read = [((t.version or "").split("+")[0], t.properties.get("cpu_only")) for t in torch]
        assert read == [(version, "yes")], said
    snapshot = read_report("torchvision 0.16.0+cpu\n", "pasted").snapshot
    assert all(t.version != "0.16.0" for t in snapshot.installations(ComponentName.TORCH))
