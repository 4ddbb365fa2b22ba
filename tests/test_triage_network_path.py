"""Triage of NCCL, network-path and hardware-path messages, independent of the report corpus.
Every line is copied from the public thread named beside it (read 2026-12-03); where a test
needs a neighbour that the thread does not print, it says what it changed and why."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Finding, Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.matrix.index import MatrixIndex
from stackcheck.snapshot.model import ComponentName
from tests.corpus import body


def findings(matrix: Matrix, text: str) -> dict[str, Finding]:
    report = check(read_report(text, "pasted").snapshot, matrix)
    return {f.id: f for f in report.findings}


def quiet(matrix: Matrix, rule_id: str, texts: tuple[str, ...]) -> None:
    """None of these sentences (each read alone) gives the rule a finding."""
    for text in texts:
        assert rule_id not in findings(matrix, text + "\n"), text


def saying(matrix: Matrix, text: str, rule_id: str, words: str) -> list[Finding]:
    """The findings of one rule whose message has these words (a rule may report several)."""
    report = check(read_report(text, "pasted").snapshot, matrix)
    return [f for f in report.findings if f.id == rule_id and words in f.message]


# NVIDIA/nccl#1637: NCCL 2.25.1 on a GeForce RTX 5090.
SMEM_LOG = """\
localhost:11326:11326 [0] NCCL INFO NCCL version 2.25.1+cuda12.2
localhost:11344:11344 [1] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856
"""

# NVIDIA/nccl-tests#291: nccl-tests' header without spaces after '#', then NCCL's version.
NCCL_TESTS_5090 = (
    (
        "#nThread 1 nGpus 1 minBytes 33554432 maxBytes 33554432 step: 1048576(bytes) warmup iters: "
        "5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
    )
    + """\
#Using devices
#Rank 0 Group 0 Pid 12225 on node device 0 [0000:16:00] NVIDIA GeForce RTX 5090
node:12225:12225 [0] NCCL INFO cudaDriverVersion 12080
node:12225:12225 [0] NCCL INFO NCCL version 2.25.1+cuda12.4
"""
)


def test_nccl_shared_memory_line_says_the_nccl_predates_the_gpu(matrix: Matrix) -> None:
    found = findings(matrix, SMEM_LOG)["SC312"]
    assert found.severity is Severity.WARNING
    assert found.message.startswith(
        "NCCL 2.25.1 does not fit the GPU: NCCL's kernels need 82240 bytes of shared memory, "
        "the GPU gives 79856"
    )
    assert (found.evidence[0].detail or "").endswith("maxSharedMem 79856")


def test_rtx_5090_needs_nccl_2_26_2(matrix: Matrix) -> None:
    found = findings(matrix, NCCL_TESTS_5090)["SC312"]
    assert found.message == (
        "NCCL 2.25.1 predates support for the NVIDIA GeForce RTX 5090, which starts with "
        "NCCL 2.26.2."
    )
    # The release that fixed it (the same header, NCCL 2.26.2 as the fix was verified with).
    fixed = NCCL_TESTS_5090.replace("2.25.1+cuda12.4", "2.26.2+cuda12.8")
    assert "SC312" not in findings(matrix, fixed)


def test_b200_first_supported_by_nccl_2_25_1(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    gpu = index.gpu("B200")
    assert gpu is not None
    first = index.nccl_first_for(gpu)
    assert first is not None and first.version == "2.25.1"
    gb200 = index.gpu("GB200")
    assert gb200 is not None
    first = index.nccl_first_for(gb200)
    assert first is not None and first.version == "2.27.5"  # not B200's: GB200 came later


def test_p2p_disabled_between_nvlink_gpus_is_an_nvlink_error(matrix: Matrix) -> None:
    # NVIDIA/nccl#2329
    text = (
        "P2P is disabled between NVLINK connected GPUs 1 and 0. This should not be the case "
        "given their connectivity, and is probably due to a hardware issue. If you still want "
        "to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.\n"
    )
    found = findings(matrix, text)["SC1105"]
    assert found.severity is Severity.ERROR
    assert "GPUs 1 and 0" in found.message


def test_libfabric_sync_memops_failure_is_a_cuda_registration_failure(matrix: Matrix) -> None:
    # awslabs/awsome-distributed-ai#278
    text = (
        "libfabric:652244:1713524816::core:core:cuda_set_sync_memops():207<warn> Failed to "
        "perform cuPointerSetAttribute: CUDA_ERROR_NOT_SUPPORTED:operation not supported\n"
        "libfabric:652244:1713524816::efa:mr:efa_mr_hmem_setup():254<warn> unable to set "
        "memops for cuda ptr\n"
    )
    found = findings(matrix, text)
    assert found["SC423"].severity is Severity.ERROR


def test_libefa_symbol_missing_names_rdma_core(matrix: Matrix) -> None:
    # PrimeIntellect-ai/prime-rl#3454
    text = (
        "`libfabric` needs a newer `libefa.so.1` (symbol version `EFA_1.4`) than this image's "
        "own apt-installed rdma-core provides, so NCCL fails to load the OFI plugin: `version "
        "'EFA_1.4' not found`.\n"
    )
    found = findings(matrix, text)["SC422"]
    assert found.message.startswith(
        "libefa (rdma-core) lacks symbol version EFA_1.4 that libfabric needs"
    )
    assert found.fix is not None and "rdma-core" in found.fix


def test_efa_device_list_aborted_by_one_unopenable_device(matrix: Matrix) -> None:
    # ofiwg/libfabric#12708
    text = (
        "libfabric:...:efa:ep_data:efa_device_construct_gid():47<warn> ibv_open_device failed! "
        "errno: 2\n"
        "libfabric:...:efa:fabric:efa_device_list_initialize():302<warn> "
        "efa_device_construct_gid failed for device_idx 0, err=-2\n"
        "libfabric:...:core:core:fi_getinfo_():1391<warn> fi_getinfo: provider efa output empty "
        "list\n"
    )
    found = findings(matrix, text)["SC421"]
    assert "dropped every device" in found.message and "err=-2" in found.message
    # -95 (-EOPNOTSUPP) is how the provider skips a non-EFA device: the same line with the code
    # libfabric's efa_device_list_initialize() passes over.
    skipped = text.replace("err=-2", "err=-95")
    assert "SC421" not in findings(matrix, skipped)


# hiyouga/LlamaFactory#6111: NCCL's lines as the reporter pasted them, joined on one line.
IB_HCA_NO_DEVICE = (
    "> > [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0. [0] NCCL INFO NCCL_IB_HCA set "
    "to mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1 [0] NCCL INFO "
    "NET/IB : No device found. [0] NCCL INFO NET/Socket : Using [0]eth0:10.47.14.218<0> [0] "
    "NCCL INFO Using non-device net plugin version 0 [0] NCCL INFO Using network Socket\n"
)


def test_sockets_where_nccl_ib_hca_names_hcas_is_a_fallback_warning(matrix: Matrix) -> None:
    found = findings(matrix, IB_HCA_NO_DEVICE)["SC413"]
    assert found.severity is Severity.WARNING
    assert found.message.endswith("NCCL_IB_HCA names the InfiniBand or RoCE HCAs to use.")
    # An NCCL_IB_HCA that only excludes HCAs says nothing about wanting them.
    excluded = IB_HCA_NO_DEVICE.replace("set to mlx5_0:1", "set to ^mlx5_0:1")
    assert "SC413" not in findings(matrix, excluded)


# NVIDIA/nccl#709: a network test from one DGX A100, P2P and SHM off to force the NICs.
NETWORK_TEST = (
    "mpirun -np 8 -x NCCL_P2P_DISABLE=1 -x NCCL_NET=IB -x NCCL_SHM_DISABLE=1 -x "
    "NCCL_IB_GID_INDEX=3 -x NCCL_TOPO_FILE=~/custom_topo.txt -x "
    "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=ALL "
    "~/nccl-tests/build/all_reduce_perf -b 1M -e 1M -f 2 -g 1 -c 1 -n 200 -w 200 -z 0\n"
)


def test_a_network_test_that_forces_the_nics_is_only_advice(matrix: Matrix) -> None:
    report = check(read_report(NETWORK_TEST, "pasted").snapshot, matrix)
    assert {f.id: f.severity for f in report.findings} == {
        "SC601": Severity.INFO,
        "SC606": Severity.INFO,
    }
    # The same settings without NCCL_NET: a workaround left in place, the usual warning.
    kept = NETWORK_TEST.replace("-x NCCL_NET=IB ", "")
    found = findings(matrix, kept)
    assert found["SC601"].severity is Severity.WARNING
    assert found["SC606"].severity is Severity.WARNING


def test_ib_completion_error_4_points_at_acs(matrix: Matrix) -> None:
    # NVIDIA/nccl#928 (its title: the WARN line)
    line = (
        "NCCL WARN NET/IB : Got completion from peer fe80::966d:ae03:8b:df54%ib0<33397> with "
        "error 4, opcode 32611, len 32611, vendor err 81 (Send)\n"
    )
    found = findings(matrix, line)["SC1125"]
    assert found.severity is Severity.WARNING
    assert "local protection error" in found.message
    # NVIDIA/nccl#709: error 12 (retry exceeded) is the network's, not ACS's.
    other = (
        "g1lmd5:3684924:3685085 [0] transport/net_ib.cc:840 NCCL WARN NET/IB : Got completion "
        "with error 12, opcode 32736, len 32736, vendor err 129\n"
    )
    assert "SC1125" not in findings(matrix, other)


def test_the_nccl_issue_forms_version_field_names_the_nccl(matrix: Matrix) -> None:
    # NVIDIA/nccl#1852: the form's "NCCL Version" answer, then its platform details.
    text = """\
### NCCL Version

2.27.5+cuda12.4+driver verson:570.148.08

### Your platform details

root@sw-lab-ylf157:~/shaochuang/nccl# nvidia-smi
"""
    snapshot = read_report(text, "pasted").snapshot
    assert [(i.version, i.cuda) for i in snapshot.installations(ComponentName.NCCL)] == [
        ("2.27.5", "12.4")
    ]
    # An answer that names no version (the form's field is free text) reads nothing.
    vague = text.replace("2.27.5+cuda12.4+driver verson:570.148.08", "latest")
    assert read_report(vague, "pasted").snapshot.installations(ComponentName.NCCL) == []


def test_p2p_bandwidth_latency_test_names_the_gpus(matrix: Matrix) -> None:
    # NVIDIA/nccl#257 (vmarkovtsev, 2019-10-02): the CUDA sample's output after the IOMMU fix.
    text = """\
Device: 0, GeForce GTX 1080 Ti, pciBusID: 2, pciDeviceID: 0, pciDomainID:0
Device: 1, GeForce GTX 1080 Ti, pciBusID: 3, pciDeviceID: 0, pciDomainID:0
Device=0 CAN Access Peer Device=1
Device=0 CANNOT Access Peer Device=2

P2P Connectivity Matrix
     D\\D     0     1     2     3
     0       1     1     0     0
"""
    triage = read_report(text, "pasted")
    assert [p.segment.format.name for p in triage.segments] == ["p2p_bandwidth_test"]
    assert [(g.index, g.name) for g in triage.snapshot.gpus.devices] == [
        (0, "GeForce GTX 1080 Ti"),
        (1, "GeForce GTX 1080 Ti"),
    ]
    # No peer access between some GPUs is no finding: they sit under different root complexes
    # (and the GTX 1080 Ti is in the matrix: no SC901 either).
    assert [f.id for f in check(triage.snapshot, matrix).findings] == []


def test_old_aws_ofi_nccl_announces_itself_with_using() -> None:
    # aws/aws-ofi-nccl#161 (1.3.0aws) and #801 (1.6.0): before 1.7 the plugin printed "Using".
    text = (
        "algo-1:462:462 [0] NCCL INFO NET/OFI Using aws-ofi-nccl 1.3.0aws\n"
        "[0] NCCL INFO NET/OFI Using aws-ofi-nccl 1.6.0\n"
    )
    plugins = read_report(text, "pasted").snapshot.installations(ComponentName.OFI_NCCL)
    assert sorted(p.version or "" for p in plugins) == ["1.3.0", "1.6.0"]


# NVIDIA/nccl#1292: a libnccl-net.so without a supported API, and nothing else about the network.
STRAY_PLUGIN = (
    " NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.\n"
    " NCCL INFO NET/Plugin: Failed to find ncclNetPlugin symbol (>= v5). ncclNetPlugin symbols v4 "
    "and lower are not supported.\n"
    "NCCL INFO cudaDriverVersion 12040\n"
    "NCCL version 2.20.3+cuda12.4\n"
)


def test_a_stray_plugin_without_a_supported_api_is_only_advice(matrix: Matrix) -> None:
    assert findings(matrix, STRAY_PLUGIN)["SC413"].severity is Severity.INFO
    # The same plugin where the log shows NCCL on sockets over an EFA instance is the fault.
    on_efa = STRAY_PLUGIN + (
        "ip-10-1-2-3:1:1 [0] NCCL INFO Using network Socket\n"
        "ip-10-1-2-3:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa\n"
    )
    assert findings(matrix, on_efa)["SC413"].severity is Severity.ERROR


# pytorch/pytorch#177472: NCCL 2.27+'s own words when the NVLS multicast bind fails.
NVLS_BIND = (
    "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the "
    "operation cannot be performed in the present state'. \n"
    "This is usually caused by a system or configuration error in the Fabric Manager or "
    "NVSwitches. \n"
)
# NVIDIA/nccl#1338: NCCL 2.21.5's CUCHECK around cuMulticastBindMem (transport/nvls.cc:158).
NVLS_CUCHECK = """\
I'm using NCCL version 2.21.5+cuda12.4,  nvidia-driver: 550.54.15 and the same version of \
nvidia-fabricmanager.
node2:242431:242479 [5] transport/nvls.cc:158 NCCL WARN Cuda failure 1 'invalid argument'
node2:242431:242475 [1] NCCL INFO transport/nvls.cc:330 -> 1
"""


def test_an_nvls_multicast_failure_points_at_the_fabric_manager(matrix: Matrix) -> None:
    found = findings(matrix, NVLS_BIND)["SC521"]
    assert found.severity is Severity.ERROR
    assert "cuMulticastBindMem: CUDA error 401" in found.message
    old = findings(matrix, NVLS_CUCHECK)["SC521"]
    assert "CUDA error 1 'invalid argument' in NCCL's NVLS setup" in old.message
    assert old.evidence[0].line == 2
    # Out of memory in the same file is not the fabric's fault (the line changed to say so).
    oom = NVLS_CUCHECK.replace("1 'invalid argument'", "2 'out of memory'")
    assert "SC521" not in findings(matrix, oom)


# Ways a second NCCL shows itself, each as posted: rapidsai/cugraph#4465 (the loader),
# vllm-project/vllm#1726 (NCCL 2.14 given a newer NCCL's config), pytorch/pytorch#9540 (CMake).
SHADOWED = {
    "E   ImportError: /pyenv/versions/3.9.19/lib/python3.9/site-packages/torch/lib/"
    "libtorch_cuda.so: undefined symbol: ncclCommRegister": "libtorch_cuda.so needs "
    "ncclCommRegister",
    "Invalid config blocking attribute value -2147483648": "NCCL 2.14 or older",
    "    link library [libnccl.so] in /public/apps/NCCL/2.2.12-1/lib may be hidden by files in:": (
        "libnccl.so in /public/apps/NCCL/2.2.12-1/lib may be hidden"
    ),
    # NVIDIA/nccl#554: the reporter names the copy loaded and the one meant.
    "I didn't realize that I actually call the `libnccl.so.2.9.9`, not `2.8.3`.": (
        "libnccl.so.2.9.9 loaded instead of 2.8.3"
    ),
}


def test_what_a_second_nccl_makes_programs_print(matrix: Matrix) -> None:
    for line, said in SHADOWED.items():
        found = findings(matrix, line + "\n")["SC302"]
        assert found.severity is Severity.WARNING
        assert said in found.message, found.message
    # A net plugin's undefined symbol is not NCCL's (the pattern wants the NCCL API's name).
    plugin = "libnccl-net.so: undefined symbol: fi_getinfo\n"
    assert "SC302" not in findings(matrix, plugin)


# aws/aws-ofi-nccl#244: aws-ofi-nccl 1.7.1 cannot open the unversioned libcudart.so.
OFI_CUDART = """\
nccl-tests-worker-0:39:45 [0] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.7.1-aws
nccl-tests-worker-0:39:45 [0] nccl_net_ofi_cuda_init:39 NCCL WARN NET/OFI Failed to find CUDA \
Runtime library: libcudart.so: cannot open shared object file: No such file or directory
"""
# NVIDIA-NeMo/Megatron-Bridge#2824: HPC-X's libibverbs loaded before the system one.
IBVERBS_PRIVATE = """\
  NCCL INFO NET/Plugin: libnccl-net-ofi.so: /opt/rdma-core/build/lib/libibverbs.so.1: version \
`IBVERBS_PRIVATE_34' not found (required by
  /usr/lib/x86_64-linux-gnu/libefa.so.1)
  NCCL INFO NET/Plugin: Could not find: ofi
"""


def test_ofi_plugin_without_libcudart_is_the_1_7_plugins_known_issue(matrix: Matrix) -> None:
    def cudart(text: str) -> list[Finding]:
        report = check(read_report(text, "pasted").snapshot, matrix)
        return [f for f in report.findings if "unversioned libcudart.so" in f.message]

    [found] = cudart(OFI_CUDART)
    assert found.id == "SC452" and found.severity is Severity.WARNING
    assert "SC413" in findings(matrix, OFI_CUDART)  # the plugin did not start
    # 1.8.0 opens the driver library instead: the issue is not its.
    assert not cudart(OFI_CUDART.replace("aws-ofi-nccl 1.7.1-aws", "aws-ofi-nccl 1.8.0-aws"))


def test_a_foreign_libibverbs_stops_the_ofi_plugin(matrix: Matrix) -> None:
    found = findings(matrix, IBVERBS_PRIVATE)["SC413"]
    assert "IBVERBS_PRIVATE_34" in (found.evidence[0].detail or "")


# NVIDIA-NeMo/RL's PR text (the corpus's 208): the fallback stated in a sentence, no log.
SOCKETS_SAID = (
    "Without these on the dynamic-linker search path, NCCL silently falls back to its socket "
    "transport on EFA-enabled AWS hosts (p4d / p5 / p5en) instead of routing through the SRD "
    "fabric.\n"
)


def test_a_socket_fallback_stated_in_a_sentence(matrix: Matrix) -> None:
    found = findings(matrix, SOCKETS_SAID)["SC413"]
    assert found.severity is Severity.WARNING and "where EFA is meant" in found.message
    # A condition ("if you still see ...") or a question states nothing.
    said = "If NCCL falls back to sockets on EFA, check LD_LIBRARY_PATH.\n"
    assert "SC413" not in findings(matrix, said)
    assert "SC413" not in findings(matrix, "Does NCCL fall back to sockets on EFA here?\n")


# NVIDIA/nccl#596 (the corpus's 320): an NVLink down, and NCCL 2.10.3, stated in prose.
NVLINK_DOWN_SAID = """\
We're observing NCCL all gather produces corrupted data when one NVLink is down on a GPU, and \
we're doing all gather on multiple nodes.

Software: NCCL 2.10.3
"""


def test_an_nvlink_stated_down_and_ll128_corruption_before_2_12_7(matrix: Matrix) -> None:
    found = findings(matrix, NVLINK_DOWN_SAID)
    assert found["SC1105"].severity is Severity.WARNING
    assert "one NVLink is down" in found["SC1105"].message
    assert "LL128" in found["SC311"].message
    # The fixed release, or no link stated down: no LL128 issue.
    fixed = findings(matrix, NVLINK_DOWN_SAID.replace("2.10.3", "2.12.7"))
    assert "LL128 over them" not in fixed.get("SC311", found["SC1105"]).message
    assert "SC1105" not in findings(matrix, "No NVLink is down on these GPUs.\n")


# data-infra/cube-studio#29 (two RTX 4090): the start script's failure after NV_WARN_NOTHING_TO_DO
# is harmless; siderolabs/extensions#511 (8x H200): the daemon refused its config file.
FM_START = (
    "Sep 18 03:19:01 ubuntu2404 nvidia-fabricmanager-start.sh[4756]: request to query NVSwitch "
    "device information from NVSwitch driver failed with error:WARNING Nothing to do "
    "[NV_WARN_NOTHING_TO_DO]\n"
    'Sep 18 03:19:01 ubuntu2404 nvidia-fabricmanager-start.sh[4753]: "/usr/bin/nv-fabricmanager '
    '-c /usr/share/nvidia/nvswitch/fabricmanager.cfg" failed! Exit code: 1\n'
)
FM_CONFIG = (
    "<node ip>: fabric manager config file item: FABRIC_NODE_CONFIG_FILE has an invalid value\n"
)


def test_the_fabric_manager_failing_to_start(matrix: Matrix) -> None:
    harmless = findings(matrix, FM_START)
    assert "SC521" not in harmless and "SC1201" in harmless
    alone = findings(matrix, FM_START.split("\n", 1)[1])["SC521"]
    assert alone.severity is Severity.WARNING and "exited with code 1" in alone.message
    config = findings(matrix, FM_CONFIG)["SC521"]
    assert "FABRIC_NODE_CONFIG_FILE has an invalid value" in config.message


def test_a_dmabuf_registration_enomem_is_not_the_memlock_limit(matrix: Matrix) -> None:
    # vllm-project/vllm#19613: NCCL's dma-buf registration failed because NCCL_BUFFSIZE was set
    # too large; dma-buf memory is not charged to RLIMIT_MEMLOCK, so no memlock finding.
    dmabuf = (
        "[2025-06-16 17:17:39] kilo:318:3584 [5] misc/ibvwrap.cc:183 NCCL WARN "
        "Call to ibv_reg_dmabuf_mr failed with error Cannot allocate memory"
    )
    assert "SC512" not in findings(matrix, dmabuf)
    # NVIDIA/nccl-tests#206: the plain registration does pin memory, and stays SC512.
    pinned = (
        "misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error "
        "Cannot allocate memory"
    )
    assert findings(matrix, pinned)["SC512"].severity is Severity.ERROR


def test_a_graph_file_set_for_another_machine(matrix: Matrix) -> None:
    # NVIDIA/nccl#1240: a VM image's NCCL_GRAPH_FILE on a one-GPU job, then NCCL's import error.
    log = (
        "Spotllm:73025:73112 [0] NCCL INFO NCCL_TOPO_FILE set by environment to "
        "/opt/microsoft/ncv4/topo.xml\n"
        "Spotllm:73025:73112 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to "
        "/opt/microsoft/ncv4/graph.xml\n"
        "Spotllm:73025:73112 [0] graph/search.cc:719 NCCL WARN XML Import Channel : dev 1 "
        "not found.\n"
    )
    found = findings(matrix, log)
    assert found["SC1311"].severity is Severity.WARNING
    assert "graph.xml" in found["SC1311"].message
    # The topology file alone describes the machine (clouds ship one): nothing to say.
    assert "SC1311" not in findings(matrix, log.splitlines()[0])


def test_sockets_stated_as_where_the_traffic_went_or_as_a_plugin_not_found(
    matrix: Matrix,
) -> None:
    # awslabs/awsome-distributed-ai#540: a maintainer's troubleshooting note.
    went = (
        "As a result, all NCCL communication may go through Ethernet rather than EFA, "
        "potentially causing timeouts.\n"
    )
    # NVIDIA-NeMo/RL#1973: the plugin in the image, not on the loader path.
    unseen = (
        "The OFI plugin libraries are already present in the container at "
        "`/opt/amazon/aws-ofi-nccl/lib/` — they're just not discoverable by NCCL because the "
        "path isn't set.\n"
    )
    for said in (went, unseen):
        assert findings(matrix, said)["SC413"].severity is Severity.WARNING
    # The same words as a condition, or with the fabric carrying the traffic, say nothing.
    assert "SC413" not in findings(matrix, "If NCCL goes through Ethernet rather than EFA, stop.\n")
    assert "SC413" not in findings(matrix, "NCCL goes through EFA rather than Ethernet here.\n")
    assert "SC413" not in findings(
        matrix, "If the OFI plugin is not found by NCCL, it uses sockets.\n"
    )


def test_a_setting_the_run_went_without_is_not_set(matrix: Matrix) -> None:
    # NVIDIA/nccl#841: P2P worked once the IOMMU was off in the BIOS.
    said = "then I successfully tested nccl-test without `NCCL_P2P_DISABLE=1`\n"
    assert "SC601" not in findings(matrix, said)
    removed = "It works after removing NCCL_P2P_DISABLE=1 from the job.\n"
    assert "SC601" not in findings(matrix, removed)
    kept = "We run nccl-tests with NCCL_P2P_DISABLE=1 on this server.\n"
    assert "SC601" in findings(matrix, kept)


def test_nccl_finding_no_interface_to_bootstrap_on(matrix: Matrix) -> None:
    # marin-community/marin#6940: NCCL_SOCKET_IFNAME matched no interface, quoted in prose.
    quoted = (
        "Multi-node GPU (grug-moe) training on `cw-rno2a` fails at NCCL clique init with "
        "`Bootstrap : no socket interface found` and `invalid usage`.\n"
    )
    found = findings(matrix, quoted)["SC1312"]
    # Without the setting in the text the host's network may be at fault, not the stack
    # (marin-community/marin#7018, the same cluster: a pattern left non-routable interfaces).
    assert found.severity is Severity.INFO and found.family == "env-vars"
    # NVIDIA/nccl#1837 prints the setting; the WARN is the one NCCL's src/bootstrap.cc prints
    # (v2.27.3-1), added here with that thread's prefix.
    log = (
        "[trainer3]:twshared1016:1958:1958 [3] NCCL INFO NCCL_SOCKET_IFNAME set by environment "
        "to eth2\n"
        "[trainer3]:twshared1016:1958:1958 [3] bootstrap.cc:115 NCCL WARN Bootstrap : no "
        "socket interface found\n"
    )
    named = findings(matrix, log)["SC1312"]
    assert "NCCL_SOCKET_IFNAME=eth2" in named.message and named.severity is Severity.ERROR
    # An exclusion pattern leaves every other interface: the host's network is at fault.
    excluded = log.replace("to eth2", "to ^ibs,lo,docker")
    assert findings(matrix, excluded)["SC1312"].severity is Severity.INFO
    # The setting alone, with NCCL using the interface, is fine.
    assert "SC1312" not in findings(matrix, log.splitlines()[0] + "\n")


def test_nccl_p2p_level_that_means_no_p2p(matrix: Matrix) -> None:
    # NVIDIA/nccl#332: the log line quoted in prose; the value is 0 (LOC), not `0"`.
    quoted = '"NCCL INFO NCCL_P2P_LEVEL set by environment to 0"\n'
    found = findings(matrix, quoted)["SC601"]
    assert "NCCL_P2P_LEVEL=0 " in found.message and found.severity is Severity.WARNING
    # NCCL 2.5.6 (the same thread) reads the text level NVL as 0; NCCL 2.6 and later read it.
    old = "I'm using nccl 2.5.6-2 with cuda 10.1.2 on RHEL 7.6.\nexport NCCL_P2P_LEVEL=NVL\n"
    assert "before 2.6" in findings(matrix, old)["SC601"].message
    new = old.replace("2.5.6-2", "2.18.3-1")
    assert "SC601" not in findings(matrix, new)
    assert "SC601" not in findings(matrix, "NCCL INFO NCCL_P2P_LEVEL set by environment to NVL\n")


def test_two_nccl_builds_listed_side_by_side(matrix: Matrix) -> None:
    # NVIDIA/nccl#1784: nccl-tests built with a source NCCL 2.27.0 loaded the system 2.23.4.
    listing = (
        "lrwxrwxrwx 1 root root 17 Jul 17 19:02 /workspace/3rdparty/nccl/build/lib/libnccl.so.2 "
        "-> libnccl.so.2.27.0\n"
        "lrwxrwxrwx 1 root root 17 Sep 10  2024 /usr/lib/x86_64-linux-gnu/libnccl.so.2 "
        "-> libnccl.so.2.23.4\n"
    )
    found = findings(matrix, listing)["SC302"]
    assert "2.27.0 (/workspace/3rdparty/nccl/build/lib/libnccl.so.2)" in found.message
    assert found.severity is Severity.WARNING
    # One build, its link and its file, is one copy; so is the same release in two folders.
    one = (
        "lrwxrwxrwx 1 root root 17 Sep 10  2024 /usr/lib/x86_64-linux-gnu/libnccl.so.2 "
        "-> libnccl.so.2.23.4\n"
        "-rw-r--r-- 1 root root 9 Sep 10  2024 /usr/lib/x86_64-linux-gnu/libnccl.so.2.23.4\n"
    )
    assert "SC302" not in findings(matrix, one)
    assert "SC302" not in findings(matrix, listing.replace("2.27.0", "2.23.4"))


def test_nvls_failure_cut_off_and_nvlink_bad_state_said(matrix: Matrix) -> None:
    # NVIDIA/nccl-tests#276: the paste stops before the closing quote; the fabric manager had
    # been restarted without a GPU reset.
    cut = "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error\n"
    assert "CUDA error 999 'unknown error'" in findings(matrix, cut)["SC521"].message
    # NVIDIA/DCGM#304: the reporter names the NVLink state as the cause.
    said = "We had some nodes where the local NVLink got into a bad state.\n"
    assert findings(matrix, said)["SC1105"].severity is Severity.WARNING
    assert "SC1105" not in findings(matrix, "Is the NVLink in a bad state?\n")
    assert "SC1105" not in findings(matrix, "The NVLink was not in a bad state.\n")


def test_nvshmem_ib_registration_failure_with_no_peermem(matrix: Matrix) -> None:
    # Azure/azhpc-images#316: NVSHMEM over IB could not register GPU memory; lsmod shows no
    # nv_peer_mem / nvidia_peermem.
    failure = (
        "src/comm/transports/common/transport_ib_common.cpp:58: NULL value mem registration "
        "failed\n"
    )
    lsmod = (
        "$ lsmod | grep nv\n"
        "nvidia_uvm           1376256  0\n"
        "nvidia_drm             69632  0\n"
        "nvidia              56467456  106 nvidia_uvm,gdrdrv,nvidia_modeset\n"
    )
    found = findings(matrix, failure + lsmod)["SC432"]
    assert found.family == "gdr" and found.severity is Severity.WARNING
    # The failure alone says nothing of the modules; the listing alone says nothing of RDMA.
    assert "SC432" not in findings(matrix, failure)
    assert "SC432" not in findings(matrix, lsmod)


def test_aws_ofi_nccl_release_stated_in_prose(matrix: Matrix) -> None:
    # aws/deep-learning-containers#6551: the plugin EFA 1.47.0 bundles hangs on broadcast.
    said = (
        "Adds a NCCL broadcast EFA test to reproduce:`aws-ofi-nccl` 1.18.0 (bundled in EFA "
        "1.47.0, shipped by the PyTorch 2.11 image) hangs indefinitely on NCCL broadcast.\n"
    )
    hang = saying(matrix, said, "SC452", "broadcast")
    assert len(hang) == 1 and "aws-ofi-nccl 1.18.0" in hang[0].message
    assert hang[0].severity is Severity.WARNING  # sourced from a reproduction, not release notes
    # The release a sentence names as the fix, or a target, is not the one in use.
    fixed = "Fixed upstream in `aws-ofi-nccl` 1.20.0 (EFA 1.49.0).\n"
    assert "SC452" not in findings(matrix, fixed)
    assert "SC452" not in findings(matrix, "Please upgrade to aws-ofi-nccl 1.18.0.\n")


def test_nccl_2_25_1_launch_failure_known_issue(matrix: Matrix) -> None:
    # NVIDIA/TensorRT-LLM#4238: the NCCL package version alone, then the failing launch.
    text = (
        "- Libraries: `2.25.1-1+cuda12.8`\n"
        "- Fixed with: `2.26.2-1+cuda12.8`\n"
        "[1] enqueue.cc:1500 NCCL WARN Cuda failure 1 'invalid argument'\n"
    )
    snapshot = read_report(text, "pasted").snapshot
    assert [n.version for n in snapshot.installations(ComponentName.NCCL)] == ["2.25.1"]
    found = findings(matrix, text)["SC311"]
    assert "enqueue.cc" in found.message and found.severity is Severity.WARNING
    # 2.25.1 without that failure, or the failure on another release, is not this issue.
    assert "SC311" not in findings(matrix, text.splitlines()[0] + "\n")
    assert "SC311" not in findings(matrix, text.replace("2.25.1-1", "2.26.2-1"))
    # A cuDNN or TensorRT package version (four numbers) is not NCCL's.
    cudnn = read_report("- cuDNN: `8.9.7.29-1+cuda12.2`\n", "pasted").snapshot
    assert not cudnn.installations(ComponentName.NCCL)


def test_fallback_to_sockets_said_beside_the_plugin(matrix: Matrix) -> None:
    # NVIDIA/exemplar-performance#39: the plugin's file name NCCL looks for is not the one the
    # EFA installer ships, and NCCL falls back to TCP sockets.
    said = (
        "- Document a critical NCCL plugin naming bug (NCCL 2.29+ looks for "
        "`libnccl-net-aws-ofi.so` but EFA installer names it `libnccl-net-ofi.so`) that causes "
        "silent fallback to TCP sockets with ~23% performance degradation\n"
    )
    found = findings(matrix, said)["SC413"]
    assert found.family == "nccl-net-fallback" and found.severity is Severity.WARNING
    # A denial, a condition, or a fallback with no plugin or fabric named says nothing.
    assert "SC413" not in findings(
        matrix, "With NCCL_NET=OFI the EFA job does not fall back to sockets.\n"
    )
    assert "SC413" not in findings(
        matrix, "If the OFI plugin is absent it falls back to sockets.\n"
    )
    assert "SC413" not in findings(
        matrix, "The client falls back to TCP sockets when HTTP fails.\n"
    )


def test_gpu_line_of_an_environment_list(matrix: Matrix) -> None:
    # NVIDIA/nccl#2418: the GPU and the NCCL of an issue's environment list.
    text = (
        "- GPU: 2 x NVIDIA RTX PRO 6000 Blackwell Workstation Edition, 96 GB each\n"
        "- Failing NCCL runtime: 2.26.2+cuda12.2\n"
    )
    snapshot = read_report(text, "pasted").snapshot
    assert [g.name for g in snapshot.gpus.devices] == [
        "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"
    ]
    crash = saying(matrix, text, "SC311", "illegal memory")
    assert len(crash) == 1 and crash[0].severity is Severity.WARNING
    # Not an NVIDIA GPU, or not a GPU at all: nothing.
    for line in ("GPU: AMD MI300X\n", "GPU: yes\n", "GPU: Hello world\n"):
        assert not read_report(line, "pasted").snapshot.gpus.devices
    # Another GPU with that NCCL is not this issue.
    h100 = text.replace("RTX PRO 6000 Blackwell Workstation Edition", "H100 80GB HBM3")
    assert not saying(matrix, h100, "SC311", "illegal memory")


def test_nccl_proto_forcing_ll128(matrix: Matrix) -> None:
    # NVIDIA/nccl#831: LL128 forced over sockets; nccl-tests' data check failed at random.
    forced = (
        "mpirun --allow-run-as-root -np 2 -npernode 1 -x NCCL_DEBUG=WARN -x NCCL_PROTO=LL128 "
        "-x NCCL_IB_DISABLE=1 -H ai001_ip:8,ai002_ip:8 all_reduce_perf -t 1 -g 1\n"
    )
    found = findings(matrix, forced)["SC1331"]
    assert found.severity is Severity.WARNING and "NCCL_PROTO=LL128" in found.message
    assert "SC1331" in findings(matrix, "export NCCL_PROTO=LL,LL128,Simple\n")
    # Excluding LL128, or choosing other protocols, is not forcing it.
    for value in ("^LL128", "Simple", "LL,Simple"):
        assert "SC1331" not in findings(matrix, f"export NCCL_PROTO={value}\n")


# --- seventh pass: texts of the sixth held-out split's kinds, each from its public thread ------

# Mellanox/nv_peer_memory#80: the DKMS package's modprobe fails; #46: a sentence saying the module
# is not in lsmod after a reboot; #41 (healthy): the service active, named without a failure.
PEERMEM_MODPROBE = (
    "modprobe: ERROR: could not insert 'nv_peer_mem': Unknown symbol in module, or unknown "
    "parameter (see dmesg)\n"
)
PEERMEM_SAID = (
    "I'm running on Ubuntu 18.04 (bionic) (kernel: 4.15.0-46-generic), installed both MLNX_OFED "
    "and nv_peer_mem but when I reboot the system nv_peer_mem isn't found in lsmod but does show "
    "up with modinfo.\n"
)


def test_a_peer_memory_module_that_did_not_load_was_meant_for_rdma(matrix: Matrix) -> None:
    for text in (PEERMEM_MODPROBE, PEERMEM_SAID):
        found = findings(matrix, text)["SC432"]
        assert found.severity is Severity.WARNING and "did not load" in found.message
    # A question, a check to make, or the module merely named: nothing.
    assert "SC432" not in findings(matrix, "Is nv_peer_mem not loaded after a reboot?\n")
    assert "SC432" not in findings(matrix, "Check whether nv_peer_mem is not loaded.\n")
    assert "SC432" not in findings(matrix, "`service nv_peer_mem status`\n")


# NVIDIA/nccl#1726: the OFI plugin's P5 topology file lacked the cpu node's attributes.
TOPO_SAID = (
    "Turns out `/usr/local/share/aws-ofi-nccl/xml/p5.48xl-topo.xml` was malformed. It was "
    "missing `arch` and `vendor` flags, causing NCCL to fail later on.\n"
)
# NVIDIA/nccl#527 prints the plugin's line; the NCCL WARN is NCCL's own text for the attribute
# the thread above names (src/graph/xml.h, xmlGetAttrStr), written here under that line.
TOPO_LOG = (
    "ip-10-216-179-193:641223:641270 [4] NCCL INFO NET/OFI Running on p4d.24xlarge platform, "
    "Setting NCCL_TOPO_FILE environment variable to "
    "/opt/aws-ofi-nccl/share/aws-ofi-nccl/xml/p4d-24xl-topo.xml\n"
    "ip-10-216-179-193:641223:641270 [4] NCCL WARN Attribute arch of node cpu not found\n"
)


def test_a_faulty_topology_file_of_the_ofi_plugin(matrix: Matrix) -> None:
    assert "p5.48xl-topo.xml is faulty" in findings(matrix, TOPO_SAID)["SC1332"].message
    found = findings(matrix, TOPO_LOG)["SC1332"]
    assert found.severity is Severity.ERROR and "attribute arch of node cpu" in found.message
    # The same WARN with a topology file of the user's own is not the plugin's fault.
    own = "NCCL_TOPO_FILE=/etc/my-topo.xml\n" + TOPO_LOG.split("\n", 1)[1]
    assert "SC1332" not in findings(matrix, own)


# horovod/horovod#288: NCCL 2.2.12 could not open libibverbs and ran over sockets on ib0.
# NVIDIA/nccl#207 (healthy): sockets on ib0 with no sign of why, a reachability problem.
VERBS_MISSING = """\
C4140-V100-1:24:201 [0] misc/ibvwrap.cu:61 WARN Failed to open libibverbs.so[.1]
C4140-V100-1:24:201 [0] INFO Using internal Network Socket
C4140-V100-1:24:201 [0] INFO NET : Using interface ib0:192.168.11.1<0>
NCCL version 2.2.12+cuda9.0
"""
SOCKETS_ON_IB0 = """\
gpu2:46654:46654 [0] NCCL INFO NET : Using interface ib0:12.12.12.102<0>
gpu2:46654:46654 [0] NCCL INFO NET/IB : Using interface ib0 for sideband communication
gpu2:46654:46654 [0] NCCL INFO Using internal Network Socket
NCCL version 2.3.7+cuda9.0
"""


def test_sockets_over_ipoib_without_libibverbs_is_a_fallback(matrix: Matrix) -> None:
    found = findings(matrix, VERBS_MISSING)["SC413"]
    assert found.severity is Severity.WARNING and "libibverbs.so: no verbs" in found.message
    # A container without /dev/infiniband says it as NCCL's IB transport finding no device.
    no_device = VERBS_MISSING.replace(
        "misc/ibvwrap.cu:61 WARN Failed to open libibverbs.so[.1]", "INFO NET/IB : No device found."
    )
    assert "No device found" in findings(matrix, no_device)["SC413"].message
    assert "SC413" not in findings(matrix, SOCKETS_ON_IB0)
    # libibverbs missing on a machine whose sockets run on Ethernet: no InfiniBand to miss.
    assert "SC413" not in findings(matrix, VERBS_MISSING.replace("ib0", "eth0"))


# aws-samples/aws-deep-learning-ami-ubuntu-dcv-desktop#33: error 802 and the fabric manager
# named in a sentence.
FM_802_SAID = (
    "Currently `nvidia-fabricmanage`r is not installed so on A100, H100, H200 and B200 instances, "
    "CUDA initialization fails with 802 system error.\n"
)


def test_error_802_and_a_missing_fabric_manager_in_prose(matrix: Matrix) -> None:
    assert findings(matrix, FM_802_SAID)["SC521"].severity is Severity.ERROR
    for text in (
        "The nvidia-fabricmanager is not installed on this node.\n",
        "NVIDIA Fabric Manager was never installed on this node.\n",
    ):
        assert findings(matrix, text)["SC521"].severity is Severity.WARNING
    # 802 that is not CUDA's error (a Wi-Fi standard, a bonding mode) and a condition: nothing.
    assert "SC521" not in findings(matrix, "The NIC uses 802.3ad bonding; error 802.11 frames.\n")
    assert "SC521" not in findings(matrix, "If the fabric manager is not installed, CUDA fails.\n")


# NVIDIA/nccl-tests#252: ACS stated as what the fix turned off, said as what became possible.
ACS_SAID = (
    "After following your suggestion to disable ACS, we were able to run the NCCL test and HPL "
    "benchmark without needing to define any parameters.\n"
)


def test_acs_turned_off_as_what_made_it_run(matrix: Matrix) -> None:
    assert findings(matrix, ACS_SAID)["SC1125"].severity is Severity.WARNING
    before = "Before disabling ACS, we were able to run with NCCL_NET_GDR_LEVEL=0.\n"
    assert "SC1125" not in findings(matrix, before)


# pytorch/pytorch#111424 (the corpus's 600): a Slurm script's commented-out exports, and the
# fallback said in NCCL's transport names.
SCRIPT_COMMENTED = """\
export NCCL_IB_DISABLE=0
#export NCCL_SHM_DISABLE=1
"""
NET_SOCKET_SAID = (
    "**Error:** In the logs the job fails to use the Net/IB but instead relies on NET/SOCKET. "
    "The traffic should pass through the Infiniband.\n"
)


def test_a_commented_export_is_not_set_and_net_socket_instead_of_net_ib(matrix: Matrix) -> None:
    snapshot = read_report(SCRIPT_COMMENTED, "pasted").snapshot
    assert "NCCL_SHM_DISABLE" not in snapshot.env and "NCCL_IB_DISABLE" in snapshot.env
    found = findings(matrix, NET_SOCKET_SAID)["SC413"]
    assert found.severity is Severity.WARNING and "where InfiniBand is meant" in found.message
    healthy = "NCCL uses NET/IB here, not NET/Socket.\n"
    assert "SC413" not in findings(matrix, healthy)


# NVIDIA/nccl-tests rank lines of a release before "Group" (the corpus's 306, quoted), the
# header quoted in a sentence (408), and the summary under a result table (404); horovod#288's
# NCCL 2.2 lines, which print no "NCCL" after the prefix (614).
def test_nccl_tests_and_old_nccl_logs_in_their_other_shapes() -> None:
    quoted = (
        ">    Rank  0 Pid  12414 on 51e6e7896958 device  0 [0x1a] Tesla V100-SXM3-32GB\n"
        ">    Rank  1 Pid  12414 on 51e6e7896958 device  1 [0x1b] Tesla V100-SXM3-32GB\n"
    )
    triage = read_report(quoted, "pasted")
    assert [s.segment.format.name for s in triage.segments] == ["nccl_tests"]
    assert {g.name for g in triage.snapshot.gpus.devices} == {"Tesla V100-SXM3-32GB"}
    header = (
        '"nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 '
        "iters: 20 validation: 1\nNCCL failure common.cu:874 'unhandled system error'\"\n"
    )
    summary = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 84.8558\n"
    old_log = "instance-4:700:785 [0] INFO 0 -> 1 via direct shared memory\n"
    for text, name in ((header, "nccl_tests"), (summary, "nccl_tests"), (old_log, "nccl_log")):
        assert name in [s.segment.format.name for s in read_report(text, "pasted").segments]
    # A sentence about ranks is not nccl-tests output.
    said = "Rank 0 runs on the first node.\n"
    assert "nccl_tests" not in [s.segment.format.name for s in read_report(said, "p").segments]


def test_installing_the_fabric_manager_named_as_the_fix(matrix: Matrix) -> None:
    # NVIDIA/gpu-operator#1146: the fix, in Chinese; the same said in English.
    for said in (
        "通过安装 nvidia-fabricmanager 可以解决。\n",
        "We fixed it by installing the nvidia-fabricmanager package of the driver's version.\n",
    ):
        assert findings(matrix, said)["SC521"].severity is Severity.WARNING
    assert "SC521" not in findings(matrix, "Would installing the fabric manager fix it?\n")


def test_nvtop_names_the_gpus_not_the_link() -> None:
    # Syllo/nvtop#6 (the corpus's 274): an idle GPU shown at PCIe GEN 1 is not a degraded link.
    text = (
        "Device 0 [GeForce GTX 1080 Ti] PCIe GEN 3@16x \n"
        "Device 1 [GeForce GTX 1080 Ti] _**PCIe GEN 1@16x**_ \n"
    )
    snapshot = read_report(text, "pasted").snapshot
    assert [(g.index, g.name) for g in snapshot.gpus.devices] == [
        (0, "GeForce GTX 1080 Ti"),
        (1, "GeForce GTX 1080 Ti"),
    ]
    assert all(g.pcie is None for g in snapshot.hardware.gpus)


def test_a_transport_turned_off_for_an_nccl_tests_run_is_advice(matrix: Matrix) -> None:
    # NVIDIA/nccl-tests#182 (the corpus's 405): NCCL_SHM_DISABLE=1 passed to all_reduce_perf.
    run = (
        "root@testgpu1:/nccl-tests# mpirun -x NCCL_DEBUG=WARN -x NCCL_IB_HCA=mlx5_0 "
        "-x NCCL_NET_GDR_LEVEL=5 -x NCCL_SHM_DISABLE=1 -x NCCL_IB_MERGE_VFS=0 -x NCCL_IB_DISABLE=0 "
        "-np 2 --allow-run-as-root -H testgpu1,testgpu2 ./build/all_reduce_perf -b 8 -e 256M -f 2 "
        "-g 2\n"
    )
    found = findings(matrix, run)["SC601"]
    assert found.severity is Severity.INFO and "all_reduce_perf" in found.message
    # The same setting for a training script stays a warning.
    job = run.replace("./build/all_reduce_perf -b 8 -e 256M -f 2 -g 2", "python train.py")
    assert findings(matrix, job)["SC601"].severity is Severity.WARNING


def test_a_fabric_said_to_stay_in_progress(matrix: Matrix) -> None:
    # NVIDIA/gpu-operator#2781 (the corpus's 666); a description of the states is not a report.
    said = 'Ready (1/1 Running). The GPU fabric stays "In Progress" on all 8 GPUs\n'
    assert "'In Progress'" in findings(matrix, said)["SC521"].message
    described = 'Each GPU goes from "Not Started" to "In Progress" to "Completed".\n'
    assert "SC521" not in findings(matrix, described)


def test_the_iommu_by_its_vendor_names_and_acs_said_disabled(matrix: Matrix) -> None:
    assert "SC1126" in findings(matrix, "Disabling VT-d in the BIOS fixed the hang.\n")
    assert "SC1126" in findings(matrix, "We turned off AMD-Vi and it works now.\n")
    assert "SC1125" in findings(matrix, "After ACS was disabled the test worked.\n")
    # A question, or a change that did not help, states no cause.
    for said in (
        "Is ACS disabled? It worked before.\n",
        "ACS disabled did not help, the fix was a new cable.\n",
        "Disabling ACS made no difference, but the fix was updating the BIOS.\n",
    ):
        found = findings(matrix, said)
        assert "SC1125" not in found and "SC1126" not in found


def test_nccl_tests_1_rank_lines_and_a_bare_result_table() -> None:
    # NVIDIA/nccl#104 (the corpus's 608): nccl-tests for NCCL 1; NVIDIA/nccl#340 (406): rows only.
    old = "> Using devices\n   Rank  0 uses device  0 [0x05] Tesla M40 24GB\n"
    triage = read_report(old, "pasted")
    assert [g.name for g in triage.snapshot.gpus.devices] == ["Tesla M40 24GB"]
    rows = (
        "         256            64   float     sum       0     7.14    0.04    0.04  0e+00     "
        "7.12    0.04    0.04  0e+00\n"
    )
    assert [s.segment.format.name for s in read_report(rows, "pasted").segments] == ["nccl_tests"]


def test_nccls_ib_transport_listing_its_hcas_says_the_fabric(matrix: Matrix) -> None:
    # NVIDIA/nccl#1000: the HCAs NCCL's IB transport opened; the corpus's 414 (NVIDIA/nccl#207):
    # the interface it uses beside them names none.
    hcas = (
        "dso-s1-r1-a100-03:2331:2666 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB/SHARP "
        "[1]mlx5_1:1/IB/SHARP\n"
    )
    snapshot = read_report(hcas, "pasted").snapshot
    assert [o.value for o in snapshot.observations("rdma-fabric-stated")] == ["InfiniBand (mlx5_0)"]
    sideband = (
        "gpu2:46654:46654 [0] NCCL INFO NET/IB : Using interface ib0 for sideband communication\n"
    )
    assert not read_report(sideband, "pasted").snapshot.observations("rdma-fabric-stated")


def test_an_nccl_setting_named_as_the_cause(matrix: Matrix) -> None:
    # vllm-project/vllm#19613 (the corpus's 307): the reporter's resolution.
    said = (
        "The issue was related to the fact that the NCCL_BUFFSIZE variable was to set too large. "
        "Using the default value made the issue go away. \n"
    )
    found = findings(matrix, said)["SC1333"]
    assert found.severity is Severity.WARNING and "NCCL_BUFFSIZE" in found.message
    # A question, a condition, or a setting named as what was set to fix it: nothing.
    for text in (
        "Is NCCL_BUFFSIZE set too large here?\n",
        "If NCCL_BUFFSIZE is set too large, registration fails.\n",
        "Setting NCCL_SOCKET_IFNAME to the bridge interface fixed it.\n",
        "The NCCL_DEBUG=INFO output is too large to paste here.\n",
    ):
        assert "SC1333" not in findings(matrix, text)


def test_an_iommu_page_fault_of_the_gpu(matrix: Matrix) -> None:
    # NVIDIA/cuda-samples#48: the p2p samples on an AMD host with the IOMMU translating.
    fault = (
        "Sep 21 09:59:59 runtime kernel: nvidia 0000:07:00.0: AMD-Vi: Event logged "
        "[IO_PAGE_FAULT domain=0x0003 address=0x80000040 flags=0x0020]\n"
    )
    found = findings(matrix, fault)["SC1126"]
    assert found.severity is Severity.WARNING and "nvidia 0000:07:00.0" in found.message
    # A fault of another device (an NVMe drive) says nothing of the GPUs' path.
    other = fault.replace("nvidia 0000:07:00.0", "nvme 0000:04:00.0")
    assert "SC1126" not in findings(matrix, other)


def test_a_transport_setting_said_to_change_nothing_is_an_experiment(matrix: Matrix) -> None:
    # rwth-i6/returnn#1469: the settings were experiments; the cause was a missing set_device.
    log = (
        "Same behavior with `NCCL_P2P_DISABLE=1`. Log:\n"
        "ncg12:252606:253206 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC\n"
    )
    report = check(read_report(log, "pasted").snapshot, matrix)
    said = [f for f in report.findings if f.id == "SC601"]
    assert len(said) == 2 and all(f.severity is Severity.INFO for f in said)
    assert all("changed nothing" in f.message for f in said)
    # Other phrasings of the same statement.
    for sentence in (
        "It still hangs even with NCCL_P2P_DISABLE=1 exported on both nodes.\n",
        "Setting NCCL_P2P_DISABLE=1 did not help.\n",
    ):
        assert findings(matrix, sentence)["SC601"].severity is Severity.INFO
    # A setting that made it work is a workaround that stays set: the warning.
    for sentence in (
        "It only works with NCCL_P2P_DISABLE=1.\n",
        "We run nccl-tests with NCCL_P2P_DISABLE=1 on this server.\n",
    ):
        assert findings(matrix, sentence)["SC601"].severity is Severity.WARNING


def test_settings_tried_and_given_up_are_experiments(matrix: Matrix) -> None:
    # ray-project/ray#30333: "Tried `export NCCL_IB_DISABLE=1` and `export NCCL_P2P_DISABLE=1`,
    # both didnt work"; the cause was the launcher's default NCCL_SOCKET_IFNAME.
    for sentence in (
        "Tried `export NCCL_IB_DISABLE=1` and `export NCCL_P2P_DISABLE=1`, both didnt work\n",
        "I also tried NCCL_P2P_DISABLE=1 without success.\n",
        "Tried NCCL_SHM_DISABLE=1, NCCL_IB_DISABLE=1 and NCCL_P2P_DISABLE=1: none of them helped\n",
        "Tested with NCCL_P2P_LEVEL=LOC too, same error.\n",
        "试了 NCCL_P2P_DISABLE=1 也没用\n",
        "Probé con NCCL_P2P_DISABLE=1 pero no funcionó.\n",
        "NCCL_P2P_DISABLE=1 (no change)\n",
        "Setting NCCL_P2P_DISABLE=1 -> same error\n",
    ):
        assert findings(matrix, sentence)["SC601"].severity is Severity.INFO, sentence
    # Tried and it worked, or a verdict in another sentence: the setting is in effect.
    for sentence in (
        "We tried NCCL_P2P_DISABLE=1 and it worked.\n",
        "It still hangs without ACS changes. We tried NCCL_P2P_DISABLE=1 and it fixed the hang.\n",
        "The job still hangs. NCCL_P2P_DISABLE=1 is exported on every node.\n",
        "NCCL_P2P_DISABLE=1 works, without it: same error\n",
    ):
        assert findings(matrix, sentence)["SC601"].severity is Severity.WARNING, sentence


def test_sockets_over_ipoib_after_the_verbs_library_failed(matrix: Matrix) -> None:
    # sgl-project/sglang#1427: the image lacked libibverbs; the address is hidden as "<ip>".
    ipoib = "NCCL INFO NET/Socket : Using [0]ib0.<ip>\n"
    log = "NCCL INFO Failed to open libibverbs.so[.1]\n...\n" + ipoib
    found = findings(matrix, log)["SC413"]
    assert found.severity is Severity.WARNING and "libibverbs.so" in found.message
    # The socket interface alone (NCCL may list it for its bootstrap) says nothing of a fallback.
    assert "SC413" not in findings(matrix, ipoib)
    # A partition's child interface is IPoIB too; an Ethernet interface is not.
    child = log.replace("ib0.<ip>", "ib0.8001:10.0.0.1<0>")
    assert "SC413" in findings(matrix, child)
    assert "SC413" not in findings(matrix, log.replace("ib0.<ip>", "eth0:10.0.0.1<0>"))


def test_the_efa_path_stated_as_lost(matrix: Matrix) -> None:
    # NVIDIA-NeMo/Megatron-Bridge#5033: the base image stopped shipping aws-ofi-nccl.
    for text in (
        "(`/opt/amazon/efa`), but without the `aws-ofi-nccl` `libnccl-net.so`, NCCL cannot run "
        "over EFA on EKS.\n",
        "The NVIDIA PyTorch base image no longer ships the **aws-ofi-nccl** plugin (the\n",
    ):
        assert findings(matrix, text)["SC413"].severity is Severity.WARNING
    # A question or a condition states nothing.
    for asked in ("Why does NCCL not use EFA here?", "If NCCL cannot run over EFA, check it."):
        assert "SC413" not in findings(matrix, asked + "\n")


def test_vllms_own_nccl_copy_is_advice_until_the_process_dies(matrix: Matrix) -> None:
    # vllm-project/vllm#4077: vLLM 0.4.0 loaded its downloaded NCCL 2.18.1, then a bus error.
    loading = (
        "INFO 04-15 10:56:57 pynccl.py:58] Loading nccl from library "
        "/root/.config/vllm/nccl/cu12/libnccl.so.2.18.1\n"
    )
    # A collect_env of that release prints the line on a healthy machine too.
    assert findings(matrix, loading)["SC302"].severity is Severity.INFO
    crashed = loading + "[1]    842586 bus error  python3 collect_env.py\n"
    found = findings(matrix, crashed)["SC302"]
    assert found.severity is Severity.WARNING and "bus error" in found.message
    # PyTorch's own libnccl.so.2, as later vLLM loads it, is no second copy.
    assert "SC302" not in findings(matrix, "pynccl.py:58] Loading nccl from library libnccl.so.2\n")


def test_an_nccl_symbol_quoted_undefined_means_an_older_nccl_first(matrix: Matrix) -> None:
    # cupy/cupy-release-tools#485: the image's NCCL 2.17.1 lacks ncclCommSplit (2.18+).
    # A symbol of another library (cudnnCreate) is not NCCL's.
    for symbol, warned in (("ncclCommSplit", True), ("cudnnCreate", False)):
        said = f"This will cause the import to fail with `undefined symbol: {symbol}` error.\n"
        found = findings(matrix, said).get("SC302")
        assert (found is not None and found.severity is Severity.WARNING) is warned


def test_the_efa_installer_stopping_at_its_package_check(matrix: Matrix) -> None:
    # aws/aws-ofi-nccl#872: EFA installer 1.40.0 refused its own debug rdma-core debs.
    log = (
        "8.773 = EFA Installer Version: 1.40.0 =\n"
        "8.819 Error: unknown package found: DEBS/UBUNTU2204/x86_64/debug/rdma-core/*.deb\n"
        "8.819 Please remove unknown packages from the RPMS/DEBS directory trees\n"
    )
    found = findings(matrix, log)["SC454"]
    assert found.severity is Severity.ERROR and found.family == "libfabric"
    assert "1.40.0" in found.message and "own tarball" in found.message
    # The banner alone is an installer that ran: no finding.
    assert "SC454" not in findings(matrix, log.splitlines()[0] + "\n")


def test_a_crash_in_the_efa_providers_device_list(matrix: Matrix) -> None:
    # ofiwg/libfabric#7805: fi_info aborts with a double free on a host with mlx5 and no EFA.
    trace = (
        "(gdb) bt\n"
        "#5  0x00007ffff4cfd3f2 in mlx5_free_context (ibctx=0x676190) at "
        "providers/mlx5/mlx5.c:1407\n"
        "#7  0x00007ffff77b3ca7 in efa_device_destruct (device=0x66fb20) at "
        "prov/efa/src/efa_device.c:180\n"
    )
    found = findings(matrix, trace)["SC421"]
    assert found.family == "libfabric" and "crashed" in found.message
    # The function named in prose, not as a frame, is no crash.
    assert "SC421" not in findings(matrix, "The fix is in efa_device_destruct (see the PR).\n")


def test_nccl_before_2_19_3_on_h800(matrix: Matrix) -> None:
    # NVIDIA/nccl#974: the GPU named with its count in a sentence, then the NCCL release.
    said = (
        "My environment is as follows:Node:1,H800*8,infiniband200Gbps*4;Node:2,H800*8,"
        "infiniband400GbpsIB*4;NCCL:2.18.3,CUDA:12.2,OPENMPI:4.1.5.\n"
    )
    found = saying(matrix, said, "SC311", "H800")
    assert len(found) == 1 and found[0].severity is Severity.WARNING
    # NVIDIA/nccl#933: "H800 cluster"; 2.19.3 carries the fixes.
    cluster = "We use pytorch in H800 cluster with 8 nodes.\nNCCL version 2.17.1+cuda12.1\n"
    assert saying(matrix, cluster, "SC311", "H800")
    assert not saying(matrix, cluster.replace("2.17.1", "2.19.3"), "SC311", "H800")
    # NVIDIA/nccl#1043: an NVIDIA system's name states its GPU too.
    system = "2x HGX-H800 systems\nNCCL: 2.18.5\n"
    assert saying(matrix, system, "SC311", "H800")
    # A GPU named without a count or a cluster is not read: it may be a wish.
    assert not saying(matrix, "Does NCCL 2.18.3 support the H800?\n", "SC311", "H800")


def test_depmod_says_the_peer_memory_module_cannot_load(matrix: Matrix) -> None:
    # Mellanox/nv_peer_memory#84: MLNX_OFED reinstalled after nv_peer_mem was built.
    depmod = (
        "depmod: WARNING: /lib/modules/3.10.0-1127.19.1.el7.x86_64/extra/nv_peer_mem.ko needs "
        "unknown symbol ib_register_peer_memory_client\n"
    )
    assert findings(matrix, depmod)["SC432"].severity is Severity.WARNING
    # Another module's unknown symbol says nothing of GPUDirect RDMA.
    other = depmod.replace("extra/nv_peer_mem.ko", "extra/lustre.ko")
    assert "SC432" not in findings(matrix, other)


def test_gpus_without_peer_access_are_advice(matrix: Matrix) -> None:
    # llm-d-incubation/llm-d-infra#181: g6's GPUs have no P2P; the stack is healthy.
    found = findings(matrix, "peer access is not supported between these two devices\n")
    assert found["SC1125"].severity is Severity.INFO and found["SC1125"].family == "iommu-acs"
    assert all(f.severity is Severity.INFO for f in found.values())


def test_the_iommu_turned_off_in_the_bios_and_p2p_then_working(matrix: Matrix) -> None:
    # NVIDIA/nccl#841: the BIOS setting, then the run without the P2P workaround.
    text = (
        "AMD CBS->NBIO Common option ->IOMMU=Disable\n"
        "then I successfully tested nccl-test without `NCCL_P2P_DISABLE=1`\n"
    )
    found = findings(matrix, text)
    assert found["SC1126"].severity is Severity.WARNING and "SC601" not in found
    # Either alone says nothing of the cause: a BIOS list, or a workaround dropped.
    for line in text.splitlines():
        assert "SC1126" not in findings(matrix, line + "\n")


def test_a_lnksta_line_without_its_device(matrix: Matrix) -> None:
    # janhq/jan#183: an RTX 4090 behind a riser; the paste holds LnkCap and LnkSta alone.
    idle = "    LnkSta: Speed 2.5GT/s (downgraded), Width x16 (ok)\n"
    assert findings(matrix, idle)["SC1101"].severity is Severity.INFO
    # A narrower width, or a lower speed above Gen1, is no idle state.
    for line in ("Speed 8GT/s (ok), Width x8 (downgraded)", "Speed 16GT/s (downgraded), Width x16"):
        found = findings(matrix, f"    LnkSta: {line}\n")["SC1101"]
        assert found.severity is Severity.WARNING
    assert "SC1101" not in findings(matrix, "    LnkSta: Speed 16GT/s (ok), Width x16 (ok)\n")


# msr-fiddle/pipedream#76: UCX's crash report in a container with docker's 64 MB /dev/shm.
SIGBUS_IN_NCCL = """\
[8d6bf97c3bf4:3039 :0:3095] Caught signal 7 (Bus error: nonexistent physical address)
==== backtrace (tid:   3095) ====
 0 0x0000000000043090 killpg()  ???:0
 1 0x000000000018bb41 __nss_database_lookup()  ???:0
 2 0x000000000007587d ncclGroupEnd()  ???:0
 5 0x00000000000489b1 ???()  /usr/lib/x86_64-linux-gnu/libnccl.so.2:0
"""


def test_a_bus_error_inside_nccl_is_shared_memory(matrix: Matrix) -> None:
    found = findings(matrix, SIGBUS_IN_NCCL)
    assert found["SC502"].severity is Severity.ERROR and "ncclGroupEnd" in found["SC502"].message
    # The same crash in the frames of another library says nothing of /dev/shm: a bus error is
    # also a truncated mapped file.
    other = SIGBUS_IN_NCCL.replace("ncclGroupEnd", "fread").replace("libnccl.so.2", "libc.so.6")
    assert "SC502" not in findings(matrix, other)
    # Without a backtrace, NCCL's log around the crash (a line of NVIDIA/nccl#1000 put beside
    # it): NCCL ran, so /dev/shm is the first suspect, a warning.
    ran = (
        "dso-s1-r1-a100-03:2331:2666 [3] NCCL INFO Using network IBext\n"
        + SIGBUS_IN_NCCL.splitlines()[0]
        + "\n"
    )
    assert findings(matrix, ran)["SC502"].severity is Severity.WARNING
    # With 254 GB of /dev/shm (pytorch/pytorch#26009's sentence, the corpus' 279) its size is
    # not the cause.
    ample = "I am using a docker container with --ipc=host, so I have /dev/shm space of 254GB.\n"
    assert "SC502" not in findings(matrix, SIGBUS_IN_NCCL + ample)


def test_a_sigbus_where_the_report_names_dockers_default_shm(matrix: Matrix) -> None:
    # intelligent-machine-learning/dlrover#1046: torchelastic's record and the PR's sentence.
    died = (
        "The worker fails with {0: ProcessFailure(local_rank=0, pid=54, exitcode=-7, "
        "error_file='<N/A>', error_file_data={'message': '<NONE>'}, message='Signal 7 (SIGBUS) "
        "received by PID 54', timestamp=1711419181)}\n"
    )
    said = (
        "The default shm of docker is only 64MB which is not enough to save the nanogpt "
        "checkpoint.\n"
    )
    assert findings(matrix, said + died)["SC502"].severity is Severity.ERROR
    # Either alone: the crash may be a mapped file; the sentence is advice.
    assert findings(matrix, died) == {}
    alone = findings(matrix, said)
    assert set(alone) == {"SC501"} and alone["SC501"].severity is Severity.INFO
    # A question about the default states nothing.
    assert findings(matrix, "Is the default shm of docker only 64MB?\n") == {}


def test_the_device_plugin_taking_a_gpu_out_for_an_xid(matrix: Matrix) -> None:
    # NVIDIA/k8s-device-plugin#189: Xid 69, which the matrix does not name.
    text = (
        "2020/08/10 19:09:42 XidCriticalError: Xid=69 on Device=GPU-7540a9b3-eeb9-1214-1526-"
        "f93c9ea826a8, the device will go unhealthy.\n"
    )
    found = findings(matrix, text)
    assert found["SC1117"].severity is Severity.WARNING and "Xid 69" in found["SC1117"].message
    # The plugin's current wording; an Xid the matrix names keeps the matrix's meaning (48: DBE).
    current = text.replace(", the device will go unhealthy", "; marking device as unhealthy")
    assert findings(matrix, current)["SC1117"].severity is Severity.WARNING
    dbe = findings(matrix, current.replace("Xid=69", "Xid=48"))["SC1117"]
    assert dbe.severity is Severity.ERROR and "Double Bit ECC" in dbe.message


def test_efa_kernel_driver_stated_absent(matrix: Matrix) -> None:
    # aws/libfabric#7: libfabric builds its EFA provider without efa.ko, which then lists nothing.
    said = (
        "However, the system doesn't have efa.ko and that brings my question: Wouldn't the "
        "kernel be needed to complete the previously mentioned actions?\n"
    )
    assert findings(matrix, said)["SC411"].severity is Severity.WARNING
    calm = (
        "Check whether the system has efa.ko loaded.",
        "If the efa module is not loaded, reboot.",
    )
    quiet(matrix, "SC411", calm)


def test_the_ofi_tuner_refusing_nccl_proto_names_its_releases(matrix: Matrix) -> None:
    # aws/aws-ofi-nccl#982: the plugin set NCCL_PROTO=simple on p4de and its tuner then refused.
    refused = (
        "a100-st-p4de24xlarge-668:789818:790167 [6] ncclResult_t nccl_ofi_tuner_init_v1(size_t, "
        "size_t, ncclDebugLogger_t):270 NCCL WARN NET/OFI The tuner plugin can not be loaded when "
        "explicitly choosing an algorithm or protocol with NCCL_ALGO/NCCL_PROTO\n"
    )
    found = findings(matrix, refused)["SC452"]
    assert found.severity is Severity.ERROR and "1.17.0" in found.message
    # With the plugin's version stated (its banner, aws/aws-ofi-nccl#803), the issue is that
    # release's; a release outside the range (the version changed to 1.17.0) does not have it.
    banner = "6f2d8a82d208:1287:1328 [0] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.12.1-aws\n"
    assert "1.12.1" in findings(matrix, banner + refused)["SC452"].message
    newer = banner.replace("1.12.1-aws", "1.17.0") + refused
    assert not saying(matrix, newer, "SC452", "tuner")


def test_mig_said_on_in_a_report_about_the_device_plugin(matrix: Matrix) -> None:
    # NVIDIA/gpu-operator#132 and NVIDIA/k8s-device-plugin#229: MIG stated as the GPUs' mode
    # ("the MIG mode of A100 GPU is enabled") and as what the reporter did ("turn mig on").
    for said in (
        "When the MIG mode of A100 GPU is enabled, the GPU operator cannot deploy successfully.",
        "turn mig on a device and deploy https://github.com/NVIDIA/k8s-device-plugin/blob/master/"
        'nvidia-device-plugin.yml with  "--mig-strategy=single" in its args section',
    ):
        assert findings(matrix, said + "\n")["SC1121"].severity is Severity.WARNING, said
    denied = (
        "Turn mig off on every GPU before training.",
        "Did you turn on MIG on this node?",
        "The MIG mode of all GPUs is disabled.",
    )
    quiet(matrix, "SC1121", denied)


def test_efa_texts_that_say_nothing_of_this_hosts_stack_are_advice(matrix: Matrix) -> None:
    # aws/sagemaker-hyperpod-cli#367: the EFA device plugin's DaemonSet on nodes without EFA.
    plugin = (
        "│ 2026/02/03 15:23:32 Error to get IB device: %v. No valid EFA devices found"
        "                                                  │\n"
    )
    found = findings(matrix, plugin)
    assert found["SC411"].severity is Severity.INFO and set(found) == {"SC411"}
    # On an instance type with EFA the plugin finding none is the efa driver or its mounts (the
    # instance types stated as in aws/aws-ofi-nccl#1020, put beside the plugin's line).
    on_efa = findings(matrix, "Environment: 2 x p5.48xlarge\n" + plugin)
    assert on_efa["SC411"].severity is Severity.ERROR
    # gardener/gardener-extension-provider-aws#1832: error 4126, a security group's doing.
    unanswered = (
        "every NCCL/MPI workload that exercises EFA RDMA fails with `Error 4126: Unresponsive "
        "receiver (reachable by EFA device but handshake failed)` until the self-referencing "
        "egress rule is added.\n"
    )
    found = findings(matrix, unanswered)
    assert set(found) == {"SC1110"} and found["SC1110"].severity is Severity.INFO
    assert "security group" in found["SC1110"].message


def test_a_monitors_fabric_state_is_read_as_nvmls(matrix: Matrix) -> None:
    # leptonai/gpud#1147: a PCIe H100 has no NVSwitch fabric; 'Not Supported' is its normal state.
    said = (
        "> NVIDIA-H100-PCIe with unhealthy fabric state: GPU GPU-8ca5630b-8911-2e29-513a-"
        "869117d22eaa: state=Not Supported; GPU GPU-b52a020b-b703-61ba-e7c7-8b25ab6de799: "
        "state=Not Supported\n"
    )
    report = read_report(said, "pasted")
    assert [o.value for o in report.snapshot.observations("fabric-state")] == ["Not Supported"]
    assert findings(matrix, said) == {}
    # A fabric still training on an NVSwitch system is the fabric manager's (state changed).
    training = said.replace("state=Not Supported; GPU", "state=In Progress; GPU", 1)
    assert findings(matrix, training)["SC521"].severity is Severity.ERROR


def test_a_link_the_report_says_is_downgraded(matrix: Matrix) -> None:
    # janhq/jan#183: an RTX 4090 on a riser at 2.5 GT/s, which the report calls downgraded.
    lnksta = "    LnkSta: Speed 2.5GT/s (downgraded), Width x16 (ok)\n"
    said = "Issue: bandwidth is downgraded due to an incompatibility issue\n"
    assert findings(matrix, said + lnksta)["SC1101"].severity is Severity.WARNING
    assert findings(matrix, said)["SC1101"].severity is Severity.WARNING
    # A link said to rest low when idle, or a question, states no fault.
    quiet(
        matrix,
        "SC1101",
        (
            "The link is downgraded when idle, which is expected.",
            "Is the bandwidth downgraded here?",
        ),
    )


def test_a_low_memlock_limit_shown_for_slurmd(matrix: Matrix) -> None:
    # clustervision/trinity#498: slurmd's /proc/PID/limits; every job it starts inherits 64 KiB.
    text = (
        "1 S root       3844      1  0  80   0 - 32175 inet_c 09:36 ?        00:00:00 "
        "/usr/sbin/slurmd\n"
        "[root@node008 ~]# cat /proc/3844/limits  | grep locked\n"
        "Max locked memory         65536                65536                bytes     \n"
    )
    assert findings(matrix, text)["SC511"].severity is Severity.WARNING
    # The same limit for a process the text does not name stays advice.
    alone = text.splitlines()[-1] + "\n"
    assert findings(matrix, alone)["SC511"].severity is Severity.INFO


def test_an_xid_stated_as_an_error_or_a_code(matrix: Matrix) -> None:
    # NVIDIA/open-gpu-kernel-modules#507's maintainer: "You're getting a XID 79, fallen off the
    # bus." The same said as "Xid error 79" and "Xid code 79" (the words changed, the code kept).
    for said in (
        "You\u2019re getting a XID 79, fallen off the bus.",
        "You\u2019re getting a Xid error 79, fallen off the bus.",
        "You\u2019re getting a Xid code 79, fallen off the bus.",
    ):
        assert findings(matrix, said + "\n")["SC1117"].severity is Severity.ERROR, said
    # NVIDIA/k8s-device-plugin#259's title: an Xid the docs lack, and a denial, say nothing.
    title = "but i can not find Xid error 999 in nvidia doc\n"
    assert "SC1117" not in findings(matrix, title)


def test_the_device_plugin_stopping_over_a_mig_gpu_without_instances(matrix: Matrix) -> None:
    # NVIDIA/k8s-device-plugin#253: MIG on, no MIG devices, the plugin panics (single strategy).
    panic = (
        "panic: At least one device with migEnabled=true was not configured correctly: No MIG "
        "devices associated with /dev/nvidia0: GPU-fe14a161-d1f3-7706-c257-3b22fe15c684\n"
    )
    assert findings(matrix, panic)["SC1121"].severity is Severity.WARNING


def test_more_shared_or_locked_memory_named_as_the_fix(matrix: Matrix) -> None:
    # fal-ai-community/video-diffusion-speedrun#2 and METR/vivaria#502: --shm-size as the fix.
    for said in (
        "What fixed it for me was adding ` --shm-size=1g ` flag to Docker. IE",
        "Manually, the problem is solved by adding the argument `--shm-size=<some_size g>` to "
        "container run or create",
    ):
        assert findings(matrix, said + "\n")["SC501"].severity is Severity.WARNING, said
    # open-mpi/orcm#128: the systemd unit's limit as the fix.
    fix = "Bug fix is to add LimitMEMLOCK=infinity to the systemctl orcmd.service file.\n"
    assert findings(matrix, fix)["SC511"].severity is Severity.WARNING
    # Not a fix: a command line that sets it, an attempt that failed, a question; a program's
    # message about /dev/shm's size in a PR that fixes the program (ray-project/ray, the
    # corpus' 382, healthy).
    for calm in (
        "docker run --ipc=host -v $PWD:/workspace image python train.py",
        "I use --ipc=host and it works.",
        "Adding --ipc=host did not help.",
        "Does --shm-size fix this?",
        'This fixes a user issue where " ValueError: The configured object store size '
        '(63.999983616 GB) exceeds /dev/shm size (63.999520768 GB)."',
        "docker run --ulimit memlock=-1 image ./run.sh  # works",
    ):
        found = findings(matrix, calm + "\n")
        assert not {"SC501", "SC511"} & {
            k for k, f in found.items() if f.severity is not Severity.INFO
        }, calm


def test_efa_said_not_found_in_a_container(matrix: Matrix) -> None:
    # aws-samples/aws-efa-nccl-baseami-pipeline#2: fi_info finds no EFA inside docker.
    said = 'I run "fi_info -v -p efa -t FI_EP_RDM" in docker, can\'t find efa either.\n'
    assert findings(matrix, said)["SC411"].severity is Severity.WARNING
    # The same said otherwise (the words changed), and what is no such statement.
    assert "SC411" in findings(matrix, "EFA devices are not visible inside the pod.\n")
    calm = (
        "Is EFA not visible in the container?",
        "On g4dn.xlarge fi_info -p efa returns nothing, as expected.",
        "fi_info -p efa lists the efa devices inside the container.",
    )
    quiet(matrix, "SC411", calm)


def test_a_sigbus_in_the_words_of_pythons_launchers(matrix: Matrix) -> None:
    """CPython's subprocess (Lib/subprocess.py, CalledProcessError: "Command '%s' died with %r."
    with the signal's repr) as torch.distributed.launch re-raises it, and torch.multiprocessing's
    spawn (torch/multiprocessing/spawn.py: "process %d terminated with signal %s"): a SIGBUS,
    read with NCCL's frame of msr-fiddle/pipedream#76 (the crash line replaced)."""
    frame = " 2 0x000000000007587d ncclGroupEnd()  ???:0\n"
    for died in (
        "subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py']' died "
        "with <Signals.SIGBUS: 7>.",
        "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal "
        "SIGBUS",
    ):
        assert findings(matrix, died + "\n" + frame)["SC502"].severity is Severity.ERROR, died
        assert "SC502" not in findings(matrix, died + "\n"), died


def test_variants_of_the_gpu_health_and_efa_readings(matrix: Matrix) -> None:
    # microsoft/pai#4344's second NVRM line alone: the GPU the driver could not initialise.
    line = "[   38.773764] NVRM: rm_init_adapter failed for device bearing minor number 0\n"
    assert findings(matrix, line)["SC1117"].severity is Severity.ERROR
    # libfabric's EFA error 4124 (prov/efa/src/efa_errno.h), the established peer gone silent,
    # in aws-ofi-nccl's words around 4126 (gardener-extension-provider-aws#1832's form).
    silent = "Error: 4124 (Unresponsive receiver (connection previously established)\n"
    assert findings(matrix, silent)["SC1110"].severity is Severity.INFO
    # MIG said enabled by the reporter (the words of NVIDIA/gpu-operator#132 turned around).
    assert findings(matrix, "I have enabled MIG mode on the A100.\n")["SC1121"]
    quiet(matrix, "SC1121", ("You need to enable MIG first.", "We have not enabled MIG."))


def test_ibstat_port_states(matrix: Matrix) -> None:
    # amzn/amzn-drivers#114 (the corpus' 203): ibstat of an EFA device whose port is Active.
    text = body("203")
    ports = read_report(text, "pasted").snapshot.hardware.ports
    assert [(p.device, p.port, p.state, p.phys_state) for p in ports] == [
        ("efa_0", 1, "ACTIVE", "LinkUp")
    ]
    assert "SC1110" not in findings(matrix, text)
    # The same port down (the state words changed to umad's Down and Polling): not active.
    down = text.replace("State: Active", "State: Down").replace("LinkUp", "Polling")
    found = findings(matrix, down)["SC1110"]
    assert found.message == "RDMA device efa_0: port 1 is DOWN, physical Polling, not ACTIVE."


def test_nccl_before_2_23_4_misses_a_loaded_nvidia_peermem(matrix: Matrix) -> None:
    # NVIDIA/nccl#1537's lines (NCCL's GDR verdict, then `lsmod | grep peermem`), with an NCCL
    # release line of the same log format put before them (the thread's release is not shown).
    nccl = "node:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
    rest = (
        "hostname1:25668:27396 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 "
        "'mlx5_0'\n\n# lsmod | grep peermem\nnvidia_peermem         12288  0\n"
    )
    [found] = saying(matrix, nccl + rest, "SC311", "nvidia_peermem")
    assert found.severity is Severity.WARNING and "2.23.4" in found.message
    # Fixed in 2.23.4; and without the module listed, GDR off is SC431's alone (every condition).
    assert not saying(matrix, nccl.replace("2.21.5", "2.23.4") + rest, "SC311", "peermem")
    alone = rest.split("\n\n")[0] + "\n"
    assert not saying(matrix, nccl + alone, "SC311", "peermem")


# detectron2#384 (the corpus' 973): the reporter's sentence and PyTorch's error, as posted.
WORKER_EXITED = (
    "When running a training in the docker container, I received the following error: \n"
    "`RuntimeError: DataLoader worker (pid(s) 25) exited unexpectedly`\n"
)
# xorbitsai/inference#3603 (the corpus' 042): a GPU container started without a /dev/shm size.
XINFERENCE = (
    "docker run --name xinference -d -p 9997:9997 -e XINFERENCE_HOME=/data -v /xinference:/data "
    "--gpus all xprobe/xinference:latest xinference-local -H 0.0.0.0\n"
)


def test_dataloader_worker_exited_in_a_container_is_shm(matrix: Matrix) -> None:
    found = findings(matrix, WORKER_EXITED)["SC502"]
    assert found.severity is Severity.WARNING and "in a container" in found.message
    # The error alone (no container named): host memory or the dataset's code may as well be
    # the cause, so nothing is said.
    alone = WORKER_EXITED.split("\n")[1] + "\n"
    assert "SC502" not in findings(matrix, alone)
    assert [
        o.value for o in read_report(alone, "p").snapshot.observations("dataloader-worker-died")
    ] == ["DataLoader worker exited unexpectedly"]
    # A GPU container without a /dev/shm size is the container sign too; with one (inserted by
    # hand) the error is not the default's.
    assert findings(matrix, XINFERENCE + alone)["SC502"].severity is Severity.WARNING
    sized = XINFERENCE.replace("--gpus all", "--gpus all --shm-size=16g")
    assert "SC502" not in findings(matrix, sized + alone)
    # PyTorch's other form, a worker that exited on an error of its own (its exit code), is no
    # shared-memory sign (dbolya/yolact#147).
    coded = (
        "RuntimeError: DataLoader worker (pid 29332) exited unexpectedly with exit code 1. "
        "Details are lost due to multiprocessing. Rerunning with num_workers=0 may give better "
        "error trace.\n"
    )
    assert "SC502" not in findings(matrix, XINFERENCE + coded)


def test_a_gpu_container_without_shm_size_warns_only_where_something_fills_it(
    matrix: Matrix,
) -> None:
    """A `docker run` without --shm-size or --ipc=host is a risk where NCCL joins several GPUs
    of the container or DataLoader workers pass batches (NCCL's SHM transport and PyTorch's
    worker queues live in /dev/shm); for one process on one GPU it is advice (info)."""
    assert findings(matrix, XINFERENCE)["SC501"].severity is Severity.INFO
    # Two GPUs requested (changed by hand from --gpus all): a count alone shows no NCCL (a web
    # app or a Dask cluster on two GPUs, rapidsai/docker#306: the corpus' 1186), so advice.
    two = XINFERENCE.replace("--gpus all", '--gpus "device=0,1"')
    assert findings(matrix, two)["SC501"].severity is Severity.INFO
    assert "on its 2 GPUs" in findings(matrix, two)["SC501"].message
    # With NCCL at work beside it (NVIDIA/nccl#1637's release line, below), a warning.
    nccl_two = two + SMEM_LOG.splitlines()[0] + "\n"
    assert findings(matrix, nccl_two)["SC501"].severity is Severity.WARNING
    # pytorch/pytorch#5040's sentence (the corpus' 371): DataLoader workers.
    workers = (
        "When I set `num_workers=1` or other value greater than 0 in "
        "`torch.utils.data.DataLoader`, I get this error.\n"
    )
    found = findings(matrix, XINFERENCE + workers)["SC501"]
    assert found.severity is Severity.WARNING and "DataLoader workers" in found.message
    # simplerecon#3's flag line (the corpus' 574), and NCCL's release line (NVIDIA/nccl#1637,
    # above): the same.
    flag = XINFERENCE + "--num_workers 8\n"
    assert findings(matrix, flag)["SC501"].severity is Severity.WARNING
    nccl = SMEM_LOG.splitlines()[0] + "\n"
    assert findings(matrix, XINFERENCE + nccl)["SC501"].severity is Severity.WARNING
    # num_workers=0 (371's sentence turned to 0 by hand) runs no worker process; a pod that
    # runs nvidia-smi (the corpus' 895) is a diagnostic.
    zero = workers.replace("`num_workers=1`", "`num_workers=0`")
    assert findings(matrix, XINFERENCE + zero)["SC501"].severity is Severity.INFO
    assert "SC501" not in findings(matrix, body("895"))


def test_a_container_whose_command_starts_several_gpu_processes_needs_shm(
    matrix: Matrix,
) -> None:
    # vllm-project/vllm#4940 (the corpus' 935): a vLLM server with tensor parallelism over two
    # GPUs; its --ipc=host taken out by hand to show the spec without it.
    line = next(x for x in body("935").splitlines() if x.startswith("`docker run")).strip("`")
    run = line.replace("--ipc=host ", "") + "\n"
    assert "--tensor-parallel-size 2" in run
    found = findings(matrix, run)["SC501"]
    assert found.severity is Severity.WARNING and "2 GPU processes" in found.message
    assert "SC501" not in findings(matrix, line + "\n")


def test_peermem_module_missing_for_the_kernel(matrix: Matrix) -> None:
    # NVIDIA/gpu-operator#2619 (the corpus' 917): the nvidia-peermem sidecar's modprobe, with
    # the thread's environment line that names the RDMA setup (cut after its first setting);
    # the module is not installed.
    text = (
        "- Standard_ND96isr_H100_v5 nodes, driver.rdma.enabled=true\n"
        "  modprobe: FATAL: Module nvidia-peermem not found in directory "
        "/lib/modules/6.8.0-1059-azure\n"
    )
    found = findings(matrix, text)["SC432"]
    assert found.severity is Severity.WARNING and "Module nvidia-peermem not found" in found.message
    assert read_report(text, "pasted").snapshot.runtime.peermem_loaded is False
    # The same line naming another module (changed by hand) is not a peer-memory fact.
    other = text.split("\n")[1].replace("nvidia-peermem", "nvidia-uvm") + "\n"
    assert not read_report(other, "pasted").snapshot.observations("peermem-load-failed")


def test_an_nccl_setting_turned_to_0_as_the_fix_is_its_cause(matrix: Matrix) -> None:
    # luxingcom/aicad-nccl-optimization#1 (the corpus' 915): settings left in a container's
    # /etc/nccl.conf, 'set to 0, solved', over the post's two lines.
    text = (
        "3. **容器镜像残留 `/etc/nccl.conf`**：`NCCL_IB_USE_INLINE=1` + "  # noqa: RUF001
        "`NCCL_IB_PREPOST_RECEIVE_WORK_REQUESTS=1`\n"
        "   会冻死 SGLang PyNccl 的 4 字节 warmup；置 0 解决。\n"  # noqa: RUF001
    )
    found = findings(matrix, text)["SC1333"]
    assert found.severity is Severity.WARNING and "NCCL_IB_USE_INLINE" in found.message
    # The same sentence in English words (our translation): the same reading; a setting only
    # shown at 0 and named as the workaround (NVIDIA/nccl#1838's NCCL_CUMEM_HOST_ENABLE=0) is
    # no cause, and neither is a question (the English sentence turned into one).
    english = "NCCL_IB_USE_INLINE=1 froze the warmup; setting it to 0 fixed it.\n"
    assert "SC1333" in findings(matrix, english)
    quiet(
        matrix,
        "SC1333",
        (
            "When I add `NCCL_CUMEM_HOST_ENABLE=0` , the test can pass.",
            "NCCL_IB_USE_INLINE=1 is set; would setting it to 0 fix it?",
        ),
    )


def test_launch_blocking_in_a_run_said_to_be_for_debugging_is_advice(matrix: Matrix) -> None:
    # vllm-project/vllm#8410 (the corpus' 313): the reporter's words and launch line (cut after
    # its --tensor-parallel-size).
    run = (
        "CUDA_LAUNCH_BLOCKING=1 python3 -m vllm.entrypoints.openai.api_server "
        "--served-model-name Qwen2-72B-Instrust --model /data/Qwen2-72B-Instruct "
        "--tensor-parallel-size 8\n"
    )
    assert findings(matrix, run)["SC604"].severity is Severity.WARNING
    said = "Here is the service launch code for debugging\n"
    assert findings(matrix, said + run)["SC604"].severity is Severity.INFO
    # PyTorch's own hint, printed with every CUDA error, says nothing of the run (the corpus'
    # 330, pytorch/pytorch#149845).
    hint = "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
    assert findings(matrix, hint + run)["SC604"].severity is Severity.WARNING


def test_a_program_calling_an_nvml_function_the_driver_lacks_is_no_stack_fault(
    matrix: Matrix,
) -> None:
    # leptonai/gpud#1183 (the corpus' 886): gpud's NVML V3 fabric call on a 535 driver.
    text = "> gpud: symbol lookup error: gpud: undefined symbol: nvmlDeviceGetGpuFabricInfoV\n"
    report = read_report(text, "pasted")
    assert report.recognised
    assert [o.value for o in report.snapshot.observations("program-fault")] == [
        "NVML function nvmlDeviceGetGpuFabricInfoV not in this driver"
    ]
    assert not [f for f in findings(matrix, text).values() if f.severity is not Severity.INFO]


def test_a_full_dev_shm_refusing_a_semaphore(matrix: Matrix) -> None:
    # python/cpython#93253: the traceback's last frame and error (docker run --shm-size=1m).
    trace = (
        '  File "/usr/local/lib/python3.8/multiprocessing/synchronize.py", line 57, in __init__\n'
        "    sl = self._semlock = _multiprocessing.SemLock(\n"
        "OSError: [Errno 28] No space left on device\n"
    )
    assert findings(matrix, trace)["SC502"].severity is Severity.ERROR
    # usnistgov/ARIAC#355: the same two lines under a ROS launcher's process prefix.
    ros = (
        "[start_behavior-29]     sl = self._semlock = _multiprocessing.SemLock(\n"
        "[start_behavior-29] OSError: [Errno 28] No space left on device\n"
    )
    assert findings(matrix, ros)["SC502"].severity is Severity.ERROR
    # Plachtaa/VITS-fast-fine-tuning#397: joblib's warning when it cannot make its semaphore.
    joblib = (
        "/root/miniconda3/envs/vits/lib/python3.8/site-packages/joblib/"
        "_multiprocessing_helpers.py:46: UserWarning: [Errno 28] No space left on device.  "
        "joblib will operate in serial mode\n"
    )
    assert findings(matrix, joblib)["SC502"].severity is Severity.ERROR
    # The error alone says only that some disk is full.
    assert "SC502" not in findings(matrix, trace.splitlines()[-1] + "\n")


def test_ucx_names_the_locked_memory_limit_where_registration_failed(matrix: Matrix) -> None:
    # openucx/ucx#7930's 'After:' line: UCX's ENOMEM with the limit it ran under.
    line = (
        "[1644567389.121214] [hostname:183563:0]           ib_md.c:340  UCX  ERROR "
        "ibv_reg_mr(address=0x7f1bae800000, length=39845888, access=0xf) failed: Cannot allocate "
        "memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 524288 "
        "kbytes)\n"
    )
    snapshot = read_report(line, "pasted").snapshot
    assert snapshot.runtime.memlock_bytes == 524288 << 10
    found = findings(matrix, line)
    assert found["SC512"].severity is Severity.ERROR
    assert "SC511" in found


# pytorch/pytorch#81628 (the corpus' 1000): NCCL over RoCE, every connection without /GDRDMA;
# the cause lay in the NICs not reaching each other, not in GDR.
ROCE_NO_GDR = (
    "tf144:143468:143468 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE "
    "[2]i40iw0:1/RoCE ; OOB enp88s0:192.168.17.144<0>\n"
    "tf144:143468:143468 [1] NCCL INFO Using network IB\n"
    "tf144:143468:143535 [1] NCCL INFO Channel 00 : 0[2f000] -> 1[86000] [receive] via NET/IB/1\n"
)


def test_ib_without_gdrdma_alone_is_the_topologys_choice(matrix: Matrix) -> None:
    # NCCL turns GDR off by design past NCCL_NET_GDR_LEVEL (default PXB): info, not a warning.
    found = findings(matrix, ROCE_NO_GDR)["SC431"]
    assert found.severity is Severity.INFO and "NCCL_NET_GDR_LEVEL" in found.message
    # The same line as the SHARP plugin names its transport (`NET/IBext_v8`): the same choice.
    sharp = ROCE_NO_GDR.replace("via NET/IB/1", "via NET/IBext_v8/1")
    assert findings(matrix, sharp)["SC431"].severity is Severity.INFO
    # Another connection of the same run with /GDRDMA (NVIDIA/nccl#897's shape, the same channel
    # line with the suffix added): GDR was possible, so the one without it is a warning.
    mixed = ROCE_NO_GDR + ROCE_NO_GDR.splitlines()[2].replace("/IB/1", "/IB/0/GDRDMA") + "\n"
    assert findings(matrix, mixed)["SC431"].severity is Severity.WARNING
    # NCCL's IB transport saying it has no GDR for the HCA (no peer-memory module or dma-buf;
    # the corpus' 400): GDR was wanted, so a warning.
    no_module = (
        "learn01:2228637:2230195 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 "
        "'mlx5_0'\n"
    )
    assert findings(matrix, no_module + ROCE_NO_GDR)["SC431"].severity is Severity.WARNING
    # A setting that turns GDR off is misuse, whatever the topology.
    setting = "NCCL_NET_GDR_LEVEL=LOC\n" + ROCE_NO_GDR
    assert findings(matrix, setting)["SC431"].severity is Severity.WARNING


# nebari-dev/nebari#1642 (the corpus' 1077): ENOSPC named before /dev/shm, in prose.
SHM_NO_SPACE = (
    "We have run into a `No space left on device` error that appears to be due to the limited "
    "amount of space on the `/dev/shm` (shared memory) drive. \n"
)
# RobotLocomotion/spartan#369 (the corpus' 1081): the shell's report quoted, and a headerless
# `df -h | grep shm` row.
SPARTAN_BUS = (
    'I was getting an error something like, "Bus error (core dumped) model share memory".  '
    "It's related to this issue: https://github.com/pytorch/pytorch/issues/2244\n"
)
SPARTAN_DF = "shm              64M     0   64M   0% /dev/shm\n"
# tlkh/ai-lab#5 (the corpus' 1080): a bus error in prose, and the command without --shm-size.
AI_LAB = (
    "I was using google could platform. When using dataloader, multiprocessing=True, got thread "
    "is killed: bus error because docker limits resources.\n"
    "sudo nvidia-docker run --rm -p 8888:8888 -v /home/$USER:/home/jovyan nvaitc/ai-lab\n"
)


def test_enospc_on_dev_shm_in_prose_is_shm_exhausted(matrix: Matrix) -> None:
    found = findings(matrix, SHM_NO_SPACE)["SC502"]
    assert found.severity is Severity.ERROR and "No space left on device" in found.message
    # Said of another disk, or as a condition, it is not /dev/shm's.
    quiet(
        matrix,
        "SC502",
        (
            "We have run into a `No space left on device` error on the root volume.",
            "If you get No space left on device for /dev/shm, raise --shm-size?",
        ),
    )


def test_a_headerless_df_row_gives_dev_shm_its_size() -> None:
    snapshot = read_report("$ df -h | grep shm\n" + SPARTAN_DF, "p").snapshot
    assert snapshot.runtime.shm_bytes == 64 << 20


def test_a_bus_error_named_in_prose_with_a_small_shm_is_shm(matrix: Matrix) -> None:
    # With /dev/shm seen at 64 MB, or a GPU container started without a size: an error.
    for text in (SPARTAN_BUS + SPARTAN_DF, AI_LAB):
        assert findings(matrix, text)["SC502"].severity is Severity.ERROR, text
    # A bus error with nothing of shared memory, containers or PyTorch around is no reading;
    # nor one that is denied.
    quiet(
        matrix,
        "SC502",
        (
            "The board reported a bus error on the I2C line.",
            "With --ipc=host the DataLoader no longer gives a bus error.",
        ),
    )
    said = read_report(SPARTAN_BUS, "p").snapshot.observations("process-crashed")
    assert [o.value for o in said] == ["bus error"]
    denied = "With --ipc=host the DataLoader no longer gives a bus error.\n"
    assert not read_report(denied, "p").snapshot.observations("process-crashed")


# siderolabs/extensions#893 (the corpus' 1088): the Talos wrapper's LPF lines on an HGX B200.
LPF = (
    "10.183.30.145: 2025/11/25 13:58:49 nvidia-fabricmanager-wrapper: found NVSwitch LPF: "
    "device=mlx5_10 guid=0xcc40f3030027f630\n"
    "10.183.30.145: 2025/11/25 13:58:49 nvidia-fabricmanager-wrapper: found NVSwitch LPF: "
    "device=mlx5_11 guid=0xcc40f3030027f631\n"
)


def test_several_nvswitch_lpf_candidates_warn_of_a_guessed_nvlsm_port(matrix: Matrix) -> None:
    found = findings(matrix, LPF)["SC1334"]
    assert found.severity is Severity.WARNING and "mlx5_10, mlx5_11" in found.message
    # One candidate is no guess; the same port twice (two pastes of a line) neither.
    one = LPF.splitlines()[0] + "\n"
    assert "SC1334" not in findings(matrix, one)
    assert "SC1334" not in findings(matrix, one + one)


# data-infra/cube-studio#29's fabric manager line; the title of siderolabs/extensions#893 (the
# corpus' 1088) put beside it to place the line on an HGX B200.
NOTHING_TO_DO = (
    "Sep 18 03:19:01 ubuntu2404 nvidia-fabricmanager-start.sh[4756]: request to query NVSwitch "
    "device information from NVSwitch driver failed with error:WARNING Nothing to do "
    "[NV_WARN_NOTHING_TO_DO]\n"
)
ON_B200 = "Nvidia HGX B200 8 GPU node does not work\n"


def test_nothing_to_do_on_a_blackwell_board_is_nvlsm_missing(matrix: Matrix) -> None:
    found = findings(matrix, ON_B200 + NOTHING_TO_DO)["SC1201"]
    assert found.severity is Severity.ERROR and "nvlsm" in found.message
    # Without a GPU named, it stays the harmless case of a machine without NVSwitches.
    alone = findings(matrix, NOTHING_TO_DO)["SC1201"]
    assert alone.severity is Severity.WARNING and "nvlsm" not in alone.message
    # The start script's own verdict: its Pre-NVL5 line (as cube-studio#29 printed it) keeps the
    # harmless reading; NVL5+ (the same line as the script prints it there) is NVLSM missing.
    pre = (
        "Sep 18 03:19:01 ubuntu2404 nvidia-fabricmanager-start.sh[4753]: Detected Pre-NVL5 system\n"
    )
    assert findings(matrix, pre + NOTHING_TO_DO)["SC1201"].severity is Severity.WARNING
    nvl5 = findings(matrix, pre.replace("Pre-NVL5", "NVL5+") + NOTHING_TO_DO)["SC1201"]
    assert nvl5.severity is Severity.ERROR and "nvlsm" in nvl5.message


# kubernetes/kubernetes#28272 (bashimao, 2019-11-04): the kubelet evicting a pod over its dshm.
DSHM_EVICTED = (
    '  Warning  Evicted  9m38s  kubelet, x_machine_x  Usage of EmptyDir volume "dshm" exceeds '
    'the limit "1Gi".\n'
)


def test_a_pod_evicted_over_its_dev_shm_volume_is_shm_exhausted(matrix: Matrix) -> None:
    found = findings(matrix, DSHM_EVICTED)["SC502"]
    assert found.severity is Severity.ERROR and "dshm exceeded its sizeLimit 1Gi" in found.message
    # Another emptyDir (a cache on disk) over its limit says nothing of /dev/shm.
    other = DSHM_EVICTED.replace('"dshm"', '"model-cache"')
    assert "SC502" not in findings(matrix, other)


def test_setpci_reads_of_the_acs_control_register(matrix: Matrix) -> None:
    # pytorch/pytorch#24081: ACS left on at the PLX switch ports with VT-d off (001d: ReqRedir+
    # CmpltRedir+); all 0000 after ACS was disabled in the BIOS.
    loop = (
        "$ for plx in $(lspci | grep -i plx | awk '{print $1}'); do sudo setpci -s ${plx} "
        "f2a.w; done\n"
    )
    on = loop + "[sudo] password for user:\n0000\n001d\n001d\n"
    found = findings(matrix, on)["SC1125"]
    assert found.severity is Severity.WARNING and "ReqRedir+ CmpltRedir+" in found.message
    assert "SC1125" not in findings(matrix, loop + "0000\n0000\n0000\n")
    # setpci's named register, and its verbose form (pciutils setpci.c exec_op).
    verbose = (
        "sudo setpci -v -s 0000:05:08.0 ECAP_ACS+0x6.w\n0000:05:08.0 (ecap 000d @f24) @f2a = 0008\n"
    )
    assert findings(matrix, verbose)["SC1125"].severity is Severity.WARNING
    # Source validation alone (0001) redirects nothing; a write is the fix, not a reading; a
    # raw offset with nothing saying ACS could be any register.
    assert "SC1125" not in findings(matrix, verbose.replace("= 0008", "= 0001"))
    assert "SC1125" not in findings(matrix, "setpci -s 05:08.0 ECAP_ACS+6.w=0000\n001d\n")
    assert "SC1125" not in findings(matrix, "sudo setpci -s 05:08.0 4a.w\n001d\n")


def test_an_nccl_build_that_cannot_join_a_cuda_graph(matrix: Matrix) -> None:
    # vllm-project/vllm#3069: torch 2.2.0+cu118 loaded NCCL 2.19.3 built with CUDA 11.0;
    # tensor-parallel vLLM captures collectives in CUDA graphs.
    refused = (
        "NCCL WARN NCCL cannot be captured in a graph if either it wasn't built with CUDA "
        "runtime >= 11.3 or if the installed CUDA driver < R465.\n"
    )
    version = "host:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda11.0\n"
    report = check(read_report(version + refused, "pasted").snapshot, matrix)
    found = next(f for f in report.findings if f.id == "SC1335")
    assert found.severity is Severity.ERROR and "built for CUDA 11.0" in found.message
    # The driver named instead where the build is new enough; either where neither is known.
    driver = "| NVIDIA-SMI 460.32.03    Driver Version: 460.32.03    CUDA Version: 11.2     |\n"
    newer = version.replace("cuda11.0", "cuda11.8")
    report = check(read_report(driver + newer + refused, "pasted").snapshot, matrix)
    assert "driver 460.32.03 is older than R465" in next(
        f.message for f in report.findings if f.id == "SC1335"
    )
    assert findings(matrix, refused)["SC1335"].severity is Severity.ERROR
    # An old build alone, with no capture attempted, says nothing.
    assert "SC1335" not in findings(matrix, version)


def test_a_limits_conf_line_a_container_never_reads(matrix: Matrix) -> None:
    # open-mpi/ompi#6468: the image's limits.conf raised memlock; the container kept 64 KiB.
    conf = "semtp           soft     memlock         unlimited\n"
    ulimit = "max locked memory       (kbytes, -l) 64\n"
    found = findings(matrix, conf + "\n" + ulimit)["SC511"]
    assert found.severity is Severity.WARNING and "limits.conf" in found.message
    # The small limit alone, with nothing saying RDMA is wanted, is advice.
    assert findings(matrix, ulimit)["SC511"].severity is Severity.INFO
    # The line alone, or with the limit it asks for in effect, says nothing is wrong.
    assert "SC511" not in findings(matrix, "* hard memlock unlimited\n")
    unlimited = "max locked memory       (kbytes, -l) unlimited\n"
    assert "SC511" not in findings(matrix, conf + "\n" + unlimited)
    # Another item of limits.conf is not the locked-memory limit.
    other = "semtp soft nofile 65536\n\n" + ulimit
    assert findings(matrix, other)["SC511"].severity is Severity.INFO


def test_p2p_off_on_geforce_cards_is_advice(matrix: Matrix) -> None:
    # NVIDIA/nccl-tests#117: RTX 4090s hang in all_reduce_perf with P2P, run with it off.
    setting = "export NCCL_P2P_DISABLE=1\n"
    smi = (
        "|   0  NVIDIA GeForce RTX 4090        Off | 00000000:2C:00.0 Off |"
        "                  Off |\n"
    )
    found = findings(matrix, smi + "\n" + setting)["SC601"]
    assert found.severity is Severity.INFO and "GeForce" in found.message
    # A data-center GPU keeps the warning.
    a100 = smi.replace("GeForce RTX 4090       ", "A100-SXM4-80GB         ")
    assert findings(matrix, a100 + "\n" + setting)["SC601"].severity is Severity.WARNING


def test_docker_run_options_named_in_a_sentence_show_no_container(matrix: Matrix) -> None:
    # rapidsai/docker#306: the options in a sentence, the next word no image; nothing says what
    # the container's /dev/shm is, so SC501 has no container to speak of.
    said = (
        "However, when I use `docker run --gpus device=0,1` and `cluster = LocalCUDACluster()` "
        "in my web app, I get an error message:\n"
    )
    assert "SC501" not in findings(matrix, said)
    # The same options in a whole command do describe a container; its two GPU processes
    # (torchrun) are what the 64 MB default hurts.
    command = (
        "docker run --gpus '\"device=0,1\"' rapidsai/base:24.04 "
        "torchrun --nproc_per_node 2 train.py\n"
    )
    assert findings(matrix, command)["SC501"].severity is Severity.WARNING


def test_a_list_of_settings_tried_without_success(matrix: Matrix) -> None:
    # The shape of ray#30333's sentence as a list: a heading that says the items were tried and
    # failed ("already", "so far", or the verdict on the line after the list).
    for text in (
        "I have already tried:\n- NCCL_P2P_DISABLE=1\n- `export NCCL_IB_DISABLE=1`\n",
        "Things I tried:\n- NCCL_P2P_DISABLE=1\n- NCCL_SHM_DISABLE=1\nNone of them helped.\n",
    ):
        assert findings(matrix, text)["SC601"].severity is Severity.INFO, text
    # A list that worked, or whose outcome is not said here, is the setting in effect.
    for text in (
        "I tried the following:\n- NCCL_P2P_DISABLE=1\nand it works now.\n",
        "I have tried the following:\n- NCCL_P2P_DISABLE=1\n",
    ):
        assert findings(matrix, text)["SC601"].severity is Severity.WARNING, text


def test_no_nvlink_in_use_is_no_link_down_on_pcie_only_gpus(matrix: Matrix) -> None:
    # azhpc-images#443's sentence; nvidia-smi -L lines written for this test. An L4 has no
    # NVLink (the matrix's gpu_link: PCIe only), so PCIe between them is no link down.
    said = "The 2 GPU were not using NVLink but communicating via PCIe.\n"
    listed = "".join(
        f"GPU {i}: NVIDIA {name} (UUID: GPU-5f0e7a52-7d3c-4f7e-9a0e-1b2c3d4e5f6{i})\n"
        for i, name in enumerate(("L4", "L4"))
    )
    assert "SC1105" not in findings(matrix, listed + said)
    nvlinked = listed.replace("L4", "A100-SXM4-80GB")
    assert findings(matrix, nvlinked + said)["SC1105"].severity is Severity.WARNING
    assert findings(matrix, said)["SC1105"].severity is Severity.WARNING  # no GPU shown
