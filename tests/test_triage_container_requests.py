"""GPU requests in containers as reports show them: Docker's refusal of an unquoted device list,
a compose GPU reservation under podman-compose, the container toolkit's capabilities without a
device list, and a `docker run` quoted as inline code in a sentence."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.snapshot.model import ComponentName
from tests.corpus import body
from tests.support.pasted import findings


def loud(matrix: Matrix, text: str) -> dict[str, Severity]:
    return {k: v for k, v in findings(matrix, text).items() if v is not Severity.INFO}


# rapidsai/docker#306 (the corpus' 1186), the daemon's answer to `--gpus device=0,1` unquoted.
_COUNT_AND_IDS = (
    "docker: Error response from daemon: cannot set both Count and DeviceIDs on device request.\n"
)


def test_an_unquoted_device_list_is_advice_not_a_missing_gpu(matrix: Matrix) -> None:
    """The CLI splits `device=0,1` into a device and a count; the daemon refuses the pair before
    any GPU is touched: advice to quote the list, not "the process sees no GPU"."""
    assert findings(matrix, _COUNT_AND_IDS) == {"SC1407": Severity.INFO}
    report = check(read_report(body("1186"), "pasted").snapshot, matrix)
    assert not [f for f in report.findings if f.severity is not Severity.INFO]
    said = next(f for f in report.findings if f.id == "SC1407")
    assert "Quote the list" in said.message


def test_a_docker_run_quoted_inline_ends_at_its_backtick(matrix: Matrix) -> None:
    """`docker run --gpus device=0,1` and `cluster = ...`: the sentence's next word is no image."""
    specs = read_report(body("1186"), "pasted").snapshot.run_specs
    assert [s.image for s in specs] == [None, None]
    assert [s.gpus for s in specs] == ["device=0,1", "device=0"]
    # A whole command in one span keeps its image.
    line = "I start it with `docker run --gpus all --ipc=host nvcr.io/nvidia/pytorch:24.01-py3`.\n"
    (spec,) = read_report(line, "pasted").snapshot.run_specs
    assert spec.image == "nvcr.io/nvidia/pytorch:24.01-py3" and spec.ipc == "host"


def test_a_gpu_count_alone_does_not_make_default_shm_a_warning(matrix: Matrix) -> None:
    """Two GPUs for a web app (1186) show no NCCL and no DataLoader workers: advice only."""
    run = "docker run --gpus '\"device=0,1\"' -p 8888:8888 rapidsai/rapidsai:latest\n"
    assert findings(matrix, run)["SC501"] is Severity.INFO
    workers = run + "DataLoader(dataset, num_workers=8)\n"
    assert findings(matrix, workers)["SC501"] is Severity.WARNING


def test_a_compose_gpu_reservation_under_podman_compose(matrix: Matrix) -> None:
    """containers/podman-compose#919 (the corpus' 1179): before 1.2.0 podman-compose ignored
    deploy.resources.reservations.devices; 1.2.0 passes it as CDI devices."""
    assert loud(matrix, body("1179")) == {"SC531": Severity.WARNING}
    compose = body("1179").split("```yaml\n")[1].split("```")[0]
    # The same file with Docker Compose (no podman-compose named): a proper request.
    assert "SC531" not in findings(matrix, compose)
    # A podman-compose that translates reservations (its version line, 1.2.0 written by hand).
    assert "SC531" not in findings(matrix, "podman-compose version: 1.2.0\n" + compose)
    old = findings(matrix, "podman-compose version: 1.0.6\n" + compose)
    assert old["SC531"] is Severity.WARNING
    # podman-compose named beside a service that asks for no GPU through a reservation.
    plain = "I use podman-compose.\nservices:\n  web:\n    image: nginx:1.25\n"
    assert "SC531" not in findings(matrix, plain)


def test_driver_capabilities_without_visible_devices(matrix: Matrix) -> None:
    """NVIDIA/nvidia-docker#766 (the corpus' 1180): NVIDIA_DRIVER_CAPABILITIES alone, to an image
    not built from nvidia/cuda, mounts nothing; FFmpeg then cannot load libnvcuvid."""
    assert loud(matrix, body("1180")) == {"SC531": Severity.WARNING}
    text = (
        "docker run --runtime=nvidia -e NVIDIA_DRIVER_CAPABILITIES=compute,utility,video "
        "emby/embyserver:latest\n[h264_cuvid @ 0x1ec8780] Cannot load libnvcuvid.so.1\n"
    )
    # The legacy runtime flag names no device list either (nvidia-docker2's wrapper adds only it).
    assert loud(matrix, text) == {"SC531": Severity.WARNING}
    asked = text.replace("--runtime=nvidia", "--gpus all")
    assert "SC531" not in findings(matrix, asked)
    visible = text.replace("-e NVIDIA", "-e NVIDIA_VISIBLE_DEVICES=all -e NVIDIA")
    assert "SC531" not in findings(matrix, visible)
    # The capabilities without any failure: nothing to say.
    assert "SC531" not in findings(matrix, "NVIDIA_DRIVER_CAPABILITIES=compute,utility\n")


def test_a_driver_stated_beside_a_suggestion_in_another_sentence(matrix: Matrix) -> None:
    """NVIDIA/cutlass's thread (the corpus' 1155): the driver is stated in one sentence, a wish
    to update the docs' minimum follows in the next; the suggestion is the next sentence's."""
    line = body("1155").splitlines()[3]
    assert drivers(line) == ["535.183.01"]
    # In one sentence with the suggestion, it stays unread ("needs driver 535.183.01 or later").
    assert drivers("It needs driver 535.183.01 or later, so please update.") == []


def drivers(text: str) -> list[str]:
    snapshot = read_report(text + "\n", "pasted").snapshot
    return [i.version for i in snapshot.installations(ComponentName.DRIVER)]


def test_a_manifest_field_the_schema_lacks_is_recognised_and_not_a_finding(
    matrix: Matrix,
) -> None:
    """awslabs/awsome-distributed-ai#455 (the corpus' 1123): the API server's strict decoding
    refused an MPIJob field; the manifest's fault, read so the report is recognised."""
    snapshot = read_report(body("1123"), "pasted").snapshot
    assert [o.value for o in snapshot.observations("program-fault")] == [
        "manifest field spec.mpiReplicaSpecs.Launcher.template.spec.imagePullPolicy unknown"
    ]
    assert findings(matrix, body("1123")) == {}


def test_gpu_feature_discovery_labels_state_the_nodes_driver() -> None:
    """NVIDIA/gpu-operator#1043 (the corpus' 1183): `kubectl describe node` labels of two nodes,
    double-spaced. Each node's labels name its driver and that driver's CUDA; the two nodes
    differ (550.54.15, 560.35.03), so no one driver is recorded, but the text is read."""
    text = body("1183")
    report = read_report(text, "pasted")
    assert report.recognised
    assert report.snapshot.installations(ComponentName.DRIVER) == []
    # The first node's labels alone (the text up to the second node's driver labels).
    first = text[: text.index("nvidia.com/cuda.driver-version.full=560")]
    (driver,) = read_report(first, "pasted").snapshot.installations(ComponentName.DRIVER)
    assert (driver.version, driver.cuda) == ("550.54.15", "12.4")
    # Labels set by hand (`kubectl label node`) are no node's state.
    hand = (
        "kubectl label node n1 nvidia.com/cuda.driver.major=535 nvidia.com/cuda.driver.minor=85\n"
    )
    assert read_report(hand, "pasted").snapshot.installations(ComponentName.DRIVER) == []


def test_the_select_device_banner_states_torch_and_the_gpus_it_saw() -> None:
    """ultralytics/ultralytics#1238 (the corpus' 1187): select_device's banner. Its shape is
    ultralytics' utils/torch_utils.py: `CUDA:{d} ({name}, {MiB}MiB)`, a further GPU on its own
    line indented under the first, `CPU` where none was used (the second GPU and the CPU form
    written by hand from that code)."""
    banner = next(x for x in body("1187").splitlines() if x.startswith("Ultralytics"))
    snapshot = read_report(banner + "\n", "pasted").snapshot
    (torch,) = snapshot.installations(ComponentName.TORCH)
    assert torch.version == "1.13.0"
    assert [(g.name, g.memory_mib) for g in snapshot.gpus.devices] == [
        ("Tesla V100-SXM2-16GB", 16160)
    ]
    assert snapshot.observations("cuda-available")
    two = banner + "\n" + " " * 52 + "CUDA:1 (Tesla V100-SXM2-16GB, 16160MiB)\n"
    assert len(read_report(two, "pasted").snapshot.gpus.devices) == 2
    cpu = banner.split("CUDA:0")[0] + "CPU\n"
    snapshot = read_report(cpu, "pasted").snapshot
    assert [t.version for t in snapshot.installations(ComponentName.TORCH)] == ["1.13.0"]
    assert not snapshot.gpus.devices and not snapshot.observations("cuda-available")


def test_lightning_names_the_gpus_it_set_a_process_up_on(matrix: Matrix) -> None:
    """Lightning-AI/pytorch-lightning#16102 (the corpus' 676): `LOCAL_RANK: 0 -
    CUDA_VISIBLE_DEVICES: [0]` on a one-GPU machine: CUDA was there, nothing is hidden."""
    snapshot = read_report(body("676"), "pasted").snapshot
    assert [o.value for o in snapshot.observations("cuda-available")] == [
        "Lightning: CUDA_VISIBLE_DEVICES [0]"
    ]
    assert findings(matrix, body("676")) == {}
    # An empty list is no GPU seen: not read as CUDA available.
    empty = "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: []\n"
    assert not read_report(empty, "pasted").snapshot.observations("cuda-available")


# docker/compose#6539's warning (docker-compose 1.22, a `deploy` for replicas) and
# docker/compose#8142's refusal (docker-compose 1.17.1).
_DEPLOY_IGNORED = (
    "WARNING: Some services (hello) use the 'deploy' key, which will be ignored. Compose does "
    "not support 'deploy' configuration - use `docker stack deploy` to deploy to a swarm.\n"
)
_DEVICES_REFUSED = (
    "ERROR: The Compose file './docker-compose.yml' is invalid because:\n"
    "services.testserver.deploy.resources.reservations value Additional properties are not "
    "allowed ('devices' was unexpected)\n"
)


def test_a_compose_that_ignores_or_refuses_gpu_reservations(matrix: Matrix) -> None:
    compose = body("1179").split("```yaml\n")[1].split("```")[0]
    # The warning beside a GPU reservation: the reservation is dropped.
    found = findings(matrix, compose + _DEPLOY_IGNORED)
    assert found["SC531"] is Severity.WARNING
    # The warning alone (a `deploy` for replicas, as in docker/compose#6539): nothing.
    assert findings(matrix, _DEPLOY_IGNORED) == {}
    # Compose before 1.28 refusing `devices`: the GPU request is missing.
    assert loud(matrix, _DEVICES_REFUSED) == {"SC531": Severity.WARNING}


def test_a_pod_no_node_can_take_is_advice(matrix: Matrix) -> None:
    """NVIDIA/k8s-device-plugin#165 (the corpus' 664): `Insufficient nvidia.com/gpu` is the
    scheduler's, most often the request's or the cluster's fault: advice, not an error."""
    assert findings(matrix, body("664")) == {"SC1408": Severity.INFO}
    mig = "0/1 nodes are available: 1 Insufficient nvidia.com/mig-1g.5gb.\n"
    snapshot = read_report(mig, "pasted").snapshot
    assert [o.value for o in snapshot.observations("gpu-unschedulable")] == [
        "nvidia.com/mig-1g.5gb"
    ]


def test_lightnings_banner_says_cuda_was_available() -> None:
    """open-edge-platform/anomalib#232: `GPU available: True, used: False` (Lightning 1.6);
    `False` is not read (Ray's workers print it before their GPUs are set up)."""
    said = "GPU available: True, used: False\nTPU available: False, using: 0 TPU cores\n"
    snapshot = read_report(said, "pasted").snapshot
    assert [o.value for o in snapshot.observations("cuda-available")] == [
        "GPU available: True, used: False"
    ]
    newer = "GPU available: True (cuda), used: True\n"
    assert read_report(newer, "pasted").snapshot.observations("cuda-available")
    for unsaid in (
        "GPU available: False, used: False\n",
        "GPU available: True (mps), used: True\n",
    ):
        assert not read_report(unsaid, "pasted").snapshot.observations("cuda-available")


def test_a_gpu_request_named_as_the_fix_in_a_sentence(matrix: Matrix) -> None:
    """Sentences that name the missing GPU request as the fix (written in the shapes the
    corpus' reporters use: 'forgot to add --gpus', 'adding ... fixed it'), including one that
    names `docker run` without giving any of it; a request named as present is not."""
    for said in (
        "I forgot to add --gpus all to docker run, now it works.",
        "Adding runtimeClassName: nvidia to the pod spec fixed it.",
        "I added NVIDIA_VISIBLE_DEVICES=all and now it works.",
    ):
        assert loud(matrix, said + "\n") == {"SC531": Severity.WARNING}, said
    for unsaid in (
        "Setting runtimeClassName: nvidia is required by our cluster and works fine.",
        "Adding NVIDIA_VISIBLE_DEVICES=all did not help.",
        "I am adding --gpus all to the command.",
    ):
        assert "SC531" not in findings(matrix, unsaid + "\n"), unsaid


def test_the_hosts_visible_devices_passed_into_a_container_chosen_by_them(
    matrix: Matrix,
) -> None:
    """devitocodes/devito's CI (the corpus' 790): `--gpus "device=${CUDA_VISIBLE_DEVICES:-all}"`
    with `--env CUDA_VISIBLE_DEVICES`; the two fragments of its PR title joined by hand into one
    command (image and command added by hand)."""
    fragments = body("790").splitlines()[0]
    assert '`--gpus "device=${CUDA_VISIBLE_DEVICES:-all}"`' in fragments
    assert "`--env CUDA_VISIBLE_DEVICES`" in fragments
    run = (
        'docker run --rm --gpus "device=${CUDA_VISIBLE_DEVICES:-all}" --env '
        "CUDA_VISIBLE_DEVICES devitocodes/devito:gpu-latest pytest tests/\n"
    )
    assert loud(matrix, run) == {"SC1323": Severity.WARNING}
    # The fix of that PR: the --env dropped.
    fixed = run.replace("--env CUDA_VISIBLE_DEVICES ", "")
    assert "SC1323" not in findings(matrix, fixed)
    # Passed as `-e CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES`: the same.
    spelled = run.replace(
        "--env CUDA_VISIBLE_DEVICES", "-e CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"
    )
    assert loud(matrix, spelled) == {"SC1323": Severity.WARNING}
