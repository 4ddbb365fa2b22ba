"""Triage readings of Triton Inference Server's Python backend running out of /dev/shm, of PTX
newer than the ptxas (or the driver's JIT) that assembles it, and of the CUDA toolkit's stub
libcuda.so at run time, from the seventeenth split's reports (tests/data/reports, source cited
there) and the other shapes the same kinds of text take in the tools' sources."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.snapshot.model import ComponentName
from tests.support.pasted import findings, observed


def sorts(kind: str, read: tuple[str, ...], not_read: tuple[str, ...]) -> None:
    """Each line of ``read`` gives the observation ``kind``; none of ``not_read`` does."""
    for said in read:
        assert kind in observed(said + "\n"), said
    for said in not_read:
        assert kind not in observed(said + "\n"), said


def test_python_backend_shm_messages_of_each_release_are_shm_exhausted(matrix: Matrix) -> None:
    """python_backend's shm_manager.cc: the region's first size (64MBs in 21.x-22.x, 1 MB
    later), its growth with and without the key, and CMS SONIC's client words for the same
    ftruncate (triton-inference-server/model_analyzer#749, server#5681)."""
    for said in (
        "Internal: Unable to initialize shared memory key 'triton_python_backend_shm_region_3' "
        "to requested size (67108864 bytes). If you are running Triton inside docker, use "
        "'--shm-size' flag to control the shared memory region size. Each Python backend model "
        "instance requires at least 64MBs of shared memory. Error: No space left on device",
        "Unable to initialize shared memory key 'triton_python_backend_shm_region_1' to "
        "requested size (1048576 bytes). Each Python backend model instance requires at least "
        "1 MB of shared memory. Error: No space left on device",
        "TritonError: unable to initialize shared memory key triton_input_shm_1 to requested "
        "size: 4194304",
        "tritonclient.utils.InferenceServerException: Failed to increase the shared memory pool "
        "size for key 'triton_python_backend_shm_region_2' to 67108864 bytes. If you are running "
        "Triton inside docker, use '--shm-size' flag to control the shared memory region size. "
        "Error: No space left on device",
        "Failed to increase the shared memory pool size to 134217728 bytes. Error: No space left "
        "on device",
    ):
        assert findings(matrix, said + "\n").get("SC502") is Severity.ERROR, said
    # A question about the flag names no failure.
    assert "shm-exhausted" not in observed("How do I set the shared memory pool size?\n")


def test_a_full_dev_shm_in_df_is_shm_exhausted_and_a_roomy_one_is_not(matrix: Matrix) -> None:
    """df's Use% at 100% on /dev/shm: the tmpfs is full (server#3678); 13% is not."""
    header = "Filesystem      Size  Used Avail Use% Mounted on\n"
    full = header + "shm  64M   64M     0 100% /dev/shm\n"
    assert observed(full).get("shm-exhausted") == "shm  64M   64M     0 100% /dev/shm"
    assert findings(matrix, full).get("SC502") is Severity.ERROR
    roomy = header + "shm  1.0G  128M  896M  13% /dev/shm\n"
    assert "shm-exhausted" not in observed(roomy)
    assert "SC502" not in findings(matrix, roomy)


def test_a_full_row_whose_size_does_not_read_leaves_the_next_rows_size(matrix: Matrix) -> None:
    """A full /dev/shm row with a size df never prints still says the tmpfs is full, and the
    size comes from the next /dev/shm row that reads."""
    text = (
        "Filesystem      Size  Used Avail Use% Mounted on\n"
        "shm  6.4.1M  6.4.1M     0 100% /dev/shm\n"
        "tmpfs  1.0G  128M  896M  13% /dev/shm\n"
    )
    snapshot = read_report(text, "pasted").snapshot
    assert snapshot.runtime.shm_bytes == 1 << 30
    assert "shm-exhausted" in observed(text)


def test_ptxas_older_than_the_ptx_is_an_error_unless_triton_derived_the_isa(
    matrix: Matrix,
) -> None:
    """A ptxas refusing PTX of a newer ISA: an older toolkit's ptxas (Triton 1.x, triton#1246)
    is an error; under Triton 2.0+'s wrapper, which derives the ISA from the ptxas it runs,
    advice (triton#4576); the same or an older ISA names nothing."""
    old_ptxas = (
        "ptxas /tmp/triton_k_90kFja, line 5; fatal   : Unsupported .version 7.3; current "
        "version is '7.2'\nptxas fatal   : Ptx assembly aborted due to errors\n"
    )
    assert observed(old_ptxas)["ptx-newer-than-ptxas"] == (
        "7.3 7.2 Unsupported .version 7.3; current version is '7.2'"
    )
    assert findings(matrix, old_ptxas).get("SC203") is Severity.ERROR
    nvcc = "ptxas fatal   : Unsupported .version 8.0; current version is '7.8'\n"
    assert findings(matrix, nvcc).get("SC203") is Severity.ERROR
    # PTX ISA 7.10 is newer than 7.9: compared as versions, not as decimals.
    assert findings(matrix, nvcc.replace("8.0", "7.10").replace("7.8", "7.9")).get("SC203") is (
        Severity.ERROR
    )
    triton = "RuntimeError: Internal Triton PTX codegen error:\n" + (
        "ptxas /tmp/tmpqgu1f9dk.ptx, line 5; fatal   : Unsupported .version 8.6; current "
        "version is '8.5'\n"
    )
    assert findings(matrix, triton).get("SC203") is Severity.INFO


def test_the_drivers_jit_refusing_newer_ptx_is_a_driver_too_old(matrix: Matrix) -> None:
    """The driver's JIT names its input 'ptxas application ptx input' (hashcat#2626): the
    driver is older than the toolkit that wrote the PTX, SC101's verdict, not a ptxas'."""
    jit = (
        "ptxas application ptx input, line 9; fatal   : Unsupported .version 7.1; current "
        "version is '7.0'\n"
    )
    seen = observed(jit)
    assert "ptx-newer-than-ptxas" not in seen
    assert seen["driver-insufficient"] == (
        "the driver's PTX JIT knows PTX ISA 7.0, the PTX is ISA 7.1"
    )
    assert findings(matrix, jit).get("SC101") is Severity.ERROR


def test_a_loaded_stub_libcuda_and_a_stubs_dir_on_a_runtime_path(matrix: Matrix) -> None:
    """CUDA error 34 (Warp's words, warp#219; the runtime's) is a warning alone and an error
    beside a driver or the stubs directory on a run-time path; that path alone (readelf's
    rpath, spack#17607; LD_LIBRARY_PATH; an ldconfig row) is a warning; `-L` to link is not."""
    warp = "Warp CUDA error: Failed to get driver entry point 'cuInit' (CUDA error 34)\n"
    assert findings(matrix, warp).get("SC1416") is Severity.WARNING
    rpath = (
        " 0x000000000000000f (RPATH)              Library rpath: [/opt/cuda-10.2.89/targets/"
        "x86_64-linux/lib/stubs:/opt/lib]\n"
    )
    assert findings(matrix, rpath).get("SC1416") is Severity.WARNING
    assert findings(matrix, warp + rpath).get("SC1416") is Severity.ERROR
    with_driver = warp + "NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2\n"
    assert findings(matrix, with_driver).get("SC1416") is Severity.ERROR
    sorts(
        "stub-dir-on-path",
        (
            "export LD_LIBRARY_PATH=/usr/local/cuda/lib64/stubs:$LD_LIBRARY_PATH",
            "SPACK_RPATH_DIRS=/spack/opt/cuda-11.4.2/targets/x86_64-linux/lib/stubs:/spack/opt/x",
            "\tlibcuda.so (libc6,x86-64) => /usr/local/cuda-12.2/lib64/stubs/libcuda.so",
            "g++ main.o -Wl,-rpath,/usr/local/cuda/lib64/stubs -lcuda",
        ),
        (
            "g++ main.o -L/usr/local/cuda/lib64/stubs -lcuda",
            "export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH",
            "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1",
            "Should I add LD_LIBRARY_PATH=/usr/local/cuda/lib64/stubs?",
            "RUN LD_LIBRARY_PATH=/usr/local/cuda/lib64/stubs:$LD_LIBRARY_PATH python setup.py "
            "build",
        ),
    )


def test_no_gpu_on_a_windows_insider_build_is_advice(matrix: Matrix) -> None:
    """GPU support for WSL2 broke in known Insider builds (microsoft/WSL#6772, #6773): a build no
    Windows release carries, or one named a preview, makes the missing GPU advice; a release's
    build (17763, before WSL2 had GPUs; 22631) keeps the verdict."""
    failed = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
        "that the latest NVIDIA driver is installed and running.\n"
        "Latest Nvidia Win10 driver 465.89\n"
    )
    for build in (
        "Microsoft Windows [Version 10.0.21343.1000]",
        "Cannot use GPU support in Windows 10 preview build 21354",
        "Windows 11 Insider Preview Build 25126 with WSL2",
    ):
        assert findings(matrix, build + "\n" + failed).get("SC532") is Severity.INFO, build
    for build in (
        "Microsoft Windows [Version 10.0.17763.292]",
        "Microsoft Windows [Version 10.0.22631.4317]",
        "Microsoft Windows [Version 10.0.20348.2762]",
        "Should I join the Windows Insider Dev Channel for WSL?",
    ):
        assert "windows-preview-build" not in observed(build + "\n"), build
        assert findings(matrix, build + "\n" + failed).get("SC532") is not Severity.INFO, build


def test_healthy_notices_and_a_gpu_that_is_not_nvidias_are_read_without_a_finding(
    matrix: Matrix,
) -> None:
    """Texts of healthy reports that name no fault of a CUDA stack: WSL's ldconfig notice on the
    driver's copies (microsoft/WSL#11229), Triton's lookup of an unversioned libcuda.so
    (triton#2883), an AMD GPU (stable-diffusion-webui#16861); each is read, and warns of nothing."""
    for said, kind in (
        ("ldconfig: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link", "wsl-driver-copies"),
        (
            "/sbin/ldconfig.real: /usr/lib/wsl/lib/libnvidia-ml.so.1 is not a symbolic link",
            "wsl-driver-copies",
        ),
        ("AssertionError: libcuda.so cannot found!", "triton-libcuda-lookup"),
        ("AssertionError: libcuda.so not found", "triton-libcuda-lookup"),
        ("Here is the dump for AMD 3800 / 32GB /  RX 6800 / 10 x64 22H2:", "gpu-amd"),
        ("GPU: AMD Radeon RX 7900 XTX", "gpu-amd"),
        ("running on an AMD Instinct MI250X node", "gpu-amd"),
    ):
        seen = observed(said + "\n")
        assert kind in seen, said
        got = findings(matrix, said + "\n")
        assert all(s is Severity.INFO for s in got.values()), (said, got)
    sorts(
        "gpu-amd",
        (),
        (
            "CPU: AMD Ryzen 7 5800H with Radeon Graphics, GPU: RTX 3070",
            "ifconfig: RX packets 1234  bytes 5678",
            "Is an AMD RX 6800 supported?",
        ),
    )


def test_ollama_finding_no_gpu_is_a_probe_and_a_driver_said_number_first_is_read(
    matrix: Matrix,
) -> None:
    """Ollama's 'no compatible GPUs were discovered' (and a report retelling it, ollama#8114) is
    a probe that went on on the CPU: advice where nothing shows a GPU. A driver stated number
    first ('with a 418.56 driver version', triton-inference-server/server#309) is the driver."""
    for said in (
        'time=2024-10-15T09:18:18.299Z level=INFO source=gpu.go:347 msg="no compatible GPUs '
        'were discovered"',
        "Note where it says no compatible GPU was found.",
    ):
        assert observed(said + "\n").get("no-gpu-probed"), said
        assert findings(matrix, said + "\n").get("SC532") is Severity.INFO, said
    stated = read_report(
        "I deploy trtis on k8s gpu environment with a 418.56 driver version.\n", "pasted"
    ).snapshot
    assert [i.version for i in stated.installations(ComponentName.DRIVER)] == ["418.56"]
    suggested = read_report("You should update to a 535.54 driver.\n", "pasted").snapshot
    assert not suggested.installations(ComponentName.DRIVER)


def test_an_ngc_image_below_its_release_notes_driver_is_too_old(matrix: Matrix) -> None:
    """Triton 21.10's notes require driver 470 (CUDA 11.4.2); its -sdk client image is built on
    the same base (triton-inference-server/server#3773). A driver at the floor passes; a
    data-center GPU makes it a warning (forward compatibility on a long-term branch)."""
    run = "docker run -it --rm --runtime=nvidia nvcr.io/nvidia/tritonserver:21.10-py3-sdk bash\n"
    old = run + "Driver Version: 455.45.01\n"
    assert findings(matrix, old).get("SC101") is Severity.ERROR
    named = "Triton container: nvcr.io/nvidia/tritonserver:21.10-py3\nDriver Version: 455.45.01\n"
    assert findings(matrix, named).get("SC101") is Severity.ERROR
    assert "SC101" not in findings(matrix, run + "Driver Version: 470.57.02\n")
    row = "|   0  Tesla T4            Off  | 00000000:00:1E.0 Off |                    0 |\n"
    tesla = old + row
    assert findings(matrix, tesla).get("SC101") is Severity.WARNING


def test_error_36_is_the_minor_version_compatibility_limit_met(matrix: Matrix) -> None:
    """The runtime's error 36 (NCCL's CUDACHECK, NVIDIA/nccl#496; PyTorch's CUDA error): an API
    newer than the driver, under minor-version compatibility: SC102's warning."""
    for said in (
        "enqueue.cc:802 NCCL WARN Cuda failure 'API call is not supported in the installed CUDA "
        "driver'",
        "RuntimeError: CUDA error: API call is not supported in the installed CUDA driver",
        "cudaErrorCallRequiresNewerDriver",
    ):
        assert findings(matrix, said + "\n").get("SC102") is Severity.WARNING, said
    # A driver shown that fully supports every CUDA shown: the limit lies elsewhere.
    fits = (
        "RuntimeError: CUDA error: API call is not supported in the installed CUDA driver\n"
        "torch 2.1.0+cu121\nDriver Version: 550.54.15\n"
    )
    assert findings(matrix, fits).get("SC102") is not Severity.WARNING
