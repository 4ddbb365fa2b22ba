"""The Kubernetes examples are valid objects of the Kubernetes API (checked offline against its
published schemas by kubernetes-validate), and the commands they run do what they promise: the
node-problem-detector plugin speaks NPD's protocol, the DaemonSet writes a textfile that parses.
No cluster runs here; the commands run against test trees instead of a node's /host."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import PROJECT

EXAMPLES = PROJECT / "examples" / "kubernetes"
MANIFESTS = sorted(EXAMPLES.glob("*.yaml"))
# The oldest Kubernetes minor still in upstream support on the day written, and the newest the
# schemas know.
VERSIONS = ("1.32", kubernetes_validate.latest_version())
NPD_EXIT = {"ok": 0, "problem": 1, "unknown": 2}  # NPD's custom plugin protocol


def documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda p: p.name)
def test_every_example_is_a_valid_kubernetes_object(manifest: Path, version: str) -> None:
    docs = documents(manifest)
    assert docs
    for doc in docs:
        # strict: a misspelt or misplaced field is an error, not silently ignored
        kubernetes_validate.validate(doc, version, strict=True)


def test_the_validator_rejects_what_the_api_server_would() -> None:
    """The schema check has teeth: a field in the wrong place fails it."""
    daemonset = documents(EXAMPLES / "stackcheck-npd.yaml")[-1]
    daemonset["spec"]["template"]["spec"]["containers"][0]["volumeMount"] = []
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(daemonset, VERSIONS[-1], strict=True)


def _npd() -> tuple[dict[str, Any], dict[str, Any]]:
    """The plugin config (from the ConfigMap) and NPD's DaemonSet."""
    docs = {d["kind"]: d for d in documents(EXAMPLES / "stackcheck-npd.yaml")}
    config = json.loads(docs["ConfigMap"]["data"]["stackcheck-monitor.json"])
    return config, docs["DaemonSet"]


def test_the_npd_config_sets_one_condition_from_stackcheck() -> None:
    config, daemonset = _npd()
    assert config["plugin"] == "custom"
    (condition,) = config["conditions"]
    assert condition["type"] == "GPUStackUnhealthy" and condition["reason"] == "GPUStackHealthy"
    (rule,) = config["rules"]
    assert rule["type"] == "permanent" and rule["condition"] == condition["type"]
    assert rule["path"] == "stackcheck" and rule["args"][:1] == ["node-check"]
    assert "--format" in rule["args"] and rule["args"][rule["args"].index("--format") + 1] == "npd"
    container = daemonset["spec"]["template"]["spec"]["containers"][0]
    assert "--config.custom-plugin-monitor=/config/stackcheck-monitor.json" in container["command"]
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    assert all(mounts[p]["readOnly"] for p in ("/host", "/host/proc", "/host/sys"))


def _plugin(rule: dict[str, Any], tree: Path) -> list[str]:
    """The rule's command as NPD runs it, with this Python's stackcheck and a test tree as the
    node's /host."""
    args = [str(tree) if a == "/host" else a for a in rule["args"]]
    return [sys.executable, "-m", "stackcheck", *args]


@pytest.mark.parametrize(
    ("tree", "status", "message"),
    [
        ("healthy", "ok", "stack healthy: no finding at error or above"),
        ("broken", "problem", "SC101,SC103,SC401,SC521: Driver too old for the CUDA in use"),
        ("no-such-tree", "unknown", "stackcheck could not check: --root"),
    ],
)
def test_the_npd_plugin_answers_with_its_exit_code_and_one_short_line(
    p5: dict[str, Path], tmp_path: Path, tree: str, status: str, message: str
) -> None:
    config, _ = _npd()
    rule = config["rules"][0]
    limit = config["pluginConfig"]["max_output_length"]
    timeout = int(rule["timeout"].removesuffix("s"))
    done = subprocess.run(
        _plugin(rule, p5.get(tree, tmp_path / tree)),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
    )
    assert done.returncode == NPD_EXIT[status], done.stderr
    assert done.stdout.endswith("\n") and done.stdout.count("\n") == 1
    line = done.stdout.rstrip("\n")
    assert len(line) <= limit
    assert line.startswith(message)


def test_the_textfile_daemonset_writes_what_node_exporter_reads(
    p5: dict[str, Path], tmp_path: Path
) -> None:
    (daemonset,) = documents(EXAMPLES / "stackcheck-textfile-daemonset.yaml")
    pod = daemonset["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["command"][:2] == ["sh", "-c"]
    script = container["command"][2]
    textfile = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}["textfile"]
    assert textfile == "/textfile" and "--output /textfile/stackcheck.prom" in script
    host_dir = {v["name"]: v for v in pod["volumes"]}["textfile"]["hostPath"]["path"]
    assert host_dir == "/var/lib/node_exporter/textfile_collector"
    # The container's loop, once: this Python's stackcheck on PATH, a test tree as /host.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "stackcheck"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m stackcheck "$@"\n')
    shim.chmod(0o755)
    assert "sleep 300" in script
    once = (
        script.replace("/host", str(p5["broken"]))
        .replace("/textfile", str(tmp_path))
        .replace("sleep 300", "break")
    )
    done = subprocess.run(
        ["sh", "-c", once],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"},
    )
    assert done.returncode == 0 and "check failed" not in done.stderr, done.stderr
    out = tmp_path / "stackcheck.prom"
    names = {f.name for f in text_string_to_metric_families(out.read_text())}
    assert {"stackcheck_findings", "stackcheck_component_info"} <= names
