"""Triage of GPUDirect RDMA failures outside NCCL's log: gdrcopy (gdr_open, gdr_pin_buffer) and
the peer-memory module's DKMS build. Every line is copied from the public thread named beside it
(read 2026-12-03); a sentence written for a test says so."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Finding, Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix


def findings(matrix: Matrix, text: str) -> dict[str, Finding]:
    report = check(read_report(text, "pasted").snapshot, matrix)
    return {f.id: f for f in report.findings}


def gdr_warning(matrix: Matrix, text: str, rule_id: str) -> Finding:
    """The rule's finding: a warning of the gdr family, and no error beside it (the job may
    still run, over host memory)."""
    found = findings(matrix, text)
    assert found[rule_id].family == "gdr" and found[rule_id].severity is Severity.WARNING
    assert not any(f.severity is Severity.ERROR for f in found.values())
    return found[rule_id]


def test_gdr_open_failure_is_gdrcopy_unusable(matrix: Matrix) -> None:
    # NVIDIA/gdrcopy#234: gdrdrv listed by lsmod (loaded by modprobe), no /dev/gdrdrv.
    text = (
        "nvidia@nvidia-tegra:~$ sudo sanity \n"
        "Running suite(s): Sanity\n"
        "gdr_open error: Is gdrdrv driver installed and loaded?\n"
        "gdr_open error: Is gdrdrv driver installed and loaded?\n"
    )
    assert "gdr_open error" in gdr_warning(matrix, text, "SC1409").message


def test_gdr_pin_buffer_assertion_is_gdrcopy_unusable(matrix: Matrix) -> None:
    # NVIDIA/gdrcopy#305: gdrcopy 2.4.1's sanity test on the 560 driver.
    text = (
        "gdrcopy_sanity\n"
        'Assertion "(gdr_pin_buffer(g, d_A, A_size, 0, 0, &A_mh)) == (0)" failed at '
        "sanity.cpp:344\n"
        "Total: 28, Passed: 24, Failed: 2, Waived: 2\n"
    )
    assert findings(matrix, text)["SC1409"].severity is Severity.WARNING


def test_gdrcopy_named_without_a_failure_is_quiet(matrix: Matrix) -> None:
    # Sentences written for this test: gdrcopy's calls named, nothing failing.
    for text in (
        "We call gdr_open() once per process and gdr_pin_buffer on each buffer.\n",
        "gdrcopy 2.4.2 sanity: Total: 28, Passed: 26, Failed: 0, Waived: 2\n",
    ):
        assert "SC1409" not in findings(matrix, text), text


def test_peermem_dkms_build_failure_is_a_gdr_warning(matrix: Matrix) -> None:
    # Mellanox/nv_peer_memory#10: DKMS built nv_peer_mem before OFED's ofa_kernel.
    text = (
        "$ cat /var/lib/dkms/nvidia-peer-memory/1.1/build/make.log\n"
        "DKMS make.log for nvidia-peer-memory-1.1 for kernel 4.2.0-27-generic (x86_64)\n"
        "cp -rf /Module.symvers .\n"
        "cp: cannot stat \u2018/Module.symvers\u2019: No such file or directory\n"
    )
    assert "DKMS build failed" in gdr_warning(matrix, text, "SC432").message


def test_peermem_modpost_and_symvers_script_failures(matrix: Matrix) -> None:
    # Mellanox/nv_peer_memory#70 (modpost on kernel 5.4) and #40 (CentOS 7's nvidia.ko.xz).
    for text in (
        "  MODPOST 1 modules\nFATAL: parse error in symbol dump file\n",
        '"nm -o $nvidia_mod" in create_nv.symvers.sh is looking for .ko but kernel module '
        "names on CentOS 7 end with .ko.xz.\n",
    ):
        assert findings(matrix, text)["SC432"].severity is Severity.WARNING, text


def test_a_successful_peermem_build_is_quiet(matrix: Matrix) -> None:
    # Mellanox/nv_peer_memory#70's lines before modpost failed: a build that runs is no finding.
    text = (
        "/var/lib/dkms/nvidia-peer-memory/1.0/build/create_nv.symvers.sh 5.4.0-29-generic\n"
        "Getting symbol versions from /lib/modules/5.4.0-29-generic/updates/dkms/nvidia.ko ...\n"
        "Created: /var/lib/dkms/nvidia-peer-memory/1.0/build/nv.symvers\n"
        "cp -rf /usr/src/ofa_kernel/5.4.0-29-generic/Module.symvers .\n"
    )
    assert "SC432" not in findings(matrix, text)


# ofiwg/libfabric#975: usNIC devices without a libibverbs provider; fi_getinfo fails with -19.
USNIC_FI_INFO = (
    "$ ./simple/fi_info\n"
    "libibverbs: Warning: no userspace device-specific driver found for "
    "/sys/class/infiniband_verbs/uverbs2\n"
    "librdmacm: Fatal: no RDMA devices found\n"
    "fi_getinfo(): 173, -19 (No such device)\n"
)


def test_fi_getinfo_failure_names_the_verbs_device_without_a_provider(matrix: Matrix) -> None:
    found = findings(matrix, USNIC_FI_INFO)["SC1410"]
    assert found.family == "libfabric" and found.severity is Severity.WARNING
    assert "-19 (No such device)" in found.message and "uverbs2" in found.message


def test_fabtests_later_getinfo_format_is_read(matrix: Matrix) -> None:
    # fabtests' FT_PRINTERR from libfabric 1.2 on: `call(): file:line, ret=N (text)`; the line
    # is built from that format with 975's return code (no thread quoted here).
    text = "fi_getinfo(): common/shared.c:1153, ret=-19 (No such device)\n"
    assert "(No such device)" in findings(matrix, text)["SC1410"].message


def test_libibverbs_warnings_alone_are_no_finding(matrix: Matrix) -> None:
    # A provider that does not load is often noise for a NIC no one uses: no finding without a
    # failing verbs user beside it.
    text = USNIC_FI_INFO.splitlines()[1] + "\n"
    assert "SC1410" not in findings(matrix, text)
    report = read_report(text, "pasted")
    assert report.snapshot.observations("verbs-provider-missing")


def test_stock_ofed_not_mofed_stated_means_no_peer_memory(matrix: Matrix) -> None:
    # openucx/ucx#3984: device-to-host 20x slower on a stock OFED, where nv_peer_mem cannot run.
    text = (
        "I am running on CentOS 7.6.1810 with a stock OFED (not MOFED), FDR interconnect, UCX "
        "from HPCX 2.4, OpenMPI 4.0.1, and gdrcopy module (git master).\n"
    )
    found = findings(matrix, text)["SC432"]
    assert found.severity is Severity.WARNING and "no peer-memory API" in found.message
    # Sentences written for this test: a question, and MOFED itself, are no finding.
    for quiet in (
        "Does GPUDirect RDMA work with the inbox OFED instead of MOFED?\n",
        "We run MLNX_OFED 5.8 and the stock kernel.\n",
    ):
        assert "SC432" not in findings(matrix, quiet), quiet


def test_gdrdrv_get_pages_failure_in_dmesg(matrix: Matrix) -> None:
    # NVIDIA/gdrcopy#30: gdrdrv's dmesg line when the driver refuses to pin GPU memory.
    text = (
        "gdrdrv:nvidia_p2p_get_pages(va=704fe0000 len=327680 p2p_token=0 va_space=0) failed "
        "[ret = -22]\n"
    )
    found = findings(matrix, text)["SC1409"]
    assert found.severity is Severity.WARNING and "-22" in found.message


def test_peer_memory_wrong_symbol_versions_stated(matrix: Matrix) -> None:
    # Mellanox/nv_peer_memory#55: create_nv.symvers.sh changed to read the wrong CRCs.
    text = (
        "This change https://github.com/Mellanox/nv_peer_memory/commit/25774c3f8e1b9306672de48"
        "042d9d132d19383d9#diff-bdbe24543d2311a2bc6b64a3d102fc31L90 returns the wrong symbols' "
        "version:\n"
    )
    assert findings(matrix, text)["SC432"].severity is Severity.WARNING
    # A sentence written for this test: the question is no finding.
    question = "Could nv_peer_mem be built with the wrong symbol versions?\n"
    assert "SC432" not in findings(matrix, question)


def test_peer_memory_package_and_init_script_failures(matrix: Matrix) -> None:
    # Mellanox/nv_peer_memory#119: the DKMS build failed, so dpkg and the init script fail.
    text = (
        "Error! Bad return status for module build on kernel: 5.15.0-88-generic (x86_64)\n"
        "Consult /var/lib/dkms/nv_peer_mem/1.2/build/make.log for more information.\n"
        " installed nvidia-peer-memory-dkms package post-installation script subprocess "
        "returned error exit status 10\n"
        " /etc/init.d/nv_peer_mem start\n"
        "starting... modinfo: ERROR: Module nv_peer_mem not found.\n"
        "Module nv_peer_mem does not exist\n"
        "Failed to load nv_peer_mem\n"
    )
    gdr_warning(matrix, text, "SC432")
    for line in text.splitlines()[1:3] + text.splitlines()[5:]:
        assert "SC432" in findings(matrix, line + "\n"), line


def test_ucx_gdr_copy_transport_unavailable(matrix: Matrix) -> None:
    # openucx/ucx#7917: UCX_TLS asked for gdr_copy, which UCX could not load.
    text = (
        "[1644294680.522058] [gpu39:4970 :0]     ucp_context.c:779  UCX  WARN  transport "
        "'gdr_copy' is not available, please use one or more of: cma, cuda, cuda_copy\n"
    )
    assert findings(matrix, text)["SC1409"].severity is Severity.WARNING
    # Another transport missing says nothing of gdrcopy (openucx/ucx#8808's title).
    other = "ucp_context.c:1100 UCX WARN transport 'ud' is not available\n"
    assert "SC1409" not in findings(matrix, other)


def test_fi_getinfo_failure_reported_by_mpich_and_mercury(matrix: Matrix) -> None:
    for text in (
        # pmodels/mpich#6612: MPICH 4.1's error stack.
        "find_provider(170).........: OFI fi_getinfo() failure\n",
        # mercury-hpc/mercury#204: Mercury's NA OFI plugin.
        "[0]  # na_ofi_getinfo(): fi_getinfo failed, rc: -61(No data available).\n",
    ):
        assert findings(matrix, text)["SC1410"].severity is Severity.WARNING, text
