from __future__ import annotations

from stackcheck.parsers.nvidia import (
    proc_driver_version,
    proc_gpu_information,
    smi_driver_version,
    smi_query_csv,
)
from stackcheck.parsers.packages import (
    dist_metadata,
    dpkg_status,
    efa_installed_packages,
    requires_dist,
)
from stackcheck.parsers.source import c_define, c_defines, os_release, python_assignments
from tests.support.recorded import (
    A10G_INFORMATION,
    H100_INFORMATION,
    PROC_VERSION_535,
    PROC_VERSION_580,
)


def test_proc_driver_version_both_module_kinds() -> None:
    assert proc_driver_version(PROC_VERSION_580) == "580.95.05"
    assert proc_driver_version(PROC_VERSION_535) == "535.161.07"
    assert proc_driver_version("GCC version: gcc 12\n") is None


def test_proc_gpu_information() -> None:
    h100 = proc_gpu_information(H100_INFORMATION)
    assert h100 is not None
    assert (h100.name, h100.index, h100.pci_bus_id) == ("NVIDIA H100 80GB HBM3", 5, "0000:62:00.0")
    a10g = proc_gpu_information(A10G_INFORMATION)
    assert a10g is not None
    assert (a10g.name, a10g.index) == ("NVIDIA A10G", 3)
    assert proc_gpu_information("IRQ: 10\n") is None


def test_smi_query_csv_rows_and_junk() -> None:
    # nvidia-smi's --format=csv,noheader,nounits layout, values of the recorded H100 above.
    text = (
        "0, NVIDIA H100 80GB HBM3, 81559, 00000000:62:00.0, 535.129.03, 9.0\n"
        "No devices were found\n"
    )
    [row] = smi_query_csv(text)
    assert (row.index, row.memory_mib, row.compute_capability, row.driver_version) == (
        0,
        81559,
        "9.0",
        "535.129.03",
    )
    assert smi_driver_version("535.129.03\n535.129.03\n") == "535.129.03"
    assert smi_driver_version("NVIDIA-SMI has failed") is None


def test_dpkg_status_skips_removed_packages() -> None:
    text = (
        "Package: libnccl2\nStatus: install ok installed\nVersion: 2.21.5-1+cuda12.4\n"
        "Description: NVIDIA NCCL\n multi-line description\n\n"
        "Package: libcudnn8\nStatus: deinstall ok config-files\nVersion: 8.9.2.26-1+cuda12.1\n"
    )
    assert [(p.name, p.version) for p in dpkg_status(text)] == [("libnccl2", "2.21.5-1+cuda12.4")]


def test_dist_metadata_and_requirements() -> None:
    text = (
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.14.1\n"
        'Requires-Dist: nvidia-nccl-cu13==2.30.7; platform_system == "Linux"\n'
        "\nName: not-a-header\n"
    )
    record = dist_metadata(text)
    assert record is not None
    assert (record.name, record.version) == ("torch", "2.14.1")
    assert requires_dist(text) == ["nvidia-nccl-cu13==2.30.7"]


def test_efa_installed_packages() -> None:
    version, lines = efa_installed_packages(
        "# EFA installer version: 1.38.0\n# Debug packages installed: no\n"
    )
    assert version == "1.38.0"
    assert lines == []


def test_python_assignments_never_execute() -> None:
    text = (
        "from typing import Optional\n__version__ = '2.13.0+cpu'\ncuda: Optional[str] = None\n"
        "git_version = 'cf30153'\nimport os\nos.system('exit 1')\nevil = os.getcwd()\n"
    )
    values = python_assignments(text)
    assert values == {"__version__": "2.13.0+cpu", "cuda": None, "git_version": "cf30153"}
    assert python_assignments("def (broken") == {}


def test_c_defines_and_os_release() -> None:
    header = (
        "#define NCCL_MAJOR 2\n#define NCCL_MINOR 19\n#define NCCL_PATCH 3\n"
        '#define NCCL_SUFFIX ""\n'
    )
    assert c_defines(header)["NCCL_MINOR"] == "19"
    assert os_release('NAME="Ubuntu"\nVERSION_ID="22.04"\n')["VERSION_ID"] == "22.04"


def test_c_define_agrees_with_c_defines() -> None:
    """The one-name look-up gives what the whole parse gives: the last definition, a longer
    name that starts alike skipped, values unquoted, comments cut, a name never defined None."""
    header = (
        "/* CUDART_VERSION is defined below */\n"
        "#define CUDART_VERSION_MINOR 4 // not it\n"
        "  #  define CUDART_VERSION 12040 /* 12.4 */\n"
        "#if 0\n#define CUDART_VERSION 13000\n#endif\n"
        '#define NCCL_SUFFIX "rc1"\n'
        "int f(int CUDART_VERSION);\n#define LAST 1"
    )
    for name in ("CUDART_VERSION", "CUDART_VERSION_MINOR", "NCCL_SUFFIX", "LAST", "ABSENT"):
        assert c_define(header, name) == c_defines(header).get(name), name
    assert c_define(header, "CUDART_VERSION") == "13000"
