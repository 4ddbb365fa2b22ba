"""Whole trees for end-to-end tests: a healthy DLAMI-like p5 host, an NGC-like image rootfs, and
a broken host. Each is built from the recorded texts and gcc-built libraries."""

from __future__ import annotations

from tests.support.recorded import PROC_VERSION_535, PROC_VERSION_580, h100_gpus
from tests.support.rootfs import Root

OFI_STRING = "NET/OFI Initializing aws-ofi-nccl 1.17.2"
NEW_ARCHS = "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"


def efa_stack(root: Root, *, on_loader_path: bool = True, devices: bool = True) -> None:
    """EFA installer 1.45-style layout: libfabric under /opt/amazon/efa, the plugin under
    /opt/amazon/ofi-nccl/lib, both registered in /etc/ld.so.conf.d when asked."""
    root.write("opt/amazon/efa_installed_packages", "# EFA installer version: 1.45.0\n")
    root.elf("opt/amazon/efa/lib/libfabric.so.1", soname="libfabric.so.1")
    root.elf(
        "opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so",
        soname="libnccl-net-ofi.so",
        needed=["libfabric.so.1"],
        strings=[OFI_STRING],
    )
    root.link("opt/amazon/ofi-nccl/lib/libnccl-net.so", "libnccl-net-ofi.so")
    if on_loader_path:
        root.ld_conf("000_efa.conf", "/opt/amazon/efa/lib")
        root.ld_conf("100_ofinccl.conf", "/opt/amazon/ofi-nccl/lib")
    if devices:
        root.efa_devices(*(f"rdmap{16 + i}s27" for i in range(4)))


def dlami_p5(root: Root) -> None:
    """A healthy p5.48xlarge on an R580 DLAMI with the PyTorch venv at /opt/pytorch."""
    root.write("etc/os-release", 'NAME="Ubuntu"\nPRETTY_NAME="Ubuntu 22.04.5 LTS"\n')
    root.debian_loader()
    root.dmi("Amazon EC2", "p5.48xlarge")
    (root.path / "opt/dlami/nvme").mkdir(parents=True)
    root.driver(PROC_VERSION_580, h100_gpus())
    root.user_driver("580.95.05")
    root.fabric_manager("580.95.05")
    root.toolkit("12.8.1", default=False)
    root.toolkit("13.0.2")
    efa_stack(root)
    site = root.venv("opt/pytorch", "3.12")
    site.torch("2.9.0+cu130", "13.0", archs=NEW_ARCHS, cuda_major=13)
    site.nccl_wheel("2.27.7", 13)
    site.cudnn_wheel("9.13.0.50", 13)
    site.cudart_wheel("13.0.96", 13)


def broken_p5(root: Root) -> None:
    """A p5 with an R535 driver under a CUDA 13 PyTorch, a stale user-space driver, and the
    aws-ofi-nccl plugin installed but missing from the loader path."""
    root.write("etc/os-release", 'NAME="Ubuntu"\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n')
    root.debian_loader()
    root.dmi("Amazon EC2", "p5.48xlarge")
    root.driver(PROC_VERSION_535, h100_gpus())
    root.user_driver("550.54.15")
    efa_stack(root, on_loader_path=False)
    site = root.venv("opt/pytorch", "3.12")
    site.torch("2.9.0+cu130", "13.0", archs=NEW_ARCHS, cuda_major=13)
    site.nccl_wheel("2.27.7", 13)
    site.cudnn_wheel("9.13.0.50", 13)


def ngc_image(root: Root) -> None:
    """The rootfs of an NGC-style PyTorch image: system NCCL and cuDNN packages, CUDA 12.9.1
    with its forward-compat libcuda, torch in /usr/local/lib/python3.12/dist-packages."""
    root.write("etc/os-release", 'NAME="Ubuntu"\nPRETTY_NAME="Ubuntu 24.04.2 LTS"\n')
    root.debian_loader()
    root.toolkit("12.9.1")
    root.elf("usr/local/cuda/compat/lib.real/libcuda.so.575.57.08", soname="libcuda.so.1")
    root.elf("usr/lib/x86_64-linux-gnu/libnccl.so.2.27.3", soname="libnccl.so.2")
    root.link("usr/lib/x86_64-linux-gnu/libnccl.so.2", "libnccl.so.2.27.3")
    root.elf("usr/lib/x86_64-linux-gnu/libcudnn.so.9.10.2", soname="libcudnn.so.9")
    root.link("usr/lib/x86_64-linux-gnu/libcudnn.so.9", "libcudnn.so.9.10.2")
    root.write(
        "var/lib/dpkg/status",
        "Package: libnccl2\nStatus: install ok installed\nVersion: 2.27.3-1+cuda12.9\n\n"
        "Package: libcudnn9-cuda-12\nStatus: install ok installed\nVersion: 9.10.2.21-1\n",
    )
    site = root.site("usr/local/lib/python3.12/dist-packages")
    site.torch(
        "2.8.0a0+5228986c39.nv25.6",
        "12.9",
        archs="sm_80 sm_86 sm_90 sm_100 sm_110 sm_120 compute_120",
        rpath="",
    )
