"""The fourteenth pass's readings on GPU visibility, modes and architectures: positive evidence
that a machine has no NVIDIA GPU (an EC2 family the matrix knows carries none, the kernel refusing
the nvidia module), on shapes of text beyond the corpus reports they were written for."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.matrix.index import MatrixIndex
from stackcheck.snapshot.model import ObservationKind
from tests.corpus import body
from tests.test_triage_gpu_stack import findings, loud, severities

_PLUGIN = "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.\n"
_NO_DEVICE = "cudaGetDeviceCount failed no CUDA-capable device is detected\n"


def test_a_non_gpu_instance_type_makes_no_gpu_advice(matrix: Matrix) -> None:
    """awslabs/amazon-eks-ami#1470 (1365): NVIDIA's device plugin on an inf1.xlarge node (AWS
    Inferentia, no NVIDIA GPU). Other non-NVIDIA families named the same way read alike; a GPU
    family keeps the error."""
    assert findings(matrix, body("1365")).get("SC532") is Severity.INFO
    for named in ("inf2.8xlarge", "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge"):
        text = f"Instance type: {named}\n" + _PLUGIN
        assert findings(matrix, text).get("SC532") is Severity.INFO, named
    assert findings(matrix, "Instance type: g5.xlarge\n" + _PLUGIN).get("SC532") is Severity.ERROR


def test_a_gpu_shown_outweighs_the_instance_type(matrix: Matrix) -> None:
    """A GPU listed by nvidia-smi beside a non-GPU instance type (a mistyped type, a second
    machine): the GPU shown keeps SC532 an error."""
    gpu = "GPU 0: Tesla T4 (UUID: GPU-2b1bd2a5-a3b1-5bd4-9dfd-0f1f2a4ac2e1)\n"
    text = "Instance type: inf1.xlarge\n" + gpu + _PLUGIN
    assert findings(matrix, text).get("SC532") is Severity.ERROR


def test_modprobe_no_such_device_makes_no_gpu_advice(matrix: Matrix) -> None:
    """amazon-archives/amazon-dsstne#26 (1366): modprobe's `No such device` for the nvidia
    module (no device for it on the bus) beside CUDA's no-device error; unquoted, insmod's and
    Debian's nvidia_current module name read alike. Beside an lspci line showing an NVIDIA GPU
    it stays an error (the driver then does not support the GPU, or nouveau holds it)."""
    assert findings(matrix, body("1366")).get("SC532") is Severity.INFO
    refused = (
        "modprobe: ERROR: could not insert 'nvidia': No such device\n",
        "insmod: ERROR: could not insert 'nvidia': No such device\n",
        "modprobe: ERROR: could not insert 'nvidia_current': No such device\n",
    )
    assert severities(matrix, "SC532", tuple(r + _NO_DEVICE for r in refused)) == {Severity.INFO}
    lspci = "00:1e.0 3D controller: NVIDIA Corporation GV100GL [Tesla V100 SXM2 16GB] (rev a1)\n"
    text = lspci + "modprobe: ERROR: could not insert 'nvidia': No such device\n" + _NO_DEVICE
    assert findings(matrix, text).get("SC532") is Severity.ERROR


def test_the_matrix_names_non_gpu_families(matrix: Matrix) -> None:
    """The table is read from Karpenter's instance-type reference: CPU-only and other-accelerator
    families are named; NVIDIA GPU families and unknown families are not."""
    index = MatrixIndex(matrix)
    none = index.non_gpu_family("c5.xlarge")
    assert none is not None and none.accelerator == "none"
    inferentia = index.non_gpu_family("inf1.xlarge")
    assert inferentia is not None and "Inferentia" in inferentia.accelerator
    for gpu_type in ("p4d.24xlarge", "g5.xlarge", "g4dn.xlarge", "p3.2xlarge", None, "foo"):
        assert index.non_gpu_family(gpu_type) is None, gpu_type


def _observed(text: str, kind: ObservationKind) -> list[str]:
    snapshot = read_report(text, "pasted").snapshot
    return [o.value or "" for o in snapshot.observations(kind)]


def test_vllm_names_the_gpu_and_its_capability(matrix: Matrix) -> None:
    """vllm-project/vllm#730 (1345), #1153 (1343): vLLM's bfloat16 refusal names the GPU and its
    compute capability; the GPU is read and the refusal (a dtype choice) raises nothing. The
    later form (`... GPU has compute capability 7.5. You can use float16 instead ...`) alike."""
    for text, name, cc in (
        (body("1345"), "Tesla V100-SXM2-32GB", "7.0"),
        (
            "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least "
            "8.0. Your Tesla T4 GPU has compute capability 7.5. You can use float16 instead by "
            "explicitly setting the`dtype` flag in CLI, for example: --dtype=half.\n",
            "Tesla T4",
            "7.5",
        ),
    ):
        gpus = read_report(text, "pasted").snapshot.gpus.devices
        assert [(g.name, g.compute_capability) for g in gpus] == [(name, cc)]
        assert loud(matrix, text) == {}


def test_a_framework_minimum_capability_is_gpu_arch(matrix: Matrix) -> None:
    """vllm-project/vllm#1284 (1344): vLLM's build refuses a GPU below compute capability 7.0
    (a Tesla P100, 6.0): the framework has no kernels for it (SC202)."""
    assert findings(matrix, body("1344")).get("SC202") is Severity.ERROR
    alone = "RuntimeError: GPUs with compute capability below 7.0 are not supported.\n"
    assert findings(matrix, alone).get("SC202") is Severity.ERROR


def test_two_ranks_on_one_gpu_is_read_and_raises_nothing(matrix: Matrix) -> None:
    """verl#1752 (1301), OpenRLHF#726 (1303): NCCL's `Duplicate GPU detected` and a sentence
    saying ranks sit on one GPU are a launcher's placement: read, and no finding."""
    for text in (
        body("1301"),
        body("1303"),
        "pool0-00008:1391870:1393239 [7] init.cc:904 NCCL WARN Duplicate GPU detected : rank 15 "
        "and rank 7 both on CUDA device e4000\n",
        "Both processes end up on the same GPU.\n",
        "两个进程在同一张卡上\n",
    ):
        assert _observed(text, "ranks-share-gpu"), text
        assert loud(matrix, text) == {}, text
    for text in ("Make sure the ranks are not on the same GPU.\n", "Are both ranks on one GPU?\n"):
        assert not _observed(text, "ranks-share-gpu"), text


_SRUN = "srun -p gpu --container-image=nvcr.io#nvidia/pytorch:24.01-py3 --gres=gpu:1 python t.py\n"
_CGROUP = "CgroupAutomount=yes\nConstrainCores=yes\nConstrainRAMSpace=yes\n"


def test_pyxis_job_without_the_device_cgroup(matrix: Matrix) -> None:
    """NVIDIA/pyxis#47 (1360): a GPU job in a pyxis container, the nodes' cgroup.conf without
    ConstrainDevices=yes, CUDA_VISIBLE_DEVICES=2 inside: an error (SC1323). Without the index
    shown it is a warning; `ConstrainDevices=no` said alone reads alike; `--gpus`, sbatch-less
    srun forms too. With ConstrainDevices=yes, without a container, or without a GPU request,
    nothing."""
    assert findings(matrix, body("1360")).get("SC1323") is Severity.ERROR
    assert findings(matrix, _SRUN + _CGROUP).get("SC1323") is Severity.WARNING
    assert findings(matrix, _SRUN + "ConstrainDevices=no\n").get("SC1323") is Severity.WARNING
    with_index = _SRUN + _CGROUP + "CUDA_VISIBLE_DEVICES=3\n"
    assert findings(matrix, with_index).get("SC1323") is Severity.ERROR
    other = "srun --gpus=2 --container-name=pt bash\n" + _CGROUP
    assert findings(matrix, other).get("SC1323") is Severity.WARNING
    for healthy in (
        _SRUN + _CGROUP + "ConstrainDevices=yes\n",
        "srun -p gpu --gres=gpu:1 python t.py\n" + _CGROUP,
        "srun -p cpu --container-image=ubuntu:22.04 hostname\n" + _CGROUP,
        _SRUN + _CGROUP.replace("Cgroup", "#Cgroup").replace("Constrain", "#Constrain"),
    ):
        assert "SC1323" not in findings(matrix, healthy), healthy
    # commented out, the setting is off (Slurm's default)
    off = _SRUN + _CGROUP + "#ConstrainDevices=yes\n"
    assert findings(matrix, off).get("SC1323") is Severity.WARNING


def test_a_zsh_prompt_is_a_prompt() -> None:
    """oh-my-zsh's default prompt (`➜  ~ `, `➜  repo git:(main) ✗ `) before a command, as in
    NVIDIA/pyxis#47: the command is read as one."""
    for typed in ("➜  ~ ", "➜  stackcheck git:(main) ✗ ", "➜ /data ", "➜  ~/src ", "➜ "):
        text = typed + "srun -p gpu --gres=gpu:A100:1 nvidia-smi\n"
        assert _observed(text, "gpu-implied") == ["--gres=gpu:A100:1"], typed


def test_mig_said_in_mixed_case(matrix: Matrix) -> None:
    """triton-inference-server/server#5818 (1350): `Nvidia A100 in MiG mode`, `7 MiG instances`:
    MIG written capitalised or mixed is MIG stated (SC1121); a lower-case substring is not."""
    assert findings(matrix, body("1350")).get("SC1121") is Severity.WARNING
    for said in ("- Nvidia A100 in MiG mode\n", "Divided into 7 Mig instances\n"):
        assert _observed(said, "mig-stated"), said
    for other in ("We plan to migrate the cluster.\n", "the MiG-29 in flight\n"):
        assert not _observed(other, "mig-stated"), other


_NVCC_90 = "nvcc fatal   : Unsupported gpu architecture 'compute_90'\n"


def test_a_build_target_newer_than_the_gpu_here_is_advice(matrix: Matrix) -> None:
    """NVIDIA/Megatron-LM#278 (1307): a fused-kernel build hard-coding compute_90 fails under
    CUDA 11.7's nvcc on a p4d (A100, 8.0): the target is not this machine's GPU, so SC202 is
    advice. The same target unknown on an H100 (the GPU itself), or with no GPU shown, stays an
    error."""
    assert findings(matrix, body("1307")).get("SC202") is Severity.INFO
    older = ("Instance type: p4d.24xlarge\n", "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1)\n")
    assert severities(matrix, "SC202", tuple(h + _NVCC_90 for h in older)) == {Severity.INFO}
    same = ("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n", "Instance type: p5.48xlarge\n", "")
    assert severities(matrix, "SC202", tuple(h + _NVCC_90 for h in same)) == {Severity.ERROR}


def test_a_gpu_the_reporter_lacks_is_not_read() -> None:
    """`I don't have a H100 machine to test` (1307) names a GPU the reporter does not have."""
    for lacked in (
        "but I don't have a H100 machine to test.\n",
        "We do not have access to 8x H100\n",
        "without an 8x H100 node\n",
    ):
        assert not read_report(lacked, "pasted").snapshot.gpus.devices, lacked
    for had in ("We run on 8x H100\n", "no problem on 8x H100\n"):
        assert read_report(had, "pasted").snapshot.gpus.devices, had


def test_cpu_instance_types_are_read(matrix: Matrix) -> None:
    """aws/amazon-ecs-agent#2424 (1364, `a c5.4xlarge`): the general-purpose, compute, memory and
    HPC families are instance types too; with CUDA's no-device error they make SC532 advice,
    and the matrix knows them (no SC901). Model names that look alike (`t5-large`) are not."""
    for named in ("c5.4xlarge", "m6g.xlarge", "t3.medium", "ml.m5.large", "r7i.metal", "t2.micro"):
        text = f"I launched a {named}\nRuntimeError: No CUDA GPUs are available\n"
        snapshot = read_report(text, "pasted").snapshot
        assert snapshot.instance.type == named.removeprefix("ml."), named
        got = findings(matrix, text)
        assert got.get("SC532") is Severity.INFO and "SC901" not in got, named
    for other in ("google/t5-large", "t5.large checkpoint"):
        assert read_report(other + "\n", "pasted").snapshot.instance.type is None, other
