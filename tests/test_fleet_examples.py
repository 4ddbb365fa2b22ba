"""The shipped examples stay what docs/fleet.md says they are. (The sbatch script is also
submitted to a real Slurm cluster in test_fleet_slurm.py; no Kubernetes cluster runs here, so
the Job manifest is read, not applied.)"""

from __future__ import annotations

import subprocess
from typing import Any

import yaml

from tests.conftest import PROJECT

EXAMPLES = PROJECT / "examples"


def test_the_kubernetes_job_puts_one_probe_on_each_node_and_prints_the_snapshot() -> None:
    job: dict[str, Any] = yaml.safe_load(
        (EXAMPLES / "kubernetes" / "stackcheck-probe-job.yaml").read_text()
    )
    assert (job["apiVersion"], job["kind"]) == ("batch/v1", "Job")
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    assert spec["completions"] == spec["parallelism"]
    assert spec["backoffLimit"] == 0 and spec["activeDeadlineSeconds"] > 0
    pod = spec["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    rule = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert rule["topologyKey"] == "kubernetes.io/hostname"
    assert (
        rule["labelSelector"]["matchLabels"].items()
        <= spec["template"]["metadata"]["labels"].items()
    )
    (container,) = pod["containers"]
    command = " ".join(container["command"])
    assert "stackcheck probe --json" in command and "timeout" in command
    assert "2>/dev/termination-log" in command  # the log holds the JSON only
    assert container["resources"]["limits"]["nvidia.com/gpu"] > 0


def test_the_sbatch_script_is_valid_bash_and_gates_on_the_fleet() -> None:
    script = EXAMPLES / "slurm" / "stackcheck-fleet.sbatch"
    checked = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    text = script.read_text()
    assert text.startswith("#!/bin/bash\n")
    assert "#SBATCH --ntasks-per-node=1" in text
    assert 'exec "${stackcheck[@]}" fleet --slurm' in text
