"""Images through a real engine (podman's Docker API, read with the ``docker`` SDK) and a real
registry (Debian's docker-registry on 127.0.0.1, images pushed with skopeo).

scripts/test.sh starts both with scripts/services/*.sh; CI requires them.
"""

from __future__ import annotations

import base64
import json
import os
import shlex
import subprocess
import urllib.request
import uuid
from pathlib import Path

import pytest

from tests.conftest import Outcome, run_stackcheck
from tests.support import scenarios
from tests.support.images import ImageBuilder, ImageSpec, member
from tests.support.rootfs import Root

ENV = {"NCCL_VERSION": "2.21.5", "CUDA_VERSION": "12.9.1"}


def podman(*arguments: str) -> str:
    store = shlex.split(os.environ.get("STACKCHECK_PODMAN_STORE", ""))
    done = subprocess.run(
        ["podman", *store, *arguments], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout


def skopeo_copy(source: str, destination: str, *options: str) -> None:
    subprocess.run(
        ["skopeo", "copy", "--quiet", "--dest-tls-verify=false", *options, source, destination],
        capture_output=True,
        timeout=120,
        check=True,
    )


def scan_json(*arguments: str, env: dict[str, str] | None = None) -> dict[str, object]:
    done: Outcome = run_stackcheck(
        "scan", *arguments, "--no-cache", "--format", "json", "--fail-on", "never", env=env
    )
    assert done.code == 0, done.err
    report: dict[str, object] = json.loads(done.out)
    return report


def versions(report: dict[str, object]) -> dict[str, list[tuple[object, object]]]:
    snapshot = report["snapshot"]
    assert isinstance(snapshot, dict)
    return {
        name: sorted((i["version"], i["path"]) for i in component["installations"])
        for name, component in snapshot["components"].items()
    }


def unique(root: Root) -> str:
    """A file only this test's image has, so no registry or skopeo cache can stand in for it."""
    token = uuid.uuid4().hex
    root.write(f"etc/stackcheck-test-{token}", token)
    return token[:12]


@pytest.fixture
def ngc_root(root: Root) -> Root:
    scenarios.ngc_image(root)
    return root


def test_engine_image_through_the_docker_sdk(
    podman_socket: str, ngc_root: Root, images: ImageBuilder
) -> None:
    tag = f"localhost/stackcheck-test/ngc:{unique(ngc_root)}"
    rootfs = images.layer(ngc_root.path)
    podman(
        "import",
        "--change",
        "ENV NCCL_VERSION=2.21.5",
        "--change",
        "LABEL org.opencontainers.image.title=fake-ngc",
        "--change",
        'CMD ["/bin/sh"]',
        str(rootfs.path),
        tag,
    )
    try:
        env = {"DOCKER_HOST": f"unix://{podman_socket}"}
        expected = versions(scan_json(f"oci:{images.oci_layout(ImageSpec([rootfs]))}"))
        for reference in (tag, f"docker://{tag}"):
            report = scan_json(reference, env=env)
            snapshot = report["snapshot"]
            assert isinstance(snapshot, dict)
            image = snapshot["image"]
            assert image["transport"] == "docker"
            assert "NCCL_VERSION=2.21.5" in image["env"]
            assert image["labels"] == {"org.opencontainers.image.title": "fake-ngc"}
            assert image["cmd"] == ["/bin/sh"]
            assert versions(report) == expected
            findings = report["findings"]
            assert isinstance(findings, list)
            [sc350] = [f for f in findings if f["id"] == "SC350"]
            assert "would load NCCL 2.27.3" in sc350["message"]
    finally:
        podman("rmi", tag)


def test_registry_images_in_every_format(
    registry: str, ngc_root: Root, images: ImageBuilder
) -> None:
    name = unique(ngc_root)
    spec = ImageSpec([images.layer(ngc_root.path)], env=ENV)
    expected = versions(scan_json(f"oci:{images.oci_layout(spec)}"))
    pushed = {
        "gzip": (f"oci:{images.oci_layout(spec, 'gzip')}:1", ()),
        "zstd": (f"oci:{images.oci_layout(spec, 'zstd')}:1", ()),
        "v2s2": (f"docker-archive:{images.docker_archive(spec)}", ("--format", "v2s2")),
    }
    for kind, (source, options) in pushed.items():
        reference = f"{registry}/stackcheck/{kind}-{name}:1"
        skopeo_copy(source, f"docker://{reference}", *options)
        report = scan_json(f"registry://{reference}")
        assert versions(report) == expected, kind
        snapshot = report["snapshot"]
        assert isinstance(snapshot, dict)
        assert "CUDA_VERSION=12.9.1" in snapshot["image"]["env"]
        assert snapshot["image"]["manifest_digest"].startswith("sha256:")
    request = urllib.request.Request(
        f"http://{registry}/v2/stackcheck/zstd-{name}/manifests/1",
        headers={"Accept": "application/vnd.oci.image.manifest.v1+json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        layer = json.loads(response.read())["layers"][0]
    assert layer["mediaType"].endswith("tar+zstd")  # the registry really serves zstd


def test_registry_multi_platform_index(registry: str, root: Root, images: ImageBuilder) -> None:
    name = unique(root)
    root.write("etc/os-release", 'PRETTY_NAME="amd64 image"\n')
    amd = ImageSpec([images.layer(root.path)])
    root.write("etc/os-release", 'PRETTY_NAME="arm64 image"\n')
    arm = ImageSpec([images.layer(root.path)], architecture="arm64")
    layout = images.oci_index({"linux/amd64": amd, "linux/arm64": arm})
    reference = f"{registry}/stackcheck/multi-{name}:1"
    skopeo_copy(f"oci:{layout}:1", f"docker://{reference}", "--all")
    for platform, shown in (("linux/amd64", "amd64 image"), ("linux/arm64", "arm64 image")):
        report = scan_json(f"registry://{reference}", "--platform", platform)
        snapshot = report["snapshot"]
        assert isinstance(snapshot, dict)
        assert snapshot["platform"]["os"] == shown


def test_bare_reference_falls_back_from_the_engine_to_the_registry(
    podman_socket: str, registry: str, root: Root, images: ImageBuilder
) -> None:
    name = unique(root)
    root.write("etc/os-release", 'PRETTY_NAME="from the registry"\n')
    reference = f"{registry}/stackcheck/fallback-{name}:1"
    skopeo_copy(
        f"oci:{images.oci_layout(ImageSpec([images.layer(root.path)]))}:1", f"docker://{reference}"
    )
    report = scan_json(reference, env={"DOCKER_HOST": f"unix://{podman_socket}"})
    snapshot = report["snapshot"]
    assert isinstance(snapshot, dict)
    assert snapshot["image"]["transport"] == "registry"
    assert snapshot["platform"]["os"] == "from the registry"


def test_registry_manifest_pointing_at_a_deleted_blob(
    registry: str, root: Root, images: ImageBuilder, tmp_path: Path
) -> None:
    name = unique(root)
    layer = images.layer(extra=[member("etc/os-release", b'PRETTY_NAME="x"\n')], tree=root.path)
    layout = images.oci_layout(ImageSpec([layer]))
    reference = f"{registry}/stackcheck/deleted-{name}:1"
    skopeo_copy(f"oci:{layout}:1", f"docker://{reference}")
    manifest = json.loads((layout / "index.json").read_text())["manifests"][0]["digest"]
    document = json.loads((layout / "blobs/sha256" / manifest[7:]).read_text())
    blob = document["layers"][0]["digest"]
    delete = urllib.request.Request(
        f"http://{registry}/v2/stackcheck/deleted-{name}/blobs/{blob}", method="DELETE"
    )
    with urllib.request.urlopen(delete, timeout=10) as response:
        assert response.status == 202
    done = run_stackcheck("scan", f"registry://{reference}", "--no-cache")
    assert done.code == 2 and "Traceback" not in done.err
    assert f"the manifest points at a missing blob {blob}" in done.err


def test_registry_login_from_the_docker_config(
    login_registry: tuple[str, str], root: Root, images: ImageBuilder, tmp_path: Path
) -> None:
    registry, user = login_registry
    name = unique(root)
    root.write("etc/os-release", 'PRETTY_NAME="behind a login"\n')
    reference = f"{registry}/stackcheck/login-{name}:1"
    layout = images.oci_layout(ImageSpec([images.layer(root.path)]))
    skopeo_copy(f"oci:{layout}:1", f"docker://{reference}", "--dest-creds", user)
    anonymous = tmp_path / "anonymous"
    anonymous.mkdir()
    done = run_stackcheck(
        "scan", f"registry://{reference}", "--no-cache", env={"DOCKER_CONFIG": str(anonymous)}
    )
    assert done.code == 2 and f"registry {registry} needs a login" in done.err
    logged_in = tmp_path / "logged-in"
    logged_in.mkdir()
    token = base64.b64encode(user.encode()).decode()
    (logged_in / "config.json").write_text(json.dumps({"auths": {registry: {"auth": token}}}))
    report = scan_json(f"registry://{reference}", env={"DOCKER_CONFIG": str(logged_in)})
    snapshot = report["snapshot"]
    assert isinstance(snapshot, dict)
    assert snapshot["platform"]["os"] == "behind a login"
