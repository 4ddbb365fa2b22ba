"""Each format of triage on real text: corpus bodies (cited in tests/data/reports) and, where the
corpus lacks a layout, real output recorded here or quoted from a cited public thread."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from stackcheck.ingest import read_report
from stackcheck.ingest.facts import (
    ComponentFact,
    EnvFact,
    Fact,
    GpuFact,
    ObservationFact,
    RunSpecFact,
    RuntimeFact,
)
from stackcheck.ingest.lines import clean, sentence_at, sentences, split_lines
from stackcheck.ingest.segment import segment
from stackcheck.snapshot.model import ComponentName, RunSpec, Snapshot
from tests.corpus import body


def snapshot_of(text: str) -> Snapshot:
    return read_report(text, "report.txt").snapshot


def formats_of(text: str) -> list[str]:
    return [s.format.name for s in segment(split_lines(text)) if s.format.name != "prose"]


def facts_of(text: str) -> list[Fact]:
    return read_report(text, "report.txt").facts


def one(snapshot: Snapshot, name: ComponentName) -> tuple[str | None, str | None]:
    [installation] = snapshot.installations(name)
    return installation.version, installation.cuda


def specs(text: str) -> list[RunSpec]:
    return snapshot_of(text).run_specs


# -- lines -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "raw", "text"),
    [
        (
            "041",
            "  | 2025-05-16T16:39:55.216-07:00 | ip-10-36-29-253:84:2553 [0] NCCL INFO NET/IB : No "
            "device found.",
            "ip-10-36-29-253:84:2553 [0] NCCL INFO NET/IB : No device found.",
        ),
        (
            "043",
            "Oct 04 15:02:41 llm sd-webui-forge-start[394]: RuntimeError: CUDA error: no kernel "
            "image is available for execution on the device",
            "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        ),
        (
            "019",
            "(RayTrainWorker pid=355353) NCCL version 2.14.3+cuda11.8",
            "NCCL version 2.14.3+cuda11.8",
        ),
        (
            "034",
            "(py38) [0] rzou@devfair0317:~/binaries_test  $ echo $LD_LIBRARY_PATH",
            "echo $LD_LIBRARY_PATH",
        ),
    ],
)
def test_decorations_come_off_recorded_lines(key: str, raw: str, text: str) -> None:
    assert raw in body(key)
    assert clean(raw)[0] == text


def test_conda_comments_are_not_prompts() -> None:
    assert clean("# EFA installer version: 1.7.0") == ("# EFA installer version: 1.7.0", False)


def test_segments_in_any_order_amid_prose_and_fences() -> None:
    assert formats_of(body("006")) == ["collect_env", "python_packages", "nvidia_smi"]
    assert formats_of(body("022")) == ["launcher", "nccl_log"]
    assert formats_of(body("063")) == ["compose"]


# -- collect_env and its derivatives ------------------------------------------------------------


def test_collect_env_2020_layout_with_yes_no_and_nvidia_smi() -> None:
    snapshot = snapshot_of(body("006"))
    [torch] = snapshot.installations(ComponentName.TORCH)
    assert (torch.version, torch.cuda, torch.properties["cpu_only"]) == ("1.6.0", "10.2", "no")
    assert len(torch.evidence) >= 2  # collect_env's line and the [pip3] line merged
    assert one(snapshot, ComponentName.DRIVER) == ("418.67", "10.1")
    assert [g.name for g in snapshot.gpus.devices] == ["Tesla V100-PCIE-16GB"] * 2
    assert {o.kind for o in snapshot.observed} == {"cuda-unavailable"}


def test_collect_env_without_colon_and_with_full_width_colons() -> None:
    snapshot = snapshot_of(body("012"))
    assert one(snapshot, ComponentName.TORCH)[0] == "1.5.0"
    assert len(snapshot.gpus.devices) == 4
    assert one(snapshot, ComponentName.CUDNN) == ("7.6.5", None)
    assert one(snapshot, ComponentName.CUDA_TOOLKIT) == ("10.0.130", "10.0")


def test_collect_env_cpu_build_reads_could_not_collect() -> None:
    snapshot = snapshot_of(body("010"))
    [torch] = snapshot.installations(ComponentName.TORCH)
    assert torch.properties["cpu_only"] == "yes"
    assert snapshot.platform.os == "Microsoft Windows 11 Education"


def test_vllm_collect_env_and_sglang_check_env() -> None:
    vllm = snapshot_of(body("014"))
    assert one(vllm, ComponentName.TORCH) == ("2.5.1+cu121", "12.1")
    assert vllm.installations(ComponentName.CUDNN)[0].version == "8.9.0"
    sglang = snapshot_of(body("046"))
    assert one(sglang, ComponentName.TORCH) == ("2.7.1+cu126", "12.6")
    assert one(sglang, ComponentName.DRIVER)[0] == "550.127.08"
    assert one(sglang, ComponentName.CUDA_TOOLKIT)[0] == "12.4.131"
    assert [(g.index, g.compute_capability) for g in sglang.gpus.devices] == [
        (i, "9.0") for i in range(8)
    ]


def test_conda_lines_carry_the_cuda_build() -> None:
    torches = snapshot_of(body("060")).installations(ComponentName.TORCH)
    conda = next(t for t in torches if t.version == "1.3.0")
    assert conda.cuda == "10.1.243"
    assert conda.properties["cudnn"] == "7.6.3"


# -- NVIDIA tools ---------------------------------------------------------------------------------


def test_nvidia_smi_table_current_layout() -> None:
    snapshot = snapshot_of(body("057"))
    assert one(snapshot, ComponentName.DRIVER) == ("550.90.07", "12.4")
    [gpu] = snapshot.gpus.devices
    assert (gpu.index, gpu.name, gpu.memory_mib) == (0, "Tesla T4", 15360)
    assert one(snapshot, ComponentName.TORCH) == ("2.5.1+cu124", "12.4")  # python -c output


def test_nvidia_smi_query() -> None:
    snapshot = snapshot_of(body("048"))
    assert one(snapshot, ComponentName.DRIVER) == ("510.68.02", "11.6")
    assert [g.name for g in snapshot.gpus.devices] == ["NVIDIA GeForce GTX 1650"]


# Quoted from NVIDIA/gpu-operator#2511 (comment by rahulait, 2026-06-02): nvidia-smi --query on
# an H100 node whose NVLink fabric never completed.
FABRIC_IN_PROGRESS = """\
/usr/bin/nvidia-smi --query


==============NVSMI LOG==============

Timestamp                                              : Tue Jun  2 09:49:44 2026
Driver Version                                         : 580.159.04
CUDA Version                                           : 13.0

Attached GPUs
    Fabric
        State                                          : In Progress
        Status                                         : N/A
        CliqueId                                       : N/A
        ClusterUUID                                    : N/A
"""


def test_nvidia_smi_query_fabric_state() -> None:
    snapshot = snapshot_of(FABRIC_IN_PROGRESS)
    assert one(snapshot, ComponentName.DRIVER) == ("580.159.04", "13.0")
    assert [(o.kind, o.value) for o in snapshot.observed] == [("fabric-state", "In Progress")]


def test_nvcc_and_nvidia_smi_list() -> None:
    assert one(snapshot_of(body("049")), ComponentName.CUDA_TOOLKIT) == ("9.0.176", "9.0")
    [gpu] = snapshot_of(body("031")).gpus.devices
    assert (gpu.index, gpu.name) == (0, "NVIDIA H200")


# -- NCCL logs ---------------------------------------------------------------------------------


def test_nccl_log_versions_provider_and_env() -> None:
    snapshot = snapshot_of(body("022"))
    assert one(snapshot, ComponentName.NCCL) == ("2.23.4", "12.4")
    assert one(snapshot, ComponentName.OFI_NCCL)[0] == "1.12.1"
    assert one(snapshot, ComponentName.LIBFABRIC)[0] == "1.22"
    assert one(snapshot, ComponentName.DRIVER) == (None, "12.2")
    assert snapshot.env_value("NCCL_SOCKET_IFNAME") == "^docker0"
    assert [o.value for o in snapshot.observations("libfabric-provider")] == ["tcp"]


def test_nccl_channels_without_gdrdma() -> None:
    observed = snapshot_of(body("066")).observations("net-gdr", "net-transport")
    assert {(o.kind, o.value) for o in observed} == {
        ("net-transport", "AWS Libfabric"),
        ("net-gdr", "no"),
    }


def test_bootstrap_socket_lines_are_not_the_transport() -> None:
    snapshot = snapshot_of(body("021"))
    assert not snapshot.observations("net-transport")
    assert [o.value for o in snapshot.observations("libfabric-provider")] == ["efa;ofi_rxr"]


def test_plugin_absent_versus_plugin_broken() -> None:
    absent = snapshot_of(body("040"))
    assert [o.kind for o in absent.observations("net-plugin-missing", "net-plugin-failed")] == [
        "net-plugin-missing"
    ]
    broken = snapshot_of(body("044"))
    assert broken.observations("net-plugin-failed")
    assert [o.value for o in broken.observations("libfabric-symbol-missing")] == ["FABRIC_1.7"]


# NCCL quotes the loader's "cannot open shared object file" for libraries that are not the net
# plugin's: lines built from the format strings at NVIDIA/nccl v2.19.3-1 src/misc/tuner.cc:41,
# v2.30.7-1 src/plugin/plugin_open.cc (tryOpenLibCheck), v2.18.5-1 src/misc/cudawrap.cc:179,
# v2.30.7-1 src/os/linux.cc:615 and src/misc/gdrwrap.cc:73.
@pytest.mark.parametrize(
    "line",
    [
        "h:1:1 [0] NCCL INFO Tuner: plugin load 'libnccl-tuner.so' returned error (2 : "
        "libnccl-tuner.so: cannot open shared object file: No such file or directory), "
        "using default tuner instead.",
        "h:1:1 [0] NCCL INFO TUNER/Plugin: libnccl-tuner-ofi.so: cannot open shared object "
        "file: No such file or directory",
        "h:1:1 [0] NCCL INFO PROFILER/Plugin: libnccl-profiler-inspector.so: cannot open "
        "shared object file: No such file or directory",
        "h:1:1 [0] misc/cudawrap.cc:179 NCCL WARN Failed to find CUDA library libcuda.so "
        "(NCCL_CUDA_PATH='') : libcuda.so: cannot open shared object file: No such file or "
        "directory",
        "h:1:1 [0] NCCL WARN Failed to open libnvidia-ml.so.1: libnvidia-ml.so.1: cannot open "
        "shared object file: No such file or directory",
        "h:1:1 [0] misc/gdrwrap.cc:73 NCCL WARN Failed to open libgdrapi.so - libgdrapi.so: "
        "cannot open shared object file: No such file or directory",
    ],
)
def test_other_nccl_libraries_not_found_are_not_the_net_plugin(line: str) -> None:
    assert not snapshot_of(line).observations("net-plugin-failed", "net-plugin-missing")


def test_net_plugin_dependency_not_found_is_still_read() -> None:
    line = (
        "h:1:1 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libhwloc.so.15: cannot open "
        "shared object file: No such file or directory : when loading libnccl-net.so"
    )
    failed = snapshot_of(line).observations("net-plugin-failed")
    assert "libhwloc.so.15 cannot be opened" in {o.value for o in failed}


def test_ofi_plugin_states_the_drivers_cuda() -> None:
    """aws-ofi-nccl 1.8-1.12 print `Using CUDA driver version 12020` (the corpus's 022,
    aws/aws-ofi-nccl#803), 1.13 on add `with runtime N` (src/nccl_ofi_cuda.cpp's format)."""
    for line, cuda in (
        ("6f2d8a82d208:1287:1328 [0] NCCL INFO NET/OFI Using CUDA driver version 12020", "12.2"),
        ("h:1:1 [0] NCCL INFO NET/OFI Using CUDA driver version 12080 with runtime 12060", "12.8"),
    ):
        driver = snapshot_of(line).installations(ComponentName.DRIVER)
        assert [(n.version, n.cuda) for n in driver] == [(None, cuda)]


def test_ofi_warning_names_the_instance() -> None:
    snapshot = snapshot_of(body("041"))
    assert snapshot.instance.type == "p4d.24xlarge"
    assert snapshot.observations("gdr-disabled", "net-plugin-failed")


# -- libraries, packages, limits ------------------------------------------------------------


def test_fi_info_provider_version_is_the_libfabric_release() -> None:
    snapshot = snapshot_of(body("027"))
    assert one(snapshot, ComponentName.LIBFABRIC)[0] == "1.18.2"  # provider version 118.20
    assert snapshot.runtime.efa_devices == ["rdmap16s27"]
    assert snapshot.instance.type == "p4d.24xlarge"


def test_efa_installed_packages() -> None:
    snapshot = snapshot_of(body("062"))
    assert one(snapshot, ComponentName.EFA_INSTALLER)[0] == "1.7.0"
    assert one(snapshot, ComponentName.LIBFABRIC)[0] == "1.8.1amzn1.2"


def test_ulimit_lsmod_and_df() -> None:
    assert snapshot_of(body("029")).runtime.memlock_bytes == 64 * 1024
    assert snapshot_of(body("023")).runtime.peermem_loaded is False
    assert snapshot_of(body("053")).runtime.shm_bytes == 64 << 20


def test_library_listings() -> None:
    cudnn = snapshot_of(body("067")).installations(ComponentName.CUDNN)
    assert {c.version for c in cudnn} == {"9"}
    assert one(snapshot_of(body("058")), ComponentName.DRIVER)[0] == "375.82"
    nccl = snapshot_of(body("018")).installations(ComponentName.NCCL)
    assert {n.version for n in nccl} == {"2.30.4", "2.28.3"}


def test_pip_show_and_torch_reported_nccl() -> None:
    snapshot = snapshot_of(body("018"))
    assert [o.value for o in snapshot.observations("nccl-loaded")] == ["2.28.9"]


def test_two_nccl_wheels_write_one_file() -> None:
    [nccl] = snapshot_of(body("016")).installations(ComponentName.NCCL)
    assert nccl.properties["wheels"] == "nvidia-nccl-cu11 2.14.3, nvidia-nccl-cu12 2.27.3"


def test_conda_plan_with_a_cpu_pytorch() -> None:
    snapshot = snapshot_of(body("061"))
    [torch] = snapshot.installations(ComponentName.TORCH)
    assert (torch.version, torch.properties["cpu_only"]) == ("1.12.1", "yes")
    assert one(snapshot, ComponentName.CUDA_RUNTIME) == ("10.2.89", "10.2")


@pytest.mark.real_artifacts
def test_real_pip_list_and_freeze_of_the_cuda_wheels(artifacts: Path) -> None:
    """Output of the real pip over the real wheels scripts/prepare-artifacts.sh installed."""
    [site] = list((artifacts / "realroot").glob("opt/pytorch/lib/python3*/site-packages"))
    for command in (["list"], ["list", "--format=freeze"], ["freeze"]):
        done = subprocess.run(
            [sys.executable, "-m", "pip", *command, "--path", str(site)],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        snapshot = snapshot_of(done.stdout)
        assert one(snapshot, ComponentName.NCCL) == ("2.19.3", "12"), command
        assert one(snapshot, ComponentName.CUDA_RUNTIME) == ("12.4.127", "12.4"), command
        [torch] = snapshot.installations(ComponentName.TORCH)
        assert (torch.version, torch.properties["cpu_only"]) == ("2.13.0+cpu", "yes"), command


# -- environment ----------------------------------------------------------------------------


def test_declare_x_states_the_image_nccl() -> None:
    snapshot = snapshot_of(body("017"))
    assert one(snapshot, ComponentName.NCCL) == ("2.15.5", "11.8")
    assert [o.value for o in snapshot.observations("nccl-loaded")] == ["2.19.3"]  # across a fence


def test_json_env_echo_and_launcher_env() -> None:
    job = snapshot_of(body("038"))
    assert job.env_value("NCCL_PROTO") == "simple"
    assert job.env_value("LD_PRELOAD") == "/opt/aws-ofi-nccl/lib/libnccl-net.so"
    assert "TOKENIZERS_PARALLELISM" not in job.env  # not a variable the checks read
    echoed = snapshot_of(body("034")).env_value("LD_LIBRARY_PATH") or ""
    assert echoed.startswith("/public/apps/cudnn/v8.0.3.33-cuda.11.0/cuda/lib64:")
    mpirun = snapshot_of(body("021"))
    assert mpirun.env_value("FI_PROVIDER") == "efa"
    assert mpirun.env_value("NCCL_TREE_THRESHOLD") == "0"


def test_prose_settings_but_not_tool_hints() -> None:
    assert snapshot_of(body("037")).env_value("NCCL_P2P_DISABLE") == "1"
    assert snapshot_of(body("036")).env_value("NCCL_BLOCKING_WAIT") == "1"
    assert "CUDA_LAUNCH_BLOCKING" not in snapshot_of(body("043")).env


# -- run specs -----------------------------------------------------------------------------


def test_docker_run_lines() -> None:
    [horovod] = specs(body("001"))
    assert (horovod.image, horovod.runtime, horovod.gpus) == (
        "nvcr.io/nvidia/tensorflow:20.01-tf1-py3",
        "nvidia",
        "runtime=nvidia",
    )
    before, after = specs(body("004"))
    assert (before.gpus, before.shm_bytes, after.shm_bytes) == ("all", None, 1 << 30)
    [mlperf] = specs(body("024"))
    assert (mlperf.image, mlperf.gpus) == ("nvidia-mlperf:language_model", "all (nvidia-docker)")
    [plain] = specs(body("032"))
    assert (plain.image, plain.gpus, plain.command) == (
        "anibali/pytorch:1.4.0-cuda10.1",
        None,
        "sh",
    )


def test_compose_service_with_broken_indentation() -> None:
    [spec] = specs(body("063"))
    assert (spec.name, spec.image, spec.shm_bytes, spec.memlock_bytes) == (
        "vllm",
        "vllm/vllm-openai:latest",
        int(10.24 * (1 << 30)),
        -1,
    )
    assert spec.gpu_count == 1 and spec.env["CUDA_VISIBLE_DEVICES"] == "0"
    assert "--tensor-parallel-size 4" in (spec.command or "")


def test_kubectl_resource_json_and_hyperpod_job() -> None:
    [limits] = specs(body("051"))
    assert (limits.kind, limits.gpu_count, limits.efa_requested) == ("kubernetes", 8, 0)
    snapshot = snapshot_of(body("052"))
    [job] = [s for s in snapshot.run_specs if s.image]
    assert job.env["NCCL_PROTO"] == "simple" and job.efa_requested is None
    assert any("/dev/shm" in v for v in job.volumes)
    assert snapshot.instance.type == "g5.12xlarge"


POD = """\
apiVersion: v1
kind: Pod
spec:
  containers:
  - name: trainer
    image: nvcr.io/nvidia/pytorch:25.01-py3
    command: ["python", "train.py"]
    env:
    - name: NCCL_DEBUG
      value: INFO
    resources:
      limits:
        nvidia.com/gpu: 8
        vpc.amazonaws.com/efa: 32
    volumeMounts:
    - mountPath: /dev/shm
      name: dshm
"""


def test_kubernetes_pod_spec() -> None:
    snapshot = snapshot_of(POD)
    [pod] = snapshot.run_specs
    assert (pod.name, pod.gpu_count, pod.efa_requested, pod.entrypoint) == (
        "trainer",
        8,
        32,
        "python train.py",
    )
    assert pod.volumes == ["/dev/shm"] and snapshot.env_value("NCCL_DEBUG") == "INFO"


# -- messages ------------------------------------------------------------------------------


def test_error_messages_anywhere() -> None:
    assert [o.value for o in snapshot_of(body("031")).observations("cuda-error")] == ["802"]
    assert snapshot_of(body("033")).observations("no-gpu")
    too_old = snapshot_of(body("009"))
    # The message gives the driver's CUDA; the first sentence states the driver itself (the
    # second's "Upgrading to torch" is that sentence's, not the driver's).
    assert one(too_old, ComponentName.DRIVER) == ("470.182.03", "11.4")
    cudnn = snapshot_of(body("035")).observations("cudnn-mismatch")
    assert [o.value for o in cudnn] == ["compiled against 8.5.0, loaded 8.3.3"]
    assert snapshot_of(body("065")).observations("rdma-enomem")


def test_pytorch_arch_warning_names_gpu_and_arch_list() -> None:
    snapshot = snapshot_of(body("042"))
    [gpu] = snapshot.gpus.devices
    assert (gpu.name, gpu.compute_capability) == ("NVIDIA GeForce RTX 5090", "12.0")
    [torch] = snapshot.installations(ComponentName.TORCH)
    assert torch.archs == ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]


def test_facts_describe_themselves_for_show_parsed() -> None:
    kinds = {type(f) for f in facts_of(body("063")) + facts_of(body("029"))}
    assert {RunSpecFact, EnvFact, RuntimeFact} <= kinds
    assert all(f.describe() for f in facts_of(body("046")))
    assert {GpuFact, ComponentFact} <= {type(f) for f in facts_of(body("046"))}
    assert any(isinstance(f, ObservationFact) for f in facts_of(body("031")))


def test_a_message_wrapped_inside_a_paragraph_is_read_once_with_its_first_line() -> None:
    """107: PyTorch's DataLoader message quoted in a sentence, wrapped over three lines."""
    [bus] = [
        o
        for o in snapshot_of(body("107")).observations("shm-exhausted")
        if "Bus error" in (o.value or "")
    ]
    assert bus.value == "DataLoader worker (pid 47) is killed by signal: Bus error"
    assert bus.evidence.line == 1


def test_a_traceback_through_pytorchs_driver_check_means_cuda_did_not_start() -> None:
    """154: the paste stops at the `_check_driver()` frame, before PyTorch's message."""
    [seen] = snapshot_of(body("154")).observations("cuda-unavailable")
    assert seen.evidence.line == 13


def test_a_sentence_that_says_the_program_ran_in_a_container() -> None:
    """156 says so ("I pulled the official docker image"); 055 speaks of building an image,
    when no GPU is attached, so what the build saw says nothing about the running container."""
    said = snapshot_of(body("156")).platform
    assert said.container is True and said.evidence[0].line == 1
    assert snapshot_of(body("055")).platform.container is None


def test_a_markdown_tables_rows_are_read_cell_by_cell_under_their_column() -> None:
    """146: a table whose third column is `fi_info -p efa`; its header and rule are a break."""
    lines = split_lines(body("146"))
    assert [line.text for line in lines if line.number == 3] == [
        "Pod spec: WITH hostPath (today's manifests)",
        "/dev/infiniband contents: 10 uverbs: 8 EFA + 2 mlx5 (ibp115s0f0/116s0f0) + umad/issm",
        "fi_info -p efa: -61 No data available",
    ]
    assert all(line.fence for line in lines if line.number in (1, 2))
    [missing] = snapshot_of(body("146")).observations("efa-provider-missing")
    assert missing.evidence.line == 3


def test_a_sentence_that_says_the_machines_have_roce() -> None:
    """151: "the V cluster now has RoCE enabled" is read; the next sentence of the same line,
    "The NCCL_IB_DISABLE=1 flag also disables RoCE ...", names RoCE without saying it is there."""
    [stated] = snapshot_of(body("151")).observations("rdma-fabric-stated")
    assert (stated.value, stated.evidence.line) == ("RoCE", 1)
    second = body("151").split(". ", 1)[1]
    assert not snapshot_of(second).observations("rdma-fabric-stated")


def test_nvidia_container_cli_info() -> None:
    """157: `nvidia-container-cli -k -d /dev/tty info` from the container toolkit's issue
    template: the driver and its CUDA, each GPU's model and architecture."""
    snapshot = snapshot_of(body("157"))
    assert one(snapshot, ComponentName.DRIVER) == ("410.104", "10.0")
    [gpu] = snapshot.gpus.devices
    assert (gpu.index, gpu.name, gpu.compute_capability) == (0, "TITAN Xp", "6.1")
    assert "nvidia_container_cli_info" in formats_of(body("157"))


def test_pytorch_with_its_build_tag_in_a_sentence_or_a_log_line() -> None:
    """118: kohya's launcher logs `INFO     Torch 2.0.1+cu118`; the tag names the build."""
    torch = [t for t in snapshot_of(body("118")).installations(ComponentName.TORCH) if t.version]
    assert {(t.version, t.cuda) for t in torch} == {("2.0.1+cu118", "11.8")}
    # A sentence that suggests a build is advice, not the stack.
    assert not snapshot_of("17:22:49-350014 INFO     Try Torch 2.0.1+cu118").installations(
        ComponentName.TORCH
    )


def test_a_message_whole_on_its_line_is_not_read_again_with_the_line_before() -> None:
    """043: journald's line before PyTorch's arch warning ends in `UserWarning:`; joined with
    it, the warning's lazy GPU-name group would take the path in. The warning is read once."""
    snapshot = snapshot_of(body("043"))
    assert [g.name for g in snapshot.gpus.devices] == ["NVIDIA GeForce RTX 5090"]
    assert next(o.value for o in snapshot.observations("no-kernel-image")) == (
        "NVIDIA GeForce RTX 5090 (sm_120)"
    )


def test_nccls_own_version_line_is_not_the_tail_of_the_line_before() -> None:
    """111: rank 0 prints `NCCL version 2.10.3+cuda11.3` on a line of its own, right after
    `Using network Socket`; it is not that line's wrapped tail."""
    snapshot = snapshot_of(body("111"))
    assert [o.value for o in snapshot.observations("net-transport")] == ["Socket"]
    [loaded] = snapshot.observations("nccl-loaded")
    assert (loaded.value, loaded.evidence.line) == ("2.10.3", 8)


def _nccl_stated(text: str) -> list[str | None]:
    """The NCCL versions a text's sentences state (not those its tool output shows)."""
    return [
        n.version
        for n in snapshot_of(text).installations(ComponentName.NCCL)
        if n.properties.get("stated") == "prose"
    ]


def test_nccl_stated_in_a_sentence_or_a_list_item() -> None:
    """320: `Software: NCCL 2.10.3`. 303: `nccl 2.13` in full-width brackets in a sentence,
    then `nccl 2.11 runs ok.` (the comparison, not the stack). 312: `nccl version 2.19.1
    2.19.3 2.19.4` in a sentence, then `When I used nccl 2.18.6, there are no problems.`.
    213: `Failing NCCL runtime: 2.26.2+cuda12.2`, then `Working NCCL runtime tested:
    2.31.2+cuda12.9`. 209: a version bump names the NCCL it replaces (its table of both
    versions' results gives each: a limit)."""
    assert _nccl_stated(body("320")) == ["2.10.3"]
    assert _nccl_stated(body("303")) == ["2.13"]
    assert _nccl_stated(body("312")) == ["2.19.1"]
    assert _nccl_stated(body("213")) == ["2.26.2"]
    assert _nccl_stated(body("209")) == ["2.28.9", "2.30.7"]
    # Advice and words between NCCL and the number are not the NCCL in use.
    assert not _nccl_stated("Please upgrade to NCCL 2.20.3.")
    assert not _nccl_stated("NCCL before 2.29.3 leaks proxy-op slots on aarch64")
    assert not _nccl_stated("We use aws-ofi-nccl 1.7.1 from the EFA installer.")
    assert not _nccl_stated("Bump aws-ofi-nccl from 1.7.1 to 1.8.0")
    assert not _nccl_stated("Since NCCL 2.19.1 cuMem is on by default.")
    assert not _nccl_stated("The plugin is compatible with NCCL 2.18.5.")
    assert not _nccl_stated("AWS OFI NCCL Version: `1.14.0`")
    assert not _nccl_stated("* NCCL 2.19+")
    assert not _nccl_stated("the bugfix is not in the [nccl2.1.15 docs](https://docs.nvidia.com/)")
    assert _nccl_stated("6. NCCL version:2.7.8") == ["2.7.8"]
    # A sentence's full stop after the number (1569: PyTorch's wheel named for NCCL).
    assert _nccl_stated("We run NCCL 2.18.5.") == ["2.18.5"]
    stated = (
        "It seems related to the NCCL library, the current version of nvidia-nccl-cu12 is 2.21.5."
    )
    assert _nccl_stated(stated) == ["2.21.5"]
    assert _nccl_stated(body("1569")) == ["2.21.5"]
    assert not _nccl_stated("We run NCCL 2.18.5.1 here")
    assert not _nccl_stated("vLLM is using nccl==2.28.9")  # a pin in a log, not prose's shape
    # PyTorch's error names the NCCL loaded, which the catalogue reads (an observation).
    error = (
        "DistBackendError: NCCL error in: NCCLUtils.hpp:219, invalid argument, NCCL version 2.14.3"
    )
    assert not _nccl_stated(error)


def _stated_path(text: str) -> list[str | None]:
    snapshot = snapshot_of(text)
    return [o.value for o in snapshot.observations("iommu-acs-stated", "net-gdr")]


def test_the_hardware_path_stated_as_the_cause() -> None:
    """311: `We haven't enabled GPU Direct RDMA.` and `ACS is enabled, there's "SrcValid+" ...`;
    206: `bridges that had ACS enabled (ACSCtl: 0x001d = SrcValid+, ReqRedir+, ...)`, `The fix was
    disabling ACS`; 268: `Booting the kernel with intel_iommu=off resolved all our problems.`"""
    assert _stated_path(body("311")) == ["no", "ACS: ACS is enabled"]
    assert "ACS: had ACS enabled" in _stated_path(body("206"))
    assert _stated_path(body("268")) == ["IOMMU: intel_iommu=off"]
    # Advice, a question, a denial, or a setting named without saying it fixed anything.
    for said in (
        "Please disable ACS and try again.",
        "Is ACS enabled on the bridges?",
        "ACS is not enabled, and the IOMMU is in passthrough.",
        "We boot with iommu=pt on every node.",
    ):
        assert not _stated_path(said), said


def test_gpudirect_rdma_and_nvlinks_stated_absent() -> None:
    """The subject first (AKS#3507: "GPU direct RDMA (GDRDMA) is not enabled in the AKS run"),
    and NVLinks said not up where they belong (azhpc-images#443: "NV links were not seen from
    nvidia-smi", "were not using NVLink but communicating via PCIe"); a condition is not."""
    said = "The difference is GPU direct RDMA (GDRDMA) is not enabled in the AKS run."
    assert _stated_path(said) == ["no"]
    assert _stated_path("GPU direct RDMA isn't enabled on these nodes.") == ["no"]
    assert not _stated_path("GPU Direct RDMA is enabled on every node.")

    def nvlink(text: str) -> list[str | None]:
        return [o.value for o in snapshot_of(text).observations("nvlink-down-stated")]

    assert nvlink("29/50 iterations, NV links were not seen from nvidia-smi") == [
        "NV links were not seen"
    ]
    assert nvlink("the 2 GPU were not using NVLink but communicating via PCIe.")
    assert nvlink("NVLinks are not active after the reboot.")
    for healthy in (
        "If the NVLinks are not active, run nvidia-smi nvlink -s.",
        "The NVLinks are active on both GPUs.",
        "We are not using NVLink for this test.",
    ):
        assert not nvlink(healthy), healthy


def test_a_format_that_fails_to_join_its_lines_costs_only_its_segment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bug in one format's ``logical`` (its joining of wrapped lines) is a note on that
    segment: its lines are still read as pasted, and the other segments are read whole."""
    from stackcheck.ingest.formats.nccl_log import NcclLog

    def broken(self: NcclLog, lines: list[object]) -> list[object]:
        raise ValueError("joining failed")

    monkeypatch.setattr(NcclLog, "logical", broken)
    text = (
        "NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2\n\n"
        "ip-10-0-0-1:123:456 [0] NCCL INFO NCCL version 2.18.5+cuda12.2\n"
        "ip-10-0-0-1:123:456 [0] NCCL INFO Using network Socket\n"
    )
    triage = read_report(text, "pasted")
    notes = [n.message for n in triage.snapshot.notes]
    assert any("joining failed" in n for n in notes), notes
    assert triage.snapshot.installations(ComponentName.DRIVER)


def test_a_row_of_dashes_alone_opens_no_ds_report() -> None:
    """Open MPI's warning boxes are framed by dash rows: read by their message, not as a
    DeepSpeed report; inside a ds_report the same rows go on with it."""
    box = (
        "-" * 74 + "\nWARNING: There was an error initializing an OpenFabrics device.\n\n"
        "  Local host:   node1\n  Local device: mlx5_0\n" + "-" * 74 + "\n"
    )
    triage = read_report(box, "box.txt")
    assert all(p.segment.format.name != "ds_report" for p in triage.segments)
    assert "mpi-rdma-init-failed" in {o.kind for o in triage.snapshot.observed}
    report = "DeepSpeed general environment info:\n" + "-" * 50 + "\ntorch version .... 2.1.0\n"
    formats = [p.segment.format.name for p in read_report(report, "ds.txt").segments]
    assert formats == ["ds_report"]


@pytest.mark.parametrize(
    "text",
    [
        "It works on the A100. NCCL_P2P_DISABLE=1 was tried but did not help.",
        # a full-width stop right before the words: no space, and the next sentence starts there
        "在A100上可以运行。NCCL_P2P_DISABLE=1 was tried but did not help.",
        "NCCL_P2P_DISABLE=1 was tried; it did not help\uff01Then it worked.",
    ],
)
def test_sentence_at_is_the_sentence_sentences_gives(text: str) -> None:
    start = text.index("NCCL_P2P_DISABLE")
    end = start + len("NCCL_P2P_DISABLE=1")
    holding = [s for s in sentences(text) if "NCCL_P2P_DISABLE" in s]
    assert sentence_at(text, start, end) == holding[0]
