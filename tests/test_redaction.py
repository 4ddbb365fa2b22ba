"""No output of probe, check, scan or triage, in any format, holds a secret (issue 19): URL
credentials, token/key/password pairs, and variables named as secrets, from the environment,
/etc/nccl.conf, an image's ENV and a pasted report; each masked value keeps its shape."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from stackcheck.redact import MASK, redact, redact_text, redact_value
from stackcheck.snapshot import EnvVar, Evidence
from tests.conftest import Outcome
from tests.support import scenarios
from tests.support.images import ImageBuilder, ImageSpec
from tests.support.rootfs import Root

Cli = Callable[..., Outcome]
FORMATS = ("text", "json", "sarif", "github", "markdown")
# Every secret value of the issue; each holds "s3cret", which no output may contain.
SECRETS = {
    "NCCL_DEBUG_FILE": "https://alice:s3cret-pw1@logs.example.com/x",
    "NCCL_NET_PLUGIN": "https://bob:s3cret-pw2@plugins.example.com/net.so",
    "LD_LIBRARY_PATH": "/usr/local/cuda/lib64:https://carol:s3cret-pw3@example.com/lib",
    "NV_LICENSE_KEY": "lic-s3cret-4",
    "TORCH_HUB_AUTH": "hub-s3cret-5",
    "PYTORCH_NCCL_PASS": "pass-s3cret-6",
    "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,token=tok-s3cret-7",
    "AWS_SECRET_ACCESS_KEY": "aws-s3cret-8",
    "HF_TOKEN": "hf_s3cret9abcdefghijklmnopqrstuvwxyz01",
    "WANDB_API_KEY": "wandb-s3cret-10",
}


def assert_clean(done: Outcome, *files: Path) -> None:
    assert done.code in (0, 1), done.err
    texts = [done.out, done.err, *(f.read_text() for f in files if f.exists())]
    for text in texts:
        assert "s3cret" not in text, text[max(0, text.find("s3cret") - 300) :][:600]


def every_format(cli: Cli, tmp_path: Path, *argv: str) -> None:
    for name in FORMATS:
        sarif, report = tmp_path / f"{name}.sarif", tmp_path / f"{name}.json"
        done = cli(*argv, "--format", name, "--sarif", str(sarif), "--report-json", str(report))
        assert_clean(done, sarif, report)
        if name == "json":
            assert MASK in done.out  # masked, not dropped: the finding still reads


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("NCCL_DEBUG_FILE=https://user:pass@host/x", "NCCL_DEBUG_FILE=https://***@host/x"),
        ("a=1,token=abc;b", "a=1,token=***;b"),
        ("-e HF_TOKEN=xyz -e WANDB_API_KEY=k img", "-e HF_TOKEN=*** -e WANDB_API_KEY=*** img"),
        ('password="hunter2"', 'password="***"'),
        ("id AKIAABCDEFGHIJKLMNOP end", "id *** end"),
        ("plain NCCL_DEBUG=INFO sha256:abcd", "plain NCCL_DEBUG=INFO sha256:abcd"),
        ("Author-email: a@example.com", "Author-email: a@example.com"),
        ("lib-\udcff\udcfe.so", "lib-\\xff\\xfe.so"),
    ],
)  # fmt: skip
def test_redact_text_by_shape(text: str, expected: str) -> None:
    assert redact_text(text) == expected


def test_redact_by_name_keeps_shape() -> None:
    assert redact_value("NV_LICENSE_KEY", "abc") == MASK
    assert redact_value("HF_TOKEN", "https://u:p@h/x") == "https://***@h/x"
    assert redact_value("NCCL_DEBUG", "INFO") == "INFO"
    env = {
        "TORCH_HUB_AUTH": EnvVar(
            value="v", evidence=Evidence(kind="env", source="TORCH_HUB_AUTH", detail="v")
        )
    }
    masked = redact(env)["TORCH_HUB_AUTH"]
    assert masked.value == MASK and masked.evidence.detail == MASK
    path = Evidence(kind="file", source="/usr/lib/keyring/x.so", detail="key-looking but a path")
    assert redact(path) is path  # a file's evidence is not a variable's value


def test_probe_and_check_of_the_host(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no GPU tools: a quick probe
    assert_clean(cli("probe", "--no-network"))
    assert_clean(cli("probe", "--no-network", "--json"))
    every_format(cli, tmp_path, "check", "--no-network")


def test_check_of_a_tree(cli: Cli, root: Root, tmp_path: Path) -> None:
    scenarios.ngc_image(root)
    root.write("etc/nccl.conf", "".join(f"{k}={v}\n" for k, v in SECRETS.items()))
    every_format(cli, tmp_path, "check", "--root", str(root.path))
    assert_clean(cli("probe", "--root", str(root.path), "--json"))


def test_scan_of_an_image_with_secrets_in_its_env(
    cli: Cli, root: Root, images: ImageBuilder, tmp_path: Path
) -> None:
    scenarios.ngc_image(root)
    archive = images.docker_archive(ImageSpec([images.layer(root.path)], env=SECRETS))
    every_format(cli, tmp_path, "scan", str(archive), "--no-cache", "--instance", "p5.48xlarge")


def test_triage_of_a_pasted_docker_run_and_env_dump(cli: Cli, tmp_path: Path) -> None:
    options = " ".join(f"-e {k}={v}" for k, v in SECRETS.items())
    pasted = tmp_path / "issue.md"
    pasted.write_text(
        "I run:\n```\ndocker run --gpus all --shm-size=1g "
        f"{options} nvcr.io/nvidia/pytorch:24.05-py3 python train.py\n```\n"
        "and my environment:\n```\n"
        + "".join(f"{k}={v}\n" for k, v in SECRETS.items())
        + "NCCL_DEBUG=INFO\n```\n"
    )
    every_format(cli, tmp_path, "triage", str(pasted))
    assert_clean(cli("triage", str(pasted), "--show-parsed"))
    assert_clean(cli("triage", str(pasted), "--show-parsed", "--format", "json"))
