"""The fifteenth pass's readings of messages that name no fault of the stack: a link step that
finds no unversioned libcuda.so, CUDA's invalid-module error, UCX's failed memory registration.
Each is read (the report is recognised) on the shapes other linkers, versions and wrappers print,
and none raises a warning or an error."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.snapshot.model import ComponentName, ObservationKind
from tests.corpus import body
from tests.test_triage_gpu_stack import loud


def _observed(text: str, kind: ObservationKind) -> list[str]:
    snapshot = read_report(text, "pasted").snapshot
    return [o.value or "" for o in snapshot.observations(kind)]


def test_a_link_step_that_finds_no_libcuda_is_read_and_quiet(matrix: Matrix) -> None:
    """triton-lang/triton#1981 (1412) and #3053 (1413): Triton's launcher build links with
    -lcuda; GNU ld (with and without 2.40's reason), gold and lld say it alike. The driver is
    not at fault, so nothing is raised; another library's absence is not this reading."""
    said = (
        body("1412"),
        body("1413"),
        "/usr/bin/ld.gold: error: cannot find -lcuda\n",
        "ld.lld: error: unable to find library -lcuda\n",
    )
    for text in said:
        assert _observed(text, "linker-library-missing") == ["cuda"], text
        assert loud(matrix, text) == {}, text
    assert _observed("/usr/bin/ld: cannot find -lcudart\n", "linker-library-missing") == []


def test_an_invalid_kernel_image_is_cuda_error_200(matrix: Matrix) -> None:
    """pytorch/pytorch#119054 (1419): Triton's 'device kernel image is invalid'; the driver API's
    enum name reads alike. The driver's version is not in the text, so nothing is raised."""
    for text in (body("1419"), "CUDA_ERROR_INVALID_IMAGE: device kernel image is invalid\n"):
        assert "200" in _observed(text, "cuda-error"), text
        assert loud(matrix, text) == {}, text


def test_a_failed_ucx_registration_keeps_its_error(matrix: Matrix) -> None:
    """openucx/ucx#1487 (1466): the rcache's 'failed to register region' on a host out of memory;
    ucp_mm's 'failed to register address' (UCX 1.9+) reads alike, each keeping the error it
    names, and none is a finding by itself."""
    mm = (
        "[1600000000.123456] [h1:1:0]  ucp_mm.c:62   UCX  ERROR failed to register address "
        "0x7f2a00000000 mem_type bit 0x2 length 1048576 on md[4]=mlx5_0: Input/output error "
        "(md reg_mem_types 0x1)\n"
    )
    for text, error in ((body("1466"), "Input/output error"), (mm, "Input/output error")):
        assert _observed(text, "rdma-register-failed") == [error], text
        assert loud(matrix, text) == {}, text
    rcache = (
        "rcache.c:479  UCX  WARN  failed to register region 0x1c4d0a0 "
        "[0x7f0000000000..0x7f0000100000]: Cannot allocate memory\n"
    )
    assert _observed(rcache, "rdma-register-failed") == ["Cannot allocate memory"]


def _libfabric(text: str) -> list[str]:
    snapshot = read_report(text, "pasted").snapshot
    return [i.version for i in snapshot.components[ComponentName.LIBFABRIC].installations]


def test_libfabric_stated_in_prose(matrix: Matrix) -> None:
    """libfabric named with its version in a sentence or a list (a release, a release candidate
    as in ofiwg/libfabric#6565, Amazon's build) is read like PyTorch's or cuDNN's; a suggested
    version, a range, a branch or a tarball's name is not; a version alone raises nothing."""
    for text, version in (
        ("We are using libfabric 1.11.1 with Open MPI 4.1.0\n", "1.11.1"),
        ("- libfabric: 1.12.0rc1\n", "1.12.0rc1"),
        ("libfabric version: 1.18.2amzn1.0\n", "1.18.2amzn1.0"),
        ("libfabric 2.1.0\n", "2.1.0"),
    ):
        assert _libfabric(text) == [version], text
        # A release candidate is SC1411's warning (not a release); a release alone raises nothing.
        assert loud(matrix, text) == ({"SC1411": Severity.WARNING} if "rc" in version else {}), text
    for text in (
        "Please upgrade to libfabric 1.19\n",
        "since libfabric 1.18 the EFA provider handles it\n",
        "Libfabric: https://github.com/ofiwg/libfabric -b 'master'\n",
        "libfabric-1.11.0.tar.bz2\n",
    ):
        assert _libfabric(text) == [], text
