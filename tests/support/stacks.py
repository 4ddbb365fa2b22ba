"""Stacks assembled from the versions real images and AMIs publish (the DLC Dockerfiles, DLAMI
release notes, PyTorch wheel pins), part by part, for the matrix-driven rules and recommender.

Each builder writes the files the probes read for that part, the way its vendor lays it out:
the EFA installer's record and libfabric under /opt/amazon/efa, the aws-ofi-nccl plugin with its
"NET/OFI Initializing aws-ofi-nccl X" string, NCCL with its real file name, pip wheels with their
dist-info, the driver's /proc files with NVIDIA's recorded text.
"""

from __future__ import annotations

from collections.abc import Sequence

from tests.support.recorded import PROC_VERSION_535, PROC_VERSION_580, h100_gpus
from tests.support.rootfs import Root, Site

PROC_VERSIONS = {"535.161.07": PROC_VERSION_535, "580.95.05": PROC_VERSION_580}


def gpus_named(model: str, count: int) -> list[tuple[str, str]]:
    """``count`` GPUs with the recorded H100 information file, the model line changed."""
    return [(bus, text.replace("NVIDIA H100 80GB HBM3", model)) for bus, text in h100_gpus(count)]


def host(
    root: Root,
    instance: str = "p5.48xlarge",
    driver: str = "580.95.05",
    gpus: Sequence[tuple[str, str]] | None = None,
) -> None:
    """An Ubuntu 22.04 EC2 host: DMI instance type, driver files (recorded text) and GPUs."""
    root.write("etc/os-release", 'NAME="Ubuntu"\nPRETTY_NAME="Ubuntu 22.04.5 LTS"\n')
    root.debian_loader()
    root.dmi("Amazon EC2", instance)
    root.driver(PROC_VERSIONS[driver], h100_gpus() if gpus is None else gpus)
    root.user_driver(driver)


def efa_installer(root: Root, version: str, libfabric: str, devices: int = 4) -> None:
    """/opt/amazon/efa_installed_packages and the libfabric it installs (its release kept in
    .rodata, as libfabric does), on the loader path, with EFA devices."""
    root.write(
        "opt/amazon/efa_installed_packages",
        f"# EFA installer version: {version}\n# Debug packages installed: no\n",
    )
    root.elf("opt/amazon/efa/lib/libfabric.so.1", soname="libfabric.so.1", strings=[libfabric])
    root.ld_conf("000_efa.conf", "/opt/amazon/efa/lib")
    root.efa_devices(*(f"rdmap{16 + i}s27" for i in range(devices)))


def ofi_plugin(root: Root, version: str, directory: str = "opt/amazon/ofi-nccl/lib") -> None:
    """The aws-ofi-nccl plugin as NCCL finds it (libnccl-net.so), on the loader path."""
    root.elf(
        f"{directory}/libnccl-net.so",
        soname="libnccl-net.so",
        needed=["libfabric.so.1"],
        strings=[f"NET/OFI Initializing aws-ofi-nccl {version}"],
    )
    root.ld_conf("100_ofinccl.conf", f"/{directory}")


def system_nccl(root: Root, version: str, directory: str = "usr/local/lib") -> None:
    """NCCL built from source into ``directory`` (as DLC images do), by its real file name."""
    root.elf(f"{directory}/libnccl.so.{version}", soname="libnccl.so.2")
    root.link(f"{directory}/libnccl.so.2", f"libnccl.so.{version}")
    root.ld_conf("nccl.conf", f"/{directory}")


def torch_venv(
    root: Root,
    torch: str,
    cuda: str,
    archs: Sequence[str],
    nccl: str | None = None,
    cudnn: str | None = None,
) -> Site:
    """A venv at /opt/pytorch with a PyTorch CUDA wheel and its NCCL and cuDNN wheels."""
    major = int(cuda.split(".")[0])
    site = root.venv("opt/pytorch", "3.11")
    site.torch(torch, cuda, archs=" ".join(archs), cuda_major=major)
    if nccl:
        site.nccl_wheel(nccl, major)
    if cudnn:
        site.cudnn_wheel(cudnn, major)
    return site
