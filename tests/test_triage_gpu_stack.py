"""Triage readings of the GPU stack's own area (CUDA and driver, PyTorch, containers, GPU modes,
memlock), each on the real text of a corpus report (tests/data/reports, source cited there) and
on the other shapes the same kind of text takes, independent of the corpus's expectations."""

from __future__ import annotations

from collections.abc import Callable

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report, signatures
from stackcheck.matrix import Matrix
from stackcheck.snapshot.model import ComponentName
from tests.corpus import body
from tests.support.pasted import findings


def loud(matrix: Matrix, text: str) -> dict[str, Severity]:
    return {k: v for k, v in findings(matrix, text).items() if v is not Severity.INFO}


def severities(matrix: Matrix, rule: str, texts: tuple[str, ...]) -> set[Severity | None]:
    """The severities ``rule`` gets on each text alone (None where it is silent)."""
    return {findings(matrix, text).get(rule) for text in texts}


def reads_alike(
    matrix: Matrix,
    expected: dict[str, Severity],
    read: tuple[str, ...],
    not_read: tuple[str, ...],
    how: Callable[[Matrix, str], dict[str, Severity]] = findings,
) -> None:
    """Each text of ``read`` gets ``expected``; each of ``not_read`` (questions, conditions,
    denials) gets nothing."""
    for said in read:
        assert how(matrix, said) == expected, said
    for said in not_read:
        assert how(matrix, said) == {}, said


def test_no_driver_on_a_machine_the_reporter_says_has_no_gpu_is_advice(matrix: Matrix) -> None:
    """338: PyTorch's "Found no NVIDIA driver" from someone asking for a CPU fallback."""
    assert findings(matrix, body("338")) == {"SC532": Severity.INFO}
    message = body("338").split('", I think')[0]
    # Alone, the message shows nothing of the machine: a warning (see the CPU-only boundary).
    assert findings(matrix, message) == {"SC532": Severity.WARNING}
    for said in (
        "I don't have an NVIDIA GPU on this laptop.",
        "It should fall back to CPU.",
        "There is no GPU on my machine.",
        "I run it on my MacBook.",
    ):
        assert findings(matrix, f"{message}\n{said}") == {"SC532": Severity.INFO}, said
    # A container, or a GPU the text shows, keeps it an error whatever the prose says.
    inside = f"{message}\nIt runs inside the docker container; it should fall back to CPU."
    assert loud(matrix, inside).get("SC532") is Severity.ERROR
    with_gpu = f"{message}\nDriver Version: 535.104.05\nIt should fall back to CPU."
    assert loud(matrix, with_gpu).get("SC532") is Severity.ERROR


def test_ucx_memlock_error_on_a_run_without_rdma_is_advice(matrix: Matrix) -> None:
    """386: UCX prints its memlock hint while probing mlx5_0 on a run whose `mpirun` selected
    `--mca pml ob1 --mca btl sm,self`; the same line without that command is an error."""
    assert loud(matrix, body("386")) == {}
    assert findings(matrix, body("386"))["SC512"] is Severity.INFO
    ucx = next(line for line in body("386").splitlines() if "UCX  ERROR" in line)
    assert findings(matrix, ucx)["SC512"] is Severity.ERROR
    for command in (
        "mpirun -np 4 -x UCX_TLS=sm,self ./a.out",
        "UCX_TLS=tcp,cuda_copy mpirun -np 2 ./a.out",
        "/usr/bin/mpirun --mca pml ob1 --mca btl vader,self,tcp -np 2 ./a.out",
    ):
        assert findings(matrix, f"{command}\n{ucx}")["SC512"] is Severity.INFO, command
    for command in (
        "mpirun -np 4 --mca btl sm,self ./a.out",  # pml left to choose: UCX may take it
        "mpirun -np 4 --mca pml ob1 --mca btl openib,self ./a.out",
        "mpirun -np 4 -x UCX_TLS=rc,sm,self ./a.out",
        "mpirun -np 4 -x UCX_TLS=^sm ./a.out",
    ):
        assert findings(matrix, f"{command}\n{ucx}")["SC512"] is Severity.ERROR, command


def test_a_launcher_at_the_start_of_its_line_is_a_command(matrix: Matrix) -> None:
    """A line that starts with `mpirun` is a command, not a sentence naming one: its `-x`
    settings are read as such (before, only NAME=value shapes of a sentence were)."""
    command = "mpirun -np 2 -x NCCL_DEBUG INFO -x NCCL_P2P_DISABLE=1 ./a"
    snapshot = read_report(command, "p").snapshot
    assert snapshot.env["NCCL_P2P_DISABLE"].value == "1"
    said = read_report("We launch it with mpirun and it hangs.", "p").snapshot
    assert not said.observations("rdma-unselected")


# `nvidia-smi`'s MIG devices table, from https://github.com/XuehaiPan/nvitop/pull/8 (lounicotra's
# comment; read 2026-12-03): GPU 1 has instances.
MIG_DEVICES = """\
+-----------------------------------------------------------------------------+
| MIG devices:                                                                |
+------------------+----------------------+-----------+-----------------------+
| GPU  GI  CI  MIG |         Memory-Usage |        Vol|         Shared        |
|      ID  ID  Dev |           BAR1-Usage | SM     Unc| CE  ENC  DEC  OFA  JPG|
|                  |                      |        ECC|                       |
|==================+======================+===========+=======================|
|  1    3   0   0  |  14366MiB / 19968MiB | 28      0 |  2   0    1    0    0 |
|                  |      4MiB / 32767MiB |           |                       |
+------------------+----------------------+-----------+-----------------------+"""

# `nvidia-smi -L` with a MIG instance, from https://github.com/NVIDIA/go-dcgm/issues/30
# (starry91's description; read 2026-12-03).
MIG_LIST = """\
$ nvidia-smi -L
GPU 0: NVIDIA A100 80GB PCIe (UUID: GPU-41255406-c9af-f94b-4ebf-9d57ad1853da)
  MIG 2g.20gb     Device  0: (UUID: MIG-a65afc88-50b5-5ccf-b0a8-f93b3247ae9e)"""


def mig_gpus(text: str) -> dict[int | str | None, bool | None]:
    hardware = read_report(text, "pasted").snapshot.hardware
    return {g.bus_id or g.index: g.mig_mode for g in hardware.gpus if g.mig_mode is not None}


def test_mig_mode_in_each_output_of_nvidia_smi(matrix: Matrix) -> None:
    """373: the `MIG M.` column of nvidia-smi's table (R550 layout); the `MIG devices:` table;
    `nvidia-smi -L` listing instances under a GPU; 007: collect_env's GPU list does the same."""
    assert mig_gpus(body("373")) == {"0000:31:00.0": True}
    assert findings(matrix, body("373"))["SC1121"] is Severity.WARNING
    assert mig_gpus(MIG_DEVICES) == {1: True}
    assert mig_gpus(MIG_LIST) == {0: True}
    assert mig_gpus(body("007")) == {0: True}
    assert findings(matrix, MIG_LIST)["SC1121"] is Severity.WARNING
    # A table whose MIG M. cell says Disabled is a GPU in MIG's reach, not in MIG mode.
    disabled = body("373").replace("Enabled", "Disabled")
    assert mig_gpus(disabled) == {"0000:31:00.0": False}
    assert "SC1121" not in findings(matrix, disabled)


def test_mig_switched_by_nvidia_smi_last_line_wins(matrix: Matrix) -> None:
    """388: `nvidia-smi -i 0 -mig 0` then `-mig 1` on the same GPU: it ends in MIG mode."""
    assert mig_gpus(body("388")) == {"0000:06:00.0": True}
    off = "Enabled MIG Mode for GPU 00000000:06:00.0\nDisabled MIG Mode for GPU 00000000:06:00.0"
    assert mig_gpus(off) == {"0000:06:00.0": False}
    assert findings(matrix, off) == {}


def test_a_sentence_that_says_mig_is_on(matrix: Matrix) -> None:
    """372: "the configuration for MIG is following" (the tables were screenshots)."""
    assert findings(matrix, body("372")) == {"SC1121": Severity.WARNING}
    for denied in (
        "MIG is disabled on all GPUs.",
        "We do not use MIG mode on these nodes.",
        "Is MIG enabled on this node?",
        "We plan to evaluate MIG on H100 later.",  # MIG named, not said to be on
    ):
        assert findings(matrix, denied) == {}, denied


def example(signature_id: str) -> str:
    return next(s.example for s in signatures.catalogue() if s.id == signature_id)


def test_an_extension_built_with_another_cuda_than_pytorch(matrix: Matrix) -> None:
    """346: PyTorch's message wrapped over two lines of a pip log; DeepSpeed's op builder says
    the same in its words, and as a [WARNING] where DS_SKIP_CUDA_CHECK=1 lets it go on."""
    assert findings(matrix, body("346")) == {"SC203": Severity.ERROR}
    deepspeed = example("deepspeed-cuda-mismatch")
    assert findings(matrix, deepspeed) == {"SC203": Severity.ERROR}
    skipped = (
        "[WARNING]  DeepSpeed Op Builder: Installed CUDA version 12.1 does not match the version "
        "torch was compiled with 11.8.Detected `DS_SKIP_CUDA_CHECK=1`: Allowing this combination"
    )  # https://github.com/deepspeedai/DeepSpeed/pull/3436 (FarzanT's comment)
    assert findings(matrix, skipped) == {"SC203": Severity.WARNING}
    # PyTorch's own warning for a minor difference is not the error.
    minor = (
        "UserWarning: The detected CUDA version (12.2) has a minor version mismatch with the "
        "version that was used to compile PyTorch (12.1). Most likely this shouldn't be a problem."
    )
    assert findings(matrix, minor) == {}


def test_a_cuda_runtime_of_one_release_not_found(matrix: Matrix) -> None:
    """336: libcudart.so.9.0 missing, then a 9.2 runtime symlinked in its place."""
    assert findings(matrix, body("336")) == {"SC203": Severity.ERROR}
    symlinked = example("symbol-version-cuda-runtime")
    assert findings(matrix, symlinked) == {"SC203": Severity.ERROR}
    # A library that numbers its own versions (cuFFT 10 ships with CUDA 11) says nothing of
    # the CUDA release; an unversioned name neither.
    for other in ("libcufft.so.10", "libcudart.so"):
        text = f"ImportError: {other}: cannot open shared object file: No such file or directory"
        assert "SC203" not in findings(matrix, text), other
    on_cpu = f"{body('336').splitlines()[0]}\nI don't have an NVIDIA GPU on this laptop."
    assert findings(matrix, on_cpu) == {"SC203": Severity.INFO}


def test_a_message_a_terminal_cut_at_a_fixed_width(matrix: Matrix) -> None:
    """367: docker's error, cut every 136 columns mid-word ("unsatisfied condi" / "tion: cuda
    >= 9.0"), joins without a space; a wrapped sentence keeps its space."""
    # the GTX 1080 the reporter names ("with GTX1080") is in the matrix: no SC901
    assert findings(matrix, body("367")) == {"SC101": Severity.ERROR}
    cut = "x" * 70 + " nvidia-container-cli: requirement error: unsatisfied condi"
    tail = "tion: cuda >= 9.0 please update your driver"
    same = f"{cut}\n{tail.ljust(len(cut), '.')}"
    assert findings(matrix, same) == {"SC101": Severity.ERROR}
    # Lines of different widths are a paragraph: joined with a space, the word stays cut.
    assert findings(matrix, f"{cut}\n{tail}") == {}


def test_a_gpu_the_driver_says_needs_a_reset(matrix: Matrix) -> None:
    """362: NVRM's NV_ERR_RESET_REQUIRED after a failed GSP allocation; the GSP RPC timeout
    (Xid 119) and Xid 154's recovery line say the same, once whether or not an Xid line has it."""
    assert findings(matrix, body("362")) == {"SC1117": Severity.ERROR}
    assert findings(matrix, example("nvrm-gsp-rpc-timeout")) == {"SC1117": Severity.ERROR}
    xid_line = (
        "NVRM: Xid (PCI:0000:01:00): 119, pid=1234, name=python, Timeout after 6s of waiting "
        "for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL)."
    )
    report = check(read_report(xid_line, "pasted").snapshot, matrix)
    assert [f.message.split(",")[0] for f in report.findings] == ["GPU 0000:01:00.0: Xid 119"]
    # An Xid the table does not name stays silent; 154 is named.
    recovery = "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1"
    assert findings(matrix, recovery) == {"SC1117": Severity.ERROR}


# The device plugin's own example pod, from NVIDIA/k8s-device-plugin@00f2a02c68f1e72951de0357e292c
# 118f47f4b49:README.md ("Running GPU Jobs"; Apache-2.0).
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: gpu-pod
spec:
  restartPolicy: Never
  containers:
    - name: cuda-container
      image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0
      resources:
        limits:
          nvidia.com/gpu: 1 # requesting 1 GPU
  tolerations:
  - key: nvidia.com/gpu
    operator: Exists
    effect: NoSchedule"""


def test_a_pod_that_runs_a_gpu_image_without_a_gpu_limit(matrix: Matrix) -> None:
    assert "SC531" not in findings(matrix, POD)
    bare = "\n".join(
        line for line in POD.splitlines() if "limits" not in line and "1 GPU" not in line
    )
    assert findings(matrix, bare)["SC531"] is Severity.WARNING
    saw_none = f"{bare}\nRuntimeError: No CUDA GPUs are available"
    assert findings(matrix, saw_none)["SC531"] is Severity.ERROR
    # A pod's other container, of no GPU image, needs none even where the report shows GPUs.
    sidecar = bare.replace("nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0", "nginx:1.25")
    assert "SC531" not in findings(matrix, f"{sidecar}\nDriver Version: 535.104.05")


def test_a_sentence_that_names_the_missing_gpu_request(matrix: Matrix) -> None:
    """376: "you will also need to set the gpu limits in the resources" (the spec pasted is the
    fixed one). Other shapes of the same statement read alike; a question or a condition not."""
    assert findings(matrix, body("376")) == {"SC531": Severity.WARNING}
    reads_alike(
        matrix,
        {"SC531": Severity.WARNING},
        (
            "Solved it by adding --gpus all, now nvidia-smi works.",
            "I forgot to pass --gpus all.",
            "The pod was started without the nvidia.com/gpu limit.",
        ),
        (
            "Do I need to set --gpus all?",
            "If you run without --gpus all, no GPU is visible.",
            "We run it with --gpus all on every node.",
        ),
    )


def test_a_sentence_that_says_the_locked_memory_limit_must_be_raised(matrix: Matrix) -> None:
    """029: `ulimit -a` with 64 KiB and "let me ask them to bump the locked one"; without the
    sentence the limit is advice, and a tool's own hint (UCX's "Please set max locked memory")
    is not the reporter's word (386)."""
    assert findings(matrix, body("029")) == {"SC511": Severity.WARNING}
    limit_only = body("029").split("I am not admin")[0]
    assert findings(matrix, limit_only) == {"SC511": Severity.INFO}
    for said in ("We need to increase max locked memory on the nodes.", "Raised memlock, fixed."):
        assert findings(matrix, f"{limit_only}\n{said}") == {"SC511": Severity.WARNING}, said
    assert findings(matrix, f"{limit_only}\nShould I increase memlock?") == {"SC511": Severity.INFO}


def test_more_messages_of_a_gpu_the_process_cannot_use(matrix: Matrix) -> None:
    """Each catalogue example read by the rule of its family: an old-CUDA kernel without code
    for the GPU (gpu-arch), the container toolkit on a host whose driver is not loaded and
    nvidia-smi with no device (gpu-visibility)."""
    assert findings(matrix, example("cuda-98-invalid-device-function")) == {"SC202": Severity.ERROR}
    assert findings(matrix, example("container-cli-driver-not-loaded")) == {"SC532": Severity.ERROR}
    assert findings(matrix, example("nvidia-smi-no-devices")) == {"SC532": Severity.ERROR}
    assert findings(matrix, "ibv_devinfo: No devices were found (no IB devices)") == {}


def test_tensorflow_looking_for_cudart_on_a_machine_without_gpu_is_advice(matrix: Matrix) -> None:
    """TensorFlow's dso_loader warning and its own hint, as it prints them on any machine
    without the CUDA runtime (https://github.com/jax-ml/jax/issues/3746, yuping3252's comment);
    with a GPU shown it is the fault. Its `dlerror:` is the loader's word, not NCCL's net plugin
    failing (it once read as SC413)."""
    lines = (
        "2021-04-09 19:52:41.024315: W "
        "tensorflow/stream_executor/platform/default/dso_loader.cc:60]"
        " Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot "
        "open shared object file: No such file or directory\n"
        "2021-04-09 19:52:41.024341: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore "
        "above cudart dlerror if you do not have a GPU set up on your machine."
    )
    assert findings(matrix, lines) == {"SC203": Severity.INFO}
    assert findings(matrix, f"{lines}\nDriver Version: 455.32.00")["SC203"] is Severity.WARNING


def test_inductor_probing_the_cuda_arch_on_a_cpu_build_is_not_a_fault(matrix: Matrix) -> None:
    """432: Inductor's get_cuda_arch() catches "Torch not compiled with CUDA enabled" and logs
    it on any CPU-only machine (torch/_inductor/codegen/cuda/cuda_env.py, both its log forms);
    the same words raised by a program that asked for a GPU stay SC201's error."""
    assert loud(matrix, body("432")) == {}
    for logged in (
        "Error getting cuda arch: Torch not compiled with CUDA enabled",
        "ERROR:root:Error getting cuda arch: e=AssertionError('Torch not compiled with CUDA "
        "enabled')",
        "Error getting cuda version: Torch not compiled with CUDA enabled",
    ):
        assert "SC201" not in findings(matrix, logged), logged
    raised = "AssertionError: Torch not compiled with CUDA enabled"
    assert findings(matrix, raised)["SC201"] is Severity.ERROR


def test_nvidia_docker_1_refusing_an_image_newer_than_the_driver(matrix: Matrix) -> None:
    """447: nvidia-docker 1's own check of the image's CUDA against the driver's, with or
    without its log prefix; it is the same fault as the toolkit's `unsatisfied condition`."""
    line = "Error: unsupported CUDA version: driver 7.5 < image 8.0"
    assert findings(matrix, line) == {"SC101": Severity.ERROR}
    assert findings(matrix, f"nvidia-docker | 2017/01/05 09:12:44 {line}") == {
        "SC101": Severity.ERROR
    }
    assert loud(matrix, body("447")) == {"SC101": Severity.ERROR}


def test_apex_building_against_a_pytorch_of_another_cuda(matrix: Matrix) -> None:
    """448: apex's setup.py check, in its forms (an old Warning joined with the nvcc output on one
    line, the later RuntimeError); the toolkit's release comes from the nvcc output when shown."""
    assert findings(matrix, body("448")) == {"SC203": Severity.ERROR}
    message = (
        "RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not "
        "match the version used to compile Pytorch binaries.  Pytorch binaries were compiled "
        "with Cuda 11.8."
    )
    assert findings(matrix, message) == {"SC203": Severity.ERROR}
    report = check(read_report(message, "pasted").snapshot, matrix)
    assert "a toolkit of another CUDA" in report.findings[0].message
    nvcc = (
        "Cuda compilation tools, release 12.1, V12.1.105\nBuild cuda_12.1.r12.1/compiler.32688072_0"
    )
    report = check(read_report(f"{nvcc}\n{message}", "pasted").snapshot, matrix)
    assert "CUDA 12.1.105 toolkit" in report.findings[0].message


def test_the_device_plugin_finding_no_nvml_in_its_three_wordings(matrix: Matrix) -> None:
    """468: the k8s device plugin's warning when go-nvlib finds no NVML (a node without the
    driver or without the toolkit as its runtime, e.g. Docker Desktop), as its releases word it."""
    assert loud(matrix, body("468")) == {"SC532": Severity.ERROR}
    for said in (
        "No valid resources detected, creating a null CDI handler",
        "I1126 04:34:05.352152       1 factory.go:48] No valid resources detected; using empty "
        "manager.",
        "2023/06/01 10:00:00 No valid resources detected; using an empty CDI handler",
    ):
        assert findings(matrix, said) == {"SC532": Severity.ERROR}, said
    assert findings(matrix, "No valid resources detected in the request body") == {}


def test_a_gpu_the_reporter_says_they_use_meets_the_build_arch_list(matrix: Matrix) -> None:
    """430: PyTorch's arch list with the GPU named only in a sentence; the card's series fixes
    its capability (sm_86 for RTX A-series and GeForce 30, sm_120 for GeForce 50). A name in an
    nvidia-smi row or device list is left to those formats, and merges with the one said."""
    assert loud(matrix, body("430")) == {"SC202": Severity.ERROR}
    archs = "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75"
    for said in (
        "I use the RTX3090 at home.",
        "We run it on an NVIDIA GeForce RTX 5070 Ti.",
        "When trying to use a Nvidia RTX A6000 we get this error message:",
    ):
        assert findings(matrix, f"{said}\n{archs}").get("SC202") is Severity.ERROR, said
    # sm_80 code runs on an sm_86 card; nothing of it on an sm_120 one.
    with_80 = f"{archs} sm_80"
    assert "SC202" not in findings(matrix, f"I use the RTX3090 at home.\n{with_80}")
    assert findings(matrix, f"on the RTX 5090\n{with_80}")["SC202"] is Severity.ERROR
    assert "SC202" not in findings(matrix, f"The RTX 3090 review is out.\n{archs}")
    smi = "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5d2a1c7e-0000-0000-0000-000000000000)"
    report = check(read_report(f"{smi}\nI use the RTX 3090.\n", "pasted").snapshot, matrix)
    assert len(report.snapshot.gpus.devices) == 1


def test_a_sentence_that_says_the_dataloader_needs_more_shared_memory(matrix: Matrix) -> None:
    """481: the reporter restates the DataLoader's hint for a Kubernetes pod whose /dev/shm is
    the runtime's default; a question about it is not a statement."""
    assert loud(matrix, body("481")) == {"SC501": Severity.WARNING}
    for said in (
        "The DataLoader workers need more shared memory than the pod gives.",
        "torch DataLoader needs a larger /dev/shm",
    ):
        assert findings(matrix, said) == {"SC501": Severity.WARNING}, said
    assert findings(matrix, "Does the DataLoader need more shared memory here?") == {}


def test_mig_handed_out_by_name_is_meant_to_be_on(matrix: Matrix) -> None:
    """473's shape: a process given MIG instances by UUID, a pod asking for a MIG slice or the
    device plugin's MIG strategy says MIG is the design; SC1121 is then advice. MIG shown alone
    stays a warning (475: MIG on without a slice chosen)."""
    listing = (
        "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)\n"
        "  MIG 3g.20gb     Device  0: (UUID: MIG-3b7e5a52-ea9f-5a1d-8a0a-1c0a1b2c3d4e)"
    )
    assert findings(matrix, listing) == {"SC1121": Severity.WARNING}
    for chosen in (
        "CUDA_VISIBLE_DEVICES=MIG-3b7e5a52-ea9f-5a1d-8a0a-1c0a1b2c3d4e python train.py",
        "docker run --gpus '\"device=MIG-3b7e5a52-ea9f-5a1d-8a0a-1c0a1b2c3d4e\"' img",
        "        nvidia.com/mig-3g.20gb: 1",
        '    "migStrategy": "mixed",',
    ):
        assert findings(matrix, f"{listing}\n{chosen}")["SC1121"] is Severity.INFO, chosen
    assert findings(matrix, f'{listing}\n    "migStrategy": "none",') == {
        "SC1121": Severity.WARNING
    }
    assert loud(matrix, body("473")) == {}


def test_pytorch_28s_cc_list_warning_gives_the_gpu_and_the_whole_arch_list(matrix: Matrix) -> None:
    """PyTorch 2.8+'s `Found GPU0 ... compute capability (CC) X.Y` with the build's CCs a line
    each (pytorch/pytorch#182250, MaKaNu's collect_env): the lines add up to one arch list, and
    the arch rule gives the verdict, not PyTorch's warning (an Orin's 8.7 runs the 8.0 code)."""
    head = (
        "/usr/lib/python3.12/site-packages/torch/cuda/__init__.py:371: UserWarning: Found GPU0 "
        "{gpu} which is of compute capability (CC) {cc}.\n"
        "The following list shows the CCs this version of PyTorch was built for and the "
        "hardware CCs it supports:\n"
    )
    ccs = (
        "- 7.5 which supports hardware CC >=7.5,<8.0\n"
        "- 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}\n"
        "- 9.0 which supports hardware CC >=9.0,<10.0\n"
        "- 12.0 which supports hardware CC >=12.0,<13.0\n"
    )
    v100 = head.format(gpu="Tesla V100-PCIE-32GB", cc="7.0") + ccs
    assert loud(matrix, v100) == {"SC202": Severity.ERROR}
    report = check(read_report(v100, "pasted").snapshot, matrix)
    assert "sm_75 sm_80 sm_90 sm_120" in report.findings[0].message
    for gpu, cc in (("NVIDIA GeForce RTX 5090", "12.0"), ("Orin", "8.7")):
        assert "SC202" not in loud(matrix, head.format(gpu=gpu, cc=cc) + ccs), gpu


def test_this_areas_catalogue_entries_are_screened_by_words() -> None:
    """An entry whose only literal words are digits escapes the line screen and runs its
    expression on every line of a 5 MB log; each GPU-stack entry must keep a word."""
    ours = (
        "inductor-cuda-arch-probe-cpu-build",
        "nvidia-docker-1-unsupported-cuda",
        "apex-extension-cuda-mismatch",
        "device-plugin-no-valid-resources",
        "gpu-used-rtx-a-ampere",
        "gpu-used-geforce-rtx-30",
        "gpu-used-geforce-rtx-50",
        "dataloader-needs-more-shm-stated",
        "mig-instance-selected",
        "torch-gpu-compute-capability-cc",
        "torch-built-cc-list-item",
    )
    entries = {s.id: s for s in signatures.catalogue()}
    for name in ours:
        needles = entries[name].needles
        assert needles and all(any(not c.isdigit() for c in n) for n in needles), name


def test_a_cpu_build_asked_for_cuda_on_an_apple_silicon_mac_is_advice(matrix: Matrix) -> None:
    """348, 350, 352: "Torch not compiled with CUDA enabled" on an M-series Mac. No PyTorch build
    gives CUDA there, so it is advice for the program (a CPU or MPS path), not a stack error."""
    for key in ("348", "350", "352"):
        assert findings(matrix, body(key)) == {"SC201": Severity.INFO}, key
    error = "AssertionError: Torch not compiled with CUDA enabled"
    assert findings(matrix, error) == {"SC201": Severity.ERROR}  # the machine unknown
    for said in (
        "I tried it on an M1 Mac.",
        "my current machine is MacBook Pro 2021 with M1 Pro Chip",
        "I realize my Mac doesn't have CUDA",
        "parser.add_argument('--device', type=str, default='mps')",
        "Would be good to check for cuda (else mps, for those of us on an M1).",
    ):
        assert findings(matrix, f"{error}\n{said}") == {"SC201": Severity.INFO}, said
    # Older Intel Macs had NVIDIA GPUs; a MAC address is not a Mac; a GPU shown keeps the error.
    for said in (
        "OS X Yosemite 10.10.5 on a Mac Pro with a GTX 680",
        "MAC address 3c:22:fb:00:11:22",
        "I tried it on an M1 Mac.\nDriver Version: 535.104.05",
    ):
        assert findings(matrix, f"{error}\n{said}").get("SC201") is Severity.ERROR, said


def test_running_without_a_gpu_stated_in_prose_makes_a_cpu_build_advice(matrix: Matrix) -> None:
    """530: "When running the code without a CUDA Gpu ... Torch not compiled with CUDA enabled":
    the reporter names the machine as GPU-less, so the CPU build is no fault (corpus rule); a
    container run "without --gpus" is the container's fault and stays an error."""
    assert loud(matrix, body("530")) == {}
    raised = "AssertionError: Torch not compiled with CUDA enabled"
    gpu_less = (
        "I am running the code without a GPU.",
        "We run it with no NVIDIA GPU at all.",
        "Using the repo without any CUDA GPU fails.",
    )
    assert severities(matrix, "SC201", tuple(f"{s}\n{raised}" for s in gpu_less)) == {Severity.INFO}
    container = (
        "I run the container without a GPU flag",
        "Running it without a GPU in the docker container.",
    )
    assert severities(matrix, "SC201", tuple(f"{s}\n{raised}" for s in container)) == {
        Severity.ERROR
    }


def test_shared_memory_too_small_as_paddle_and_ray_say_it(matrix: Matrix) -> None:
    """575 (Paddle's DataLoader worker) and 572 (Ray's object store against /dev/shm), in the
    forms their sources print (Ray 1.0-1.2 and its later form with both sizes)."""
    assert loud(matrix, body("575")) == {"SC502": Severity.ERROR}
    assert loud(matrix, body("572")) == {"SC502": Severity.ERROR}
    for line in (
        "Unexpected BUS error encountered in DataLoader worker. This might be caused by "
        "insufficient shared memory (shm), please check whether use_shared_memory is set and "
        "storage space in /dev/shm is enough",
        "ValueError: The configured object store size (9.5 GB) exceeds /dev/shm size (1.2 GB). "
        "This will harm performance. Consider deleting files in /dev/shm or increasing its size "
        "with --shm-size in Docker. To ignore this warning, set "
        "RAY_OBJECT_STORE_ALLOW_SLOW_STORAGE=1.",
        "  > The configured object store size exceeds the capacity of /dev/shm.",
    ):
        assert loud(matrix, line) == {"SC502": Severity.ERROR}, line
    assert loud(matrix, "use_shared_memory=False was set; /dev/shm is 64G.") == {}
    # Ray's later form names /dev/shm's size: a large one means the store was sized wrongly.
    for healthy in ("382", "383"):
        assert findings(matrix, body(healthy)) == {"SC502": Severity.INFO}, healthy


def test_a_kubernetes_node_advertising_no_gpu(matrix: Matrix) -> None:
    """564, 566: `kubectl describe node` with `nvidia.com/gpu:  0` (device plugin) or
    `alpha.kubernetes.io/nvidia-gpu:  0` (kubelet 1.6-1.10) under Capacity/Allocatable; the
    "Allocated resources" table's `nvidia.com/gpu  0  0` (no GPU pod yet) and a pod spec's
    `nvidia.com/gpu: 0` (YAML, one space) say nothing of the node."""
    assert loud(matrix, body("564")) == {"SC532": Severity.ERROR}
    assert loud(matrix, body("566")) == {"SC532": Severity.ERROR}
    node = "Capacity:\n cpu:                8\n nvidia.com/gpu:     0"
    kubelet = "Allocatable:\n  alpha.kubernetes.io/nvidia-gpu:  0\n  cpu:  24"
    allocated = "  Resource           Requests    Limits\n  nvidia.com/gpu     0           0"
    pod = "resources:\n  limits:\n    nvidia.com/gpu: 0"
    assert severities(matrix, "SC532", (node, kubelet)) == {Severity.ERROR}
    assert severities(matrix, "SC532", (allocated, pod, node.replace(" 0", " 8"))) == {None}
    plugin = (
        "2023/06/12 09:21:25 No devices found. Waiting indefinitely.",
        'I1204 07:31:31.765318       1 main.go:356] "No devices found. Waiting indefinitely."',
    )
    assert severities(matrix, "SC532", plugin) == {Severity.ERROR}
    # A sentence about the cluster's nodes is no statement that the reporter has no GPU.
    assert (
        findings(matrix, "The nodes do not have GPUs after the upgrade.\n nvidia.com/gpu:     0")[
            "SC532"
        ]
        is Severity.ERROR
    )


def test_mig_named_as_what_the_job_runs_on(matrix: Matrix) -> None:
    """581 ("on NVIDIA A100 with MIG GPU instances") and 582 ("Trying to use NCCL with MIG"):
    prose that puts the job on MIG instances; MIG named as off, or asked about, is not."""
    assert loud(matrix, body("581")) == {"SC1121": Severity.WARNING}
    assert loud(matrix, body("582")) == {"SC1121": Severity.WARNING}
    on = "I run the benchmark on A100 MIG compute instances."
    over = "We are training DDP over MIG and it hangs."
    using = "Using DDP with MIG fails at init."
    assert severities(matrix, "SC1121", (on, over, using)) == {Severity.WARNING}
    off = "We run the job with MIG disabled."
    less = "Training with MIG-less A100s works."
    asked = "Can I use NCCL with MIG?"
    assert severities(matrix, "SC1121", (off, less, asked)) == {None}


def test_pytorchs_driver_too_old_without_its_version(matrix: Matrix) -> None:
    """534: "RuntimeError: The NVIDIA driver on your system is too old" cut before its
    "(found version N)"."""
    assert loud(matrix, body("534")) == {"SC101": Severity.ERROR}
    for line in (
        "The NVIDIA driver on your system is too old",
        "  UserWarning: CUDA initialization: The NVIDIA driver on your system is too old",
        "AssertionError: The NVIDIA driver on your system is too old (found version 11040).",
    ):
        assert loud(matrix, line) == {"SC101": Severity.ERROR}, line
    # The numbered form is the older entry's: the unnumbered one stays out of its way.
    numbered = read_report("NVIDIA driver on your system is too old (found version 11040)", "p")
    said = [o.value for o in numbered.snapshot.observations("driver-insufficient")]
    assert said == ["NVIDIA driver on your system is too old (found version 11040)"]


def test_a_process_that_could_not_lock_its_memory(matrix: Matrix) -> None:
    """576: qdrant's mlock ENOMEM in docker; the same errno as other programs print it. An RDMA
    setup failure is SC512's, and a line that merely names mlock is nothing."""
    assert loud(matrix, body("576")) == {"SC1321": Severity.WARNING}
    for line in (
        "mlock: Cannot allocate memory",
        "mlockall failed: Cannot allocate memory",
        "warning: failed to mlock 73728000-byte buffer (after previously locking 0 bytes): "
        "Cannot allocate memory",
        "[2023-01-01T00:00:00,000][WARN ][o.e.b.JNANatives] Unable to lock JVM Memory: "
        "error=12, reason=Cannot allocate memory",
    ):
        assert loud(matrix, line) == {"SC1321": Severity.WARNING}, line
    limited = "max locked memory       (kbytes, -l) 8192\nmlock: Cannot allocate memory"
    said = [
        f.message
        for f in check(read_report(limited, "p").snapshot, matrix).findings
        if f.id == "SC1321"
    ]
    assert len(said) == 1 and "(locked memory limited to 8192 KiB)" in said[0]
    rdma = "ibv_create_cq() failed: Cannot allocate memory\nmlock: Cannot allocate memory"
    assert "SC1321" not in findings(matrix, rdma)
    for line in ("we call mlock to pin the buffers", "mlock is allowed: Cannot find device"):
        assert "SC1321" not in findings(matrix, line), line


def test_docker_without_the_nvidia_runtime_in_its_older_words(matrix: Matrix) -> None:
    """Docker 17-19's `Unknown runtime specified nvidia.` is today's `unknown or invalid runtime
    name: nvidia` (NVIDIA/nvidia-docker#838); another runtime's name is not the GPU's."""
    older = (
        "docker: Error response from daemon: Unknown runtime specified nvidia.",
        "I am getting unknown runtime specified nvidia",
        "docker: Error response from daemon: unknown or invalid runtime name: nvidia.",
    )
    assert severities(matrix, "SC532", older) == {Severity.ERROR}
    other = "docker: Error response from daemon: Unknown runtime specified kata."
    assert severities(matrix, "SC532", (other,)) == {None}


def test_cudas_unknown_error_at_initialisation_is_recognised(matrix: Matrix) -> None:
    """PyTorch's warning and error for cudaErrorUnknown at start-up (and Caffe2's words): read
    as CUDA unavailable, which alone names no cause (no finding), and not "nothing recognised"."""
    for line in (
        "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment,"
        " e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the "
        "available devices to be zero.",
        "E0508 18:40:25.340945  8217 common_gpu.cc:55] Found an unknown error - this may be due "
        "to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES "
        "after program start. I will set the available devices to be zero.",
    ):
        snapshot = read_report(line, "pasted").snapshot
        assert [o.kind for o in snapshot.observed] == ["cuda-unavailable"], line
        assert loud(matrix, line) == {}, line


def reads(
    matrix: Matrix, rule: str, severity: Severity, said: tuple[str, ...], unsaid: tuple[str, ...]
) -> None:
    """Each text of ``said`` alone gets ``rule`` at ``severity`` and nothing else loud; none of
    ``unsaid`` gets ``rule`` at all."""
    for text in said:
        assert loud(matrix, text) == {rule: severity}, text
    for text in unsaid:
        assert rule not in findings(matrix, text), text


# A flush-left nvidia-smi row of an A100 with persistence mode off and on (R515 layout, as in
# report 683).
_SMI = """+-----------------------------------------------------------------------------+
| NVIDIA-SMI 515.48.07    Driver Version: 515.48.07    CUDA Version: 11.7     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA A100-SXM...  {pm}  | 00000000:01:00.0 Off |                    0 |
| N/A   32C    P0    52W / 400W |      0MiB / 40960MiB |      0%      Default |
|                               |                      |             Disabled |
+-------------------------------+----------------------+----------------------+"""


def test_persistence_mode_off_where_the_report_shows_or_says_it(matrix: Matrix) -> None:
    """683: nvidia-smi's table shows Persistence-M Off and the reporter says nvidia-smi takes two
    minutes; 685: "I forgot to enable persistence mode"; 583 and 275: the container toolkit's
    driver timeout beside a sentence that says persistence mode was off."""
    for key in ("683", "685", "583", "275"):
        assert loud(matrix, body(key)).get("SC1120") is Severity.WARNING, key
    off, on = _SMI.replace("{pm}", "Off"), _SMI.replace("{pm}", " On")
    gpus = read_report(off, "p").snapshot.hardware.gpus
    assert [(g.index, g.persistence_mode) for g in gpus] == [(0, False)]
    assert findings(matrix, off).get("SC1120") is Severity.INFO  # the default on many hosts
    for slow in (
        "When I run nvidia-smi it takes 2 minutes to print anything.",
        "nvidia-smi is very slow on this node.",
    ):
        assert findings(matrix, f"{off}\n{slow}").get("SC1120") is Severity.WARNING, slow
        assert "SC1120" not in findings(matrix, f"{on}\n{slow}"), slow
    for said in (
        "The container failed to start because the GPUs ran in non-persistence mode.",
        "It turned out that persistence mode was disabled on the new nodes.",
        "We had forgotten to start nvidia-persistenced after the upgrade.",
    ):
        assert loud(matrix, said) == {"SC1120": Severity.WARNING}, said
        # A table that shows persistence mode on outweighs the sentence.
        assert "SC1120" not in findings(matrix, f"{on}\n{said}"), said
    for not_said in (
        "Is persistence mode disabled on your nodes?",
        "If persistence mode is off, nvidia-smi is slow.",
        "Disabled persistence mode for GPU 00000000:0F:00.0.",
    ):
        assert "SC1120" not in findings(matrix, not_said), not_said
    # A monitor's per-GPU verdict (leptonai/gpud#431, healthy right after a reboot): the GPU's
    # state, advice like a table's Off, not the reporter's word.
    verdict = "persistence mode is not enabled on GPU 00000000:0F:00.0 (nvidia-smi)"
    assert findings(matrix, verdict) == {"SC1120": Severity.INFO}


def test_mig_mode_change_left_pending(matrix: Matrix) -> None:
    """680: enabling MIG on an A100 in passthrough needed a reboot; nvidia-smi and mig-parted
    say the same in their own words."""
    assert loud(matrix, body("680")) == {"SC1121": Severity.WARNING}
    said = (
        "Warning: MIG mode is in pending enable state for GPU 00000001:00:00.0:In use by another "
        "client",
        'time="2024-02-13T10:21:13Z" level=debug msg="    Mode change pending: true"',
        "Disabling MIG mode requires a GPU reset, which failed while the exporter ran.",
    )
    unsaid = (
        "Do I need to reboot to enable MIG?",
        'time="2024-02-13T10:21:13Z" level=debug msg="    Mode change pending: false"',
    )
    reads(matrix, "SC1121", Severity.WARNING, said, unsaid)


def test_compose_gpu_reservation_without_a_count_requests_none(matrix: Matrix) -> None:
    """678: a compose GPU reservation with `count: all` commented out gives the container no
    GPU (docker/docs#20588); with a count or device IDs it is a request, and the short form
    `gpus: all` (Compose 2.30+) is one too."""
    assert loud(matrix, body("678")) == {"SC531": Severity.WARNING}
    spec = read_report(body("678"), "p").snapshot.run_specs[0]
    assert spec.gpu_count == 0
    counted = body("678").replace("#              count: all", "              count: all")
    assert "SC531" not in findings(matrix, counted)
    # all GPUs, 64 MB /dev/shm: advice while the text shows nothing that fills /dev/shm
    assert findings(matrix, counted).get("SC501") is Severity.INFO
    assert loud(matrix, counted) == {}
    ids = body("678").replace("#              count: all", "              device_ids: ['0']")
    assert "SC531" not in findings(matrix, ids)
    short = "services:\n  app:\n    image: nvidia/cuda:12.4.1-base-ubuntu22.04\n    gpus: all\n"
    assert "SC531" not in findings(matrix, short)
    assert read_report(short, "p").snapshot.run_specs[0].gpus == "gpus: all"


def test_missing_compose_gpu_reservation_stated(matrix: Matrix) -> None:
    """677: the reporter says the service "has no NVIDIA device reservation" and the compose
    file "is missing the deploy.resources.reservations.devices block"."""
    assert loud(matrix, body("677")) == {"SC531": Severity.WARNING}
    said = (
        "The service has no NVIDIA device reservation, so nvidia-smi is unavailable.",
        "docker-compose.yml is missing the `deploy.resources.reservations.devices` block.",
    )
    unsaid = ("Does the service need an NVIDIA device reservation?",)
    reads(matrix, "SC531", Severity.WARNING, said, unsaid)


def test_shared_memory_too_small_in_other_words(matrix: Matrix) -> None:
    """670: PostgreSQL's own error for a full /dev/shm; 661: a reporter's sentence in Chinese
    that says shared memory was not enough because Docker limits it."""
    assert loud(matrix, body("670")) == {"SC502": Severity.ERROR}
    assert loud(matrix, body("661")) == {"SC501": Severity.WARNING}
    said = (
        "The training crashed because there was not enough shared memory in the container.",
        "共享内存不足 DataLoader 崩溃了",
        "The shm is too small for 8 workers.",
    )
    unsaid = (
        "Is the shared memory not enough?",
        "This might be caused by insufficient shared memory (shm), but the limit is 64 GB here.",
    )
    reads(matrix, "SC501", Severity.WARNING, said, unsaid)


def test_memlock_limit_stated_in_prose(matrix: Matrix) -> None:
    """681: in a rootless Usernetes node UCX "needs ulimit -l to be unlimited", but the limit
    "falls back to the kernel default, 64kb"."""
    assert loud(matrix, body("681")) == {"SC511": Severity.WARNING}
    limit = "The memlock limit inside the pod is 64 KB."
    assert findings(matrix, limit) == {"SC511": Severity.INFO}  # RDMA not said to be in use
    need = "UCX over ibverbs needs ulimit -l to be unlimited."
    assert loud(matrix, f"{limit}\n{need}") == {"SC511": Severity.WARNING}
    assert "SC511" not in findings(matrix, "Is the memlock limit 64 KB in the pod?")


def test_a_compose_deploy_block_pasted_alone(matrix: Matrix) -> None:
    """482: a service's `deploy:` block alone (its first line carries a comment, which is not a
    root prompt), with a GPU reservation that names no count; the same block with `count: all`
    is a request, and says nothing of the service's /dev/shm (677's fix)."""
    assert loud(matrix, body("482")) == {"SC531": Severity.WARNING}
    [spec] = read_report(body("482"), "p").snapshot.run_specs
    assert (spec.kind, spec.name, spec.gpu_count) == ("compose", None, 0)
    counted = body("482").replace(
        "capabilities: [ gpu ]", "count: all\n          capabilities: [gpu]"
    )
    assert findings(matrix, counted) == {}
    for prompt in ("root@box:/# nvidia-smi", "[root@host dir]# nvidia-smi"):
        [parsed] = read_report(prompt, "p").segments
        assert [line.text for line in parsed.segment.lines] == ["nvidia-smi"], prompt


def test_a_cpu_wheel_of_pytorch_beside_cuda_unavailable(matrix: Matrix) -> None:
    """645: pip fetched the plain Windows wheel of torch 1.7.1, a CPU build (CUDA builds for
    Windows carry +cuXYZ); beside `is_available()` False it is why, as a `+cpu` build is."""
    snapshot = read_report(body("645"), "p").snapshot
    [torch] = snapshot.installations(ComponentName.TORCH)
    assert (torch.version, torch.properties.get("cpu_only")) == ("1.7.1", "yes")
    unavailable = ">>> torch.cuda.is_available()\nFalse"
    for build in (
        "  Downloading torch-2.1.0-cp311-cp311-win_amd64.whl (192.3 MB)",
        "torch==2.1.0+cpu",
    ):
        assert loud(matrix, f"{build}\n{unavailable}") == {"SC201": Severity.WARNING}, build
    cuda = "  Downloading https://download.pytorch.org/whl/cu121/torch-2.1.0%2Bcu121-cp311-cp311-win_amd64.whl"
    assert "SC201" not in findings(matrix, f"{cuda}\n{unavailable}")
    mac = "torch==2.1.0+cpu\nI run it on my MacBook."
    assert "SC201" not in findings(matrix, f"{mac}\n{unavailable}")


def test_container_toolkit_and_installer_failures_that_leave_no_gpu(matrix: Matrix) -> None:
    """nvidia-container-cli's `unknown device` (a GPU the host lacks) and `cgroup subsystem
    devices not found` (a cgroup-v2 host under libnvidia-container before 1.8), its `mount error:
    ... libnvidia-ml.so.1: file exists` (an image that ships driver libraries: SC103 too), and the
    driver installer's `Unable to load the kernel module 'nvidia.ko'`: the process gets no GPU."""
    said = (
        "stderr: nvidia-container-cli: device error: 1: unknown device\\n",
        "nvidia-container-cli.real: device error: MIG-GPU-932bfb2c-849a-2a22-1e84-9eff6bc02b39/1/0"
        ": unknown device",
        "Sep 08 08:58:07 host k3s[8174]: nvidia-container-cli: device error: "
        "/var/run/nvidia-container-devices: unknown device: unknown",
        "stderr: nvidia-container-cli: container error: cgroup subsystem devices not found: "
        "unknown.",
        "E0801 unable to create plugin manager: nvml init failed: ERROR_LIBRARY_NOT_FOUND",
        "nvidia-container-cli: initialization error: WSL environment detected but no adapters "
        "were found: unknown.",
        "[188549.976351] NVRM: The NVIDIA probe routine was not called for 3 device(s).",
        "[  441.170986] NVRM: No NVIDIA graphics adapter found!",
    )
    unsaid = (
        "nvidia-container-cli: device error: unknown reason",
        # follows a GPU that fell off the bus (265): SC1117's, not a missing driver
        "[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).",
        "I could load the kernel module nvidia.ko after disabling Secure Boot",
    )
    reads(matrix, "SC532", Severity.ERROR, said, unsaid)
    # The installer's refusal is also the driver's own failure (SC1327, driver-cuda).
    installer = (
        "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently ..."
    )
    assert loud(matrix, installer) == {"SC532": Severity.ERROR, "SC1327": Severity.ERROR}
    # The image's own driver libraries collide with the host's: no GPU, and a driver/library
    # mismatch (SC103) named as what the image did.
    baked = (
        "stderr: nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2"
        "/706b1d1b/merged/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: file exists: unknown."
    )
    assert loud(matrix, baked) == {"SC532": Severity.ERROR, "SC103": Severity.ERROR}


# nvidia-smi's table as NVIDIA/DIGITS#2005 posted it (R375: a K40m in Exclusive_Process mode).
_EXCLUSIVE = """+-----------------------------------------------------------------------------+
| NVIDIA-SMI 375.26                 Driver Version: 375.26                    |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla K40m          On   | 0000:04:00.0     Off |                    0 |
| N/A   35C    P0    63W / 235W |     74MiB / 11439MiB |      0%   E. Process |
+-------------------------------+----------------------+----------------------+"""


def test_exclusive_compute_mode_and_cudas_busy_or_unavailable(matrix: Matrix) -> None:
    """CUDA's error 46 beside a GPU nvidia-smi shows in Exclusive_Process mode: another process
    holds it (a warning). Either alone is advice: exclusive mode is a cluster policy, and error
    46 also follows a GPU that needs a reset."""
    busy = (
        "Check failed: error == cudaSuccess (46 vs. 0)  all CUDA-capable devices are busy or "
        "unavailable"
    )
    assert loud(matrix, f"{_EXCLUSIVE}\n{busy}") == {"SC1322": Severity.WARNING}
    assert findings(matrix, _EXCLUSIVE).get("SC1322") is Severity.INFO
    for text in (
        busy,
        "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable",
        "THCudaCheck FAIL file=THCStorage.cu line=66 error=46 : all CUDA-capable devices are "
        "busy or unavailable",
    ):
        assert findings(matrix, text).get("SC1322") is Severity.INFO, text
    prohibited = _EXCLUSIVE.replace("   E. Process |", "   Prohibited |")
    assert loud(matrix, prohibited) == {"SC1322": Severity.WARNING}
    default = _EXCLUSIVE.replace("   E. Process |", "      Default |")
    assert "SC1322" not in findings(matrix, f"{default}")


def test_a_cuda_compiler_that_does_not_know_the_architecture(matrix: Matrix) -> None:
    """ptxas (Triton's bundled copy) and nvcc refusing an architecture: the toolkit that builds
    the kernels predates the GPU (triton-lang/triton#8539, alexandrosstergiou/SoftPool#7)."""
    said = (
        "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
        "ptxas fatal : Value 'sm_89' is not defined for option 'gpu-name'",
        "nvcc fatal   : Unsupported gpu architecture 'compute_86'",
        "pytorch=1.7, 报错nvcc fatal : Unsupported gpu architecture 'compute_86'",
    )
    unsaid = (
        "ptxas fatal   : Unresolved extern function 'foo'",
        "nvcc fatal   : Unsupported gpu architecture",
    )
    reads(matrix, "SC202", Severity.ERROR, said, unsaid)


def test_nvidia_smi_query_gpu_csv(matrix: Matrix) -> None:
    """`nvidia-smi --query-gpu=... --format=csv` as posted in kubernetes-sigs/dra-driver-nvidia-gpu
    #852 (MIG current and pending per GPU) and Syllo/nvtop#470 (one column, `[N/A]` on a GPU
    without MIG); the other fields as `--help-query-gpu` names them."""
    dra = (
        "uuid, mig.mode.current, mig.mode.pending\n"
        "GPU-ec845691-fb46-e16d-abfb-b135308cb39f, Enabled, Enabled\n"
        "GPU-91672fbd-4bc1-0434-a653-77a9501c84de, Disabled, Disabled\n"
        "GPU-b4199570-ed3c-2a6b-646a-af77be93eac5, Disabled, Disabled\n"
        "GPU-1a4dff29-ab6d-9f64-f125-8b7cebdaac4a, Disabled, Disabled"
    )
    assert mig_gpus(dra) == {0: True, 1: False, 2: False, 3: False}
    assert loud(matrix, dra) == {"SC1121": Severity.WARNING}
    pending = dra.replace("Enabled, Enabled", "Disabled, Enabled")
    assert [o.value for o in read_report(pending, "p").snapshot.observed] == [
        "GPU 0: MIG Disabled, pending Enabled"
    ]
    assert loud(matrix, pending) == {"SC1121": Severity.WARNING}
    nvtop = "$ nvidia-smi --query-gpu=mig.mode.current\nmig.mode.current\n[N/A]"
    assert read_report(nvtop, "p").recognised and findings(matrix, nvtop) == {}
    fields = (
        "name, driver_version, persistence_mode, compute_mode, compute_cap, memory.total [MiB]\n"
        "NVIDIA A100-SXM4-80GB, 535.104.05, Disabled, Exclusive_Process, 8.0, 81920 MiB"
    )
    snapshot = read_report(fields, "p").snapshot
    assert snapshot.installations(ComponentName.DRIVER)[0].version == "535.104.05"
    assert [(g.name, g.compute_capability) for g in snapshot.gpus.devices] == [
        ("NVIDIA A100-SXM4-80GB", "8.0")
    ]
    assert findings(matrix, fields) == {"SC1120": Severity.INFO, "SC1322": Severity.INFO}
    for other in ("name, version\ntorch, 2.1.0", "uuid, index\nabc, 0"):
        assert not read_report(other, "p").recognised, other


def test_vllm_finding_no_gpu_platform(matrix: Matrix) -> None:
    """vLLM's `No platform detected` (0.7+) and `Failed to infer device type`: CUDA unavailable
    to the process, which names no cause alone; beside a `docker run` without a GPU request
    (vllm-project/vllm#13946's kind) the missing request is the cause."""
    for said in (
        "INFO 05-14 04:44:35 [__init__.py:243] No platform detected, vLLM is running on "
        "UnspecifiedPlatform",
        "RuntimeError: Failed to infer device type",
    ):
        snapshot = read_report(said, "p").snapshot
        assert [o.kind for o in snapshot.observed] == ["cuda-unavailable"], said
        assert loud(matrix, said) == {}, said
    run = "docker run --rm -p 8000:8000 vllm/vllm-openai:latest --model /mnt/model"
    failed = f"{run}\nRuntimeError: Failed to infer device type"
    assert loud(matrix, failed)["SC531"] is Severity.ERROR


def test_a_driver_said_to_be_too_old_for_the_cuda_needed(matrix: Matrix) -> None:
    """635: "This nvidia drivers are not compatible with cuda 12+." beside driver 510 and a
    pip install of a CUDA 12 build: the reporter's word is a warning (the versions shown do
    not settle it); a question, a condition or a workaround already taken is not."""
    assert loud(matrix, body("635")) == {"SC101": Severity.WARNING}
    said = (
        "This nvidia drivers are not compatible with cuda 12+.",
        "My driver only supports CUDA 11.4 and I cannot upgrade it.",
        "The host driver doesn't support CUDA 12.4.",
    )
    unsaid = (
        "Is my driver too old for CUDA 12?",
        "If the driver is too old for CUDA 12, use the cu118 wheel.",
        "My driver is not compatible with CUDA 12, so I installed the cu118 build.",
        "The driver supports CUDA 12.4.",
    )
    reads(matrix, "SC101", Severity.WARNING, said, unsaid)


def test_program_level_xids_and_one_gpu_that_keeps_logging_them(matrix: Matrix) -> None:
    """Xid 13, 31 and 43 are usually a program's own fault: advice (480, 478 are healthy). 477:
    one GPU logged Xid 43 for four different processes and another Xid 31 for three: the GPU
    is the common factor, a warning. On a machine known to have one GPU, every program's fault
    lands on it: no GPU to compare with, advice."""
    assert loud(matrix, body("477")) == {"SC1117": Severity.WARNING}
    for key in ("478", "480"):
        assert findings(matrix, body(key)) == {"SC1117": Severity.INFO}, key
    one = "[Thu Jan 28 00:16:35 2021] NVRM: Xid (PCI:0000:3d:00): 43, pid={}, Ch 00000008"
    same = "\n".join(one.format(1405) for _ in range(4))
    assert findings(matrix, same) == {"SC1117": Severity.INFO}  # one process, four times
    many = "\n".join(one.format(pid) for pid in (1405, 11101, 35521))
    assert findings(matrix, many) == {"SC1117": Severity.INFO}  # the only GPU known
    other = one.format(2001).replace("3d:00", "db:00")
    report = check(read_report(f"{many}\n{other}", "pasted").snapshot, matrix)
    levels = {(f.id, f.severity) for f in report.findings}
    assert levels == {("SC1117", Severity.WARNING), ("SC1117", Severity.INFO)}  # 3d:00, db:00


def test_a_host_said_to_have_no_gpu_or_a_vm_display_makes_no_driver_advice(matrix: Matrix) -> None:
    """776 (the toolkit's hook on a host "No GPUs are present on"), 779 (PyTorch's "Found no
    NVIDIA driver" in a VM whose lspci shows only VMware's emulated adapter): no GPU to use, so
    advice; the same messages with a GPU shown, or a container named, stay errors."""
    assert findings(matrix, body("776")) == {"SC532": Severity.INFO}
    assert findings(matrix, body("779")) == {"SC532": Severity.INFO}
    hook = example("container-cli-driver-not-loaded")
    no_gpu = (
        "No GPUs are present on the host",
        "no NVIDIA GPU is installed in this machine",
        "00:02.0 VGA compatible controller: VMware SVGA II Adapter",
        "00:02.0 VGA compatible controller: InnoTek Systemberatung GmbH VirtualBox Graphics "
        "Adapter",
        "00:08.0 VGA compatible controller: Microsoft Corporation Hyper-V virtual VGA",
        "00:02.0 VGA compatible controller: Device 1234:1111 (rev 02)",
        "The build server has no GPU.",
    )
    assert severities(matrix, "SC532", tuple(f"{hook}\n{s}" for s in no_gpu)) == {Severity.INFO}
    not_gpu_less = (
        "No GPUs are present in the container",
        "no GPUs are present on the nodes",
        "03:00.0 VGA compatible controller: ASPEED Technology, Inc. ASPEED Graphics Family",
        "00:02.0 VGA compatible controller: VMware SVGA II Adapter\n"
        "0b:00.0 3D controller: NVIDIA Corporation GV100GL [Tesla V100 PCIe 32GB] (rev a1)",
    )
    texts = tuple(f"{hook}\n{s}" for s in not_gpu_less)
    assert severities(matrix, "SC532", texts) == {Severity.ERROR}


def test_a_64k_memlock_limit_said_in_words_with_its_fix(matrix: Matrix) -> None:
    """773 (Slurm under systemd: "the soft memlock setting is being set to 64K", "necessary to
    setup unlimited memlock"), 774 (a systemd service: "RLIMIT_MEMLOCK being set to just 64K
    bytes", "add LimitMEMLOCK=infinity"): the limit with the fix named is the finding; the
    limit alone is advice, and the setting alone (a healthy unit file) says nothing. The fix
    named alone is the report's word that the limit had to be raised: a warning too."""
    assert loud(matrix, body("773")) == {"SC511": Severity.WARNING}
    assert loud(matrix, body("774")) == {"SC511": Severity.WARNING}
    for limit in (
        "The soft memlock setting is being set to 64K during job start.",
        "RLIMIT_MEMLOCK was set to just 64K bytes.",
        "max locked memory is 64 kB in the pod.",
    ):
        assert findings(matrix, limit) == {"SC511": Severity.INFO}, limit
        for fix in (
            "The fix is to add LimitMEMLOCK=infinity to the service file.",
            "It is necessary to set unlimited memlock for InfiniBand.",
        ):
            assert loud(matrix, f"{limit}\n{fix}") == {"SC511": Severity.WARNING}, (limit, fix)
    assert findings(matrix, "[Service]\nLimitMEMLOCK=infinity") == {}
    fix = "The fix is to add LimitMEMLOCK=infinity to the service file."
    assert findings(matrix, fix) == {"SC511": Severity.WARNING}


def test_a_gpu_older_or_newer_than_the_build_said_by_tensorflow_or_in_words(matrix: Matrix) -> None:
    """789: TensorFlow ignoring a Fermi GTX 460 (cc 2.1) below its 3.0 minimum, in its 1.x and
    2.x wordings (gpu_device.cc); 753: "RTX 50xx requires sm_120" beside torch 2.7.0+cu126, a
    build without sm_120 (the series' capability, https://developer.nvidia.com/cuda-gpus)."""
    assert loud(matrix, body("789")) == {"SC202": Severity.ERROR}
    assert loud(matrix, body("753")).get("SC202") is Severity.ERROR
    tf2 = (
        "2021-03-01 10:00:00.000000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1757] "
        "Ignoring visible gpu device (device: 0, name: GeForce GT 730, pci bus id: 0000:01:00.0, "
        "compute capability: 3.5) with Cuda compute capability 3.5. The minimum required Cuda "
        "capability is 3.7."
    )
    assert loud(matrix, tf2) == {"SC202": Severity.ERROR}
    said = "RTX 50xx requires sm_120"
    for torch in ("torch 2.7.0+cu126", "PyTorch version: 2.6.0+cu124"):
        assert loud(matrix, f"{torch}\n{said}").get("SC202") is Severity.ERROR, torch
    assert "SC202" not in findings(matrix, f"torch 2.7.0+cu128\n{said}")
    assert findings(matrix, "Does the RTX 5090 need sm_120?") == {}


def test_an_uncorrectable_ecc_error_said_in_words(matrix: Matrix) -> None:
    """783: "GPU is not usable due to Uncorrectable ECC Error" beside a device plugin that calls
    the GPU healthy; the other ways a report says it, and the ways it says there are none."""
    assert loud(matrix, body("783")) == {"SC1116": Severity.ERROR}
    reads_alike(
        matrix,
        {"SC1116": Severity.ERROR},
        (
            "The A100 has uncorrectable ECC errors since yesterday.",
            "One GPU shows 3 uncorrectable ECC errors.",
            "The job died after an uncorrected memory error.",
        ),
        (
            "nvidia-smi shows no uncorrectable ECC errors.",
            "Is this due to uncorrectable ECC errors?",
            "If the GPU has uncorrectable ECC errors, reset it.",
            "The GPU has 0 uncorrectable ECC errors.",
        ),
        how=loud,
    )


def test_torch_cuda_and_nvcc_said_to_differ(matrix: Matrix) -> None:
    """746: "my torch.version.cuda is 9.0.176, but my nvcc --version is 10.0" (a torch-scatter
    build): a warning for extension builds; the same release on both sides says nothing."""
    assert loud(matrix, body("746")) == {"SC203": Severity.WARNING}
    assert loud(matrix, "torch.version.cuda = '11.8' and nvcc: release 12.1") == {
        "SC203": Severity.WARNING
    }
    assert loud(matrix, "my torch.version.cuda is 11.8.0, and nvcc --version is 11.8") == {}


PRIVILEGED_POD = """apiVersion: v1
kind: Pod
metadata:
  name: gpu-pod
spec:
  containers:
  - name: cuda
    image: nvidia/cuda:12.4.1-base-ubuntu22.04
    securityContext:
      privileged: {privileged}
    resources:
      limits:
        nvidia.com/gpu: {gpus}
"""


def test_cuda_visible_devices_counts_from_zero_inside_a_container(matrix: Matrix) -> None:
    """devito#2710 (corpus 790): the host's CUDA_VISIBLE_DEVICES=1 passed into a container given
    `--gpus device=1`, where that GPU is device 0; compose and a pod limit number the same way."""
    for spec in (
        "docker run --gpus device=1 -e CUDA_VISIBLE_DEVICES=1 img python train.py",
        "docker run --gpus '\"device=2,3\"' -e CUDA_VISIBLE_DEVICES=2,3 img",
        "docker run --gpus 1 --env CUDA_VISIBLE_DEVICES=3 img",
        "docker run --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=3 -e CUDA_VISIBLE_DEVICES=3 img",
        "services:\n  t:\n    image: img\n    environment:\n      - CUDA_VISIBLE_DEVICES=2\n"
        "    deploy:\n      resources:\n        reservations:\n          devices:\n"
        "            - driver: nvidia\n              device_ids: ['2']\n"
        "              capabilities: [gpu]\n",
    ):
        assert findings(matrix, spec).get("SC1323") is Severity.ERROR, spec
    for spec in (
        "docker run --gpus device=1 -e CUDA_VISIBLE_DEVICES=0 img",
        "docker run --gpus all -e CUDA_VISIBLE_DEVICES=3 img",
        "docker run --gpus 2 -e CUDA_VISIBLE_DEVICES=1 img",
        "docker run --gpus 1 -e CUDA_VISIBLE_DEVICES=GPU-5f8c7b1e img",
        "docker run --runtime=nvidia -e CUDA_VISIBLE_DEVICES=1 img",
    ):
        assert "SC1323" not in findings(matrix, spec), spec


def test_a_privileged_container_sees_every_gpu(matrix: Matrix) -> None:
    """kubernetes#81256 (corpus 787): a privileged pod with `nvidia.com/gpu: 1` sees both GPUs
    of its node. A warning where the host shows more GPUs than asked, advice where it shows
    none, nothing for the whole host (privileged for EFA on a p5) or without privileges."""
    pod = PRIVILEGED_POD.format(privileged="true", gpus=1)
    assert findings(matrix, pod).get("SC1324") is Severity.INFO
    g5 = f"Instance type: g5.12xlarge\n\n{pod}"  # four A10G
    assert findings(matrix, g5).get("SC1324") is Severity.WARNING
    assert findings(matrix, "docker run --privileged --gpus '\"device=0\"' img").get("SC1324") in (
        Severity.INFO,
    )
    assert "SC1324" not in findings(matrix, PRIVILEGED_POD.format(privileged="false", gpus=1))
    assert "SC1324" not in findings(matrix, "docker run --privileged --gpus all img")
    p5 = f"instance type: p5.48xlarge\n\n{PRIVILEGED_POD.format(privileged='true', gpus=8)}"
    assert "SC1324" not in findings(matrix, p5)


def test_cuda_unavailable_and_a_capability_mismatch_said_in_words(matrix: Matrix) -> None:
    """645: pip's plain Windows torch wheel and "check whether CUDA is available, then it is
    not" (a CPU build, SC201); 537: "CUDA Compute Capabilities not math" (the build lacks the
    GPU's architecture, SC202). Questions and conditions are not read."""
    assert loud(matrix, body("645")) == {"SC201": Severity.WARNING}
    assert loud(matrix, body("537")).get("SC202") is Severity.ERROR
    wheel = "  Downloading torch-1.7.1-cp38-cp38-win_amd64.whl (184.0 MB)"
    for said in ("Torch shows cuda not available.", "But CUDA is unavailable in python."):
        assert loud(matrix, f"{wheel}\n{said}") == {"SC201": Severity.WARNING}, said
    for said in (
        "Why is CUDA not available?",
        "If CUDA is not available, it falls back.",
        "WARNING: CUDA not available, using CPU instead.",
    ):
        assert loud(matrix, f"{wheel}\n{said}") == {}, said
    for said in ("The compute capability does not match.", "compute capabilities mismatch"):
        assert loud(matrix, said) == {"SC202": Severity.ERROR}, said
    assert loud(matrix, "Does the compute capability not match?") == {}


def test_the_kernel_module_failing_to_take_the_gpu(matrix: Matrix) -> None:
    """NVRM's RmInitAdapter failure (NVIDIA/open-gpu-kernel-modules#789, and the older form
    without the GPU's address, Bumblebee-Project/Bumblebee#722) and a GPU the release does not
    support, in the wrapped lines of 2011 (MrMEEE/bumblebee-Old-and-abbandoned#583) and 2023
    (flatcar/Flatcar#1283): the GPU is unusable. A GPU the driver found but could not
    initialise is the GPU's health (SC1117; the machine's other GPUs still work,
    microsoft/pai#4344), one the release does not support is a GPU nothing can see (SC532)."""
    for text in (
        "[  903.610907] NVRM: GPU 0000:98:00.0: RmInitAdapter failed! (0x62:0x65:1792)\n"
        "[  903.611884] NVRM: GPU 0000:98:00.0: rm_init_adapter failed, device minor number 0",
        "[87669.726564] NVRM: RmInitAdapter failed! (0x26:0xffff:1375)",
    ):
        assert loud(matrix, text) == {"SC1117": Severity.ERROR}, text
    for text in (
        "[  652.483304] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1050) installed\n"
        "[  652.483305] NVRM: in this system is not supported by the 280.13 NVIDIA Linux\n"
        "[  652.483306] NVRM: graphics driver release.  Please see 'Appendix A -",
        "[130852.530546] NVRM: The NVIDIA GPU 0000:02:00.0 (PCI ID: 10de:1b38)\n"
        "                NVRM: installed in this system is not supported by the\n"
        "                NVRM: NVIDIA 535.104.05 driver release.",
    ):
        assert loud(matrix, text) == {"SC532": Severity.ERROR}, text
    assert findings(matrix, "This GPU is not supported by the driver in this system?") == {}


def test_nvml_refused_for_permissions(matrix: Matrix) -> None:
    """NVML's NVML_ERROR_NO_PERMISSION as nvidia-smi prints it in a container
    (NVIDIA/nvidia-docker#676) and as the toolkit's hook does (NVIDIA/nvidia-docker#1523)."""
    hook = (
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:367: "
        "starting container process caused: process_linux.go:495: container init caused: Running "
        "hook #0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: "
        "initialization error: nvml error: insufficient permissions: unknown."
    )
    for text in ("`Failed to initialize NVML: Insufficient Permissions`", hook):
        assert loud(matrix, text) == {"SC532": Severity.ERROR}, text


def test_a_privileged_container_said_to_see_every_gpu(matrix: Matrix) -> None:
    """787 (kubernetes#81256): "privileged is set true in yaml" and "I can see all two GPU cards
    in the container" with a one-GPU limit; either statement alone, or denied, says nothing."""
    assert loud(matrix, body("787")) == {"SC1324": Severity.WARNING}
    privileged = "We run the pod with `--privileged` for the InfiniBand devices."
    seen = "Now I can see all 8 GPUs inside the container."
    assert loud(matrix, f"{privileged}\n{seen}") == {"SC1324": Severity.WARNING}
    reads_alike(
        matrix,
        {},
        (privileged, seen, f"{privileged}\nI can't see all GPUs in the container."),
        (),
        how=loud,
    )
    assert loud(matrix, f"The pod is not privileged.\n{seen}") == {}


def test_docker_run_named_in_a_sentence_is_no_spec() -> None:
    """790 (devito#2710): "for `docker run` when using ..." and "for docker run means that ...":
    the command named, not written, so no container spec (one "without a GPU request")."""
    assert not read_report(body("790"), "pasted").snapshot.run_specs
    for prose in (
        "Cannot set `--env CUDA_VISIBLE_DEVICES` for `docker run` when using `--gpus`.",
        "setting --env CUDA_VISIBLE_DEVICES for docker run means that the env is passed.",
    ):
        assert not read_report(prose, "pasted").snapshot.run_specs, prose
    for command in (
        "docker run ubuntu nvidia-smi",
        "`docker run --gpus all nvidia/cuda:12.4.1-base`",
    ):
        assert read_report(command, "pasted").snapshot.run_specs, command


def test_memlock_limits_as_proc_limits_and_intel_mpi_print_them(matrix: Matrix) -> None:
    """/proc/PID/limits of slurmctld with a 64 KiB locked-memory limit in bytes
    (clustervision/trinity#498): the limit (SC511, a warning once RDMA is named); Intel MPI's
    `DAPL startup: RLIMIT_MEMLOCK too small` per rank (firemodels/fds#6023): SC1321."""
    limits = (
        "Limit                     Soft Limit           Hard Limit           Units     \n"
        "Max locked memory         65536                65536                bytes     "
    )
    assert findings(matrix, limits) == {"SC511": Severity.INFO}
    unlimited = limits.replace("65536                65536", "unlimited            unlimited")
    assert findings(matrix, unlimited) == {}
    fix = "It is necessary to set unlimited memlock for InfiniBand."
    assert loud(matrix, f"{limits}\n{fix}") == {"SC511": Severity.WARNING}
    dapl = "[0] DAPL startup: RLIMIT_MEMLOCK too small\n[1] DAPL startup: RLIMIT_MEMLOCK too small"
    assert loud(matrix, dapl) == {"SC1321": Severity.WARNING}


def test_the_container_hook_failing_at_ldconfig(matrix: Matrix) -> None:
    """libnvidia-container's ldcache errors: an ldconfig path that does not exist
    (hekmak/Conf-net#5) and one that fails (NVIDIA/nvidia-container-toolkit#147)."""
    failed = (
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: "
        "starting container process caused: process_linux.go:545: container init caused: Running "
        "hook #0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: "
        "ldcache error: process /sbin/ldconfig.real failed with error code: 1: unknown."
    )
    assert loud(matrix, failed) == {"SC532": Severity.ERROR}
    assert loud(matrix, example("container-cli-ldcache-error")) == {"SC532": Severity.ERROR}


def test_a_vgpu_guest_whose_driver_the_host_refuses(matrix: Matrix) -> None:
    """1117 (skypilot-org/skypilot#10468): a GRID 535 guest on vGPU 18 hosts logs Xid 78 (vGPU
    start error) and sees no GPU: the driver, not a program; the firmware halt (62) and the
    unrecovered ECC error (140) of the same catalogue are errors too."""
    assert loud(matrix, body("1117")) == {"SC1117": Severity.ERROR}
    for code in ("78", "62", "140"):
        line = f"NVRM: Xid (PCI:0000:00:10): {code}, pid=1234, name=python\n"
        assert findings(matrix, line) == {"SC1117": Severity.ERROR}, code


def test_a_gpu_said_to_have_dropped_off_the_bus(matrix: Matrix) -> None:
    """1177 (NVIDIA/nvidia-docker#1553): 'the GPU ... caused it to drop off the bus', said in
    the words people use for Xid 79."""
    assert loud(matrix, body("1177")) == {"SC1117": Severity.ERROR}
    reads_alike(
        matrix,
        {"SC1117": Severity.ERROR},
        (
            "The GPU linked to the container entered some error state that caused it to drop "
            "off the bus.\n",
            "One of the cards fell off the PCIe bus during training.\n",
            "After an hour GPU 3 disappeared from the bus.\n",
        ),
        (
            "Does the GPU fall off the bus if the riser is loose?\n",
            "The GPU never dropped off the bus on the old driver.\n",
            "The GPU's traffic goes from the PCIe bus to the CPU.\n",
        ),
    )


# NVIDIA/gpu-operator#559 (2023-07-28): GPU 0 of an A40 node, every sensor ERR! while nvidia-smi
# stalled; GPU 1 healthy beside it.
_SMI_ERR = """\
| NVIDIA-SMI 525.125.06   Driver Version: 525.125.06   CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  ERR!                On   | 00000000:19:00.0 Off |                 ERR! |
|ERR!  ERR! ERR!    ERR! / ERR! |      0MiB / 46068MiB |    ERR!      Default |
|                               |                      |                 ERR! |
+-------------------------------+----------------------+----------------------+
|   1  NVIDIA A40          On   | 00000000:1A:00.0 Off |                    0 |
|  0%   26C    P8    12W / 300W |      0MiB / 46068MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""


def test_a_gpu_whose_sensors_nvidia_smi_cannot_read(matrix: Matrix) -> None:
    """ERR! in a GPU's cells: NVML lists the GPU but cannot read it (a warning: look for the
    Xid). One ERR! alone is a sensor the board or the moment lacks (Azure/azhpc-diagnostics#77:
    a V100's power reading, 'transient ... no action to be taken')."""
    assert loud(matrix, _SMI_ERR) == {"SC1117": Severity.WARNING}
    one = (
        "|   1  Tesla V100-PCIE...  On   | 00008ED0:00:00.0 Off |                    0 |\n"
        "| N/A   29C    P0   ERR! / 250W |    593MiB / 16160MiB |      0%      Default |\n"
    )
    assert "SC1117" not in findings(matrix, one)
