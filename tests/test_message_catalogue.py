"""The message catalogue (stackcheck/ingest/messages.toml): every signature is tested with the
real line it was written from, copied from the public thread its entry names."""

from __future__ import annotations

import re
import sys

import pytest

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.errors import StackcheckError
from stackcheck.ingest import read_report, signatures
from stackcheck.ingest.facts import ComponentFact, GpuFact, ObservationFact, RuntimeFact
from stackcheck.ingest.hardware import GpuHealthFact, XidFact
from stackcheck.ingest.lines import split_lines
from tests.corpus import ALL_REPORTS, _matrix, names_elided_directory

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CATALOGUE = signatures.catalogue()
URL = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+$")


def test_the_catalogue_is_large_and_well_formed() -> None:
    assert len(CATALOGUE) >= 60
    assert len({s.id for s in CATALOGUE}) == len(CATALOGUE)
    for signature in CATALOGUE:
        assert signature.source and signature.meaning and signature.facts, signature.id
        assert URL.match(signature.example_url), signature.id
        assert not names_elided_directory(signature.example), signature.id  # elided (header)
        # A message with no literal word to screen lines by runs on every line of every log
        # (one such entry cost a 5 MB NCCL log 0.4 s).
        assert signature.needles, signature.id


@pytest.mark.parametrize("signature", CATALOGUE, ids=[s.id for s in CATALOGUE])
def test_each_signature_reads_its_real_example(signature: signatures.Signature) -> None:
    """The example goes through the same cleaning as pasted text (prompts, backticks off; a
    Markdown table's row read cell by cell under its column's name)."""
    lines = split_lines(signature.example)
    found = {s.id: facts for line in lines for s, facts in signatures.matches(line)}
    assert signature.id in found, [line.text for line in lines]
    facts = found[signature.id]
    assert len(facts) == len(signature.facts)
    for spec, fact in zip(signature.facts, facts, strict=True):
        if spec["kind"] == "observation":
            assert isinstance(fact, ObservationFact) and fact.kind == spec["observe"]
        elif spec["kind"] == "gpu":
            assert isinstance(fact, GpuFact) and fact.compute_capability
        elif spec["kind"] == "xid":
            assert isinstance(fact, XidFact) and fact.code > 0
        elif spec["kind"] in ("mig-mode", "persistence-mode"):
            assert isinstance(fact, GpuHealthFact) and fact.health.bus_id
            assert (fact.health.mig_mode, fact.health.persistence_mode) != (None, None)
        elif spec["kind"] in ("peermem", "memlock-kb", "memlock-bytes", "shm-gib"):
            assert isinstance(fact, RuntimeFact)
        elif spec["kind"] == "nccl-loaded":
            assert isinstance(fact, ObservationFact) and re.match(
                r"^\d+\.\d+\.\d+$", fact.value or ""
            )
        elif spec["kind"] != "instance":
            assert isinstance(fact, ComponentFact)


def test_values_read_from_examples() -> None:
    def read(signature_id: str) -> list[str]:
        signature = next(s for s in CATALOGUE if s.id == signature_id)
        line = split_lines(signature.example)[0]
        return [fact.describe() for fact in signature.facts_for(line, signature.match(line.text))]  # type: ignore[arg-type]

    assert read("torch-driver-too-old")[1] == "NVIDIA driver (version not stated) CUDA 11.6"
    assert (
        read("torch-gpu-not-compatible")[0] == "GPU: GeForce RTX 5090 D (compute capability 12.0)"
    )
    assert read("fabricmanager-driver-mismatch") == [
        "observed fabric-manager-mismatch: 525.85.12 vs 530.41.03"
    ]
    assert read("torch-cudnn-incompatible")[0].endswith("compiled against 8.3.2, loaded 8.0.3")
    assert read("ucx-memlock-limit")[1] == f"runtime memlock_bytes = {64 * 1024}"
    assert read("deepspeed-cuda-mismatch")[0].startswith("CUDA toolkit 12.2")
    assert read("vllm-using-nccl") == ["observed nccl-loaded: 2.21.5"]
    assert read("torch-cudnn-mismatch-int") == [
        "observed cudnn-mismatch: compiled against 7102, loaded 7605"
    ]
    assert read("nvml-gpu-is-lost") == ["Xid 79 on 0000:02:00.0"]
    assert read("xid-stated") == ["Xid 48 on a GPU"]
    assert read("cuda-803-driver-mismatch")[0].startswith(
        "observed driver-library-mismatch: CUDA error 803"
    )


def test_plugin_messages_tell_missing_from_broken() -> None:
    missing = split_lines(
        "NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: "
        "cannot open shared object file: No such file or directory"
    )[0]
    kinds = {f.kind for f in signatures.line_facts(missing) if isinstance(f, ObservationFact)}
    assert kinds == {"net-plugin-missing"}
    ordinary = split_lines(
        "ImportError: libcudart.so.8.0: cannot open shared object file: No such file or directory"
    )[0]
    assert [f.describe() for f in signatures.line_facts(ordinary)] == [
        "observed library-missing: libcudart.so.8.0"
    ]


def test_a_suggested_requirement_in_prose_is_still_the_tools_verdict() -> None:
    """nvidia-container-cli's requirement is the image's, stated by the tool, not advice."""
    line = split_lines(
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update "
        "your driver to a newer version, or use an earlier cuda container: unknown"
    )[0]
    assert [f.describe() for f in signatures.line_facts(line)] == [
        "observed driver-insufficient: the image needs CUDA >= 12.8"
    ]


def test_a_group_that_ignores_case_gives_no_exact_case_screen_word() -> None:
    """``(?i:BarBaz)`` matches "barbaz": its words must not screen the line out."""
    assert "BarBaz" not in signatures.needles_of(r"foo (?i:BarBaz)")
    assert signatures.needles_of(r"NCCL WARN (?i:net)") == ("NCCL WARN ",)


def test_a_message_is_compiled_only_when_a_line_holds_one_of_its_words() -> None:
    """Reading the catalogue compiles nothing; a text compiles only the messages its lines give
    occasion to (a 5 MB NCCL log, most of the catalogue never)."""
    data = tomllib.loads(signatures.CATALOGUE.read_text(encoding="utf-8"))
    fresh = [signatures._signature(entry) for entry in data["message"]]
    assert not any("pattern" in vars(s) for s in fresh)
    text = "NCCL WARN NET/Plugin : Plugin load failed"
    screened = [s for s in fresh if s.could_match(text, text.lower())]
    for signature in screened:
        signature.match(text)
    compiled = {s.id for s in fresh if "pattern" in vars(s)}
    assert compiled == {s.id for s in screened}
    assert len(compiled) < len(fresh)


def test_the_indexed_screen_keeps_every_message_a_needle_admits() -> None:
    """The screen looks needles up by their first characters; it must admit exactly the messages
    one of whose needles the line holds (as written, or lowered for case-blind ones), on the
    catalogue's example lines and the corpus's lines (a fixed third of the distinct ones)."""
    screen = signatures._screen()
    plain = [(s, signatures._screened_needles(s.needles)) for s in signatures.catalogue()]
    texts = [s.example for s in signatures.catalogue()] + [r.body for r in ALL_REPORTS]
    keys = {line.text.translate(signatures._DIGITS) for t in texts for line in split_lines(t)}
    for key in sorted(keys)[::3]:  # a third of the corpus's distinct lines, the same each run
        lowered = key.lower()
        wanted = tuple(
            s
            for s, needles in plain
            if not needles or any(n in (lowered if s.blind else key) for n in needles)
        )
        assert screen.candidates(key) == wanted, key


def test_a_message_without_a_screen_word_is_refused_at_load() -> None:
    """Two-character alternatives leave no literal word of three characters every match holds."""
    entry = {
        "id": "no-word",
        "source": "s",
        "meaning": "m",
        "pattern": "(?:多个|两个)进",
        "facts": [{"kind": "observation", "observe": "ranks-share-gpu", "value": "{0}"}],
        "example": "多个进",
        "example_url": "https://github.com/o/r/issues/1",
    }
    with pytest.raises(StackcheckError, match="no-word"):
        signatures._signature(entry)


def test_shared_exclusions_are_named_and_joined_with_the_entrys_own() -> None:
    """`excludes_kind` names an exclusion of the catalogue's `[exclusions]` table; the entry's
    own `excludes` adds to it, and an unknown name is refused when the catalogue is read."""
    data = tomllib.loads(signatures.CATALOGUE.read_text(encoding="utf-8"))
    shared = data["exclusions"]
    named = {e["excludes_kind"] for e in data["message"] if "excludes_kind" in e}
    assert named == set(shared)  # each one defined is used, each one used is defined
    persistence = next(s for s in CATALOGUE if s.id == "persistence-off-stated")
    assert persistence.excludes is not None
    for said in ("Is persistence mode off?", "Unless persistence mode is disabled", "on GPU 0000:"):
        assert persistence.excludes.search(said), said
    assert not persistence.excludes.search("persistence mode is off on all GPUs.")
    entry = {**data["message"][0], "excludes_kind": "no-such-exclusion"}
    with pytest.raises(StackcheckError, match="no-such-exclusion"):
        signatures._signature(entry)


def test_open_mpi_launcher_lines_are_read_and_name_no_layer() -> None:
    """mpirun's own verdicts (daemons not started, a rank ended by a signal) are recognised
    and state which rank and signal, in every launcher's name and inside its dashed box, but
    name no layer of the stack: the cause is in the rank's output, not in these lines."""
    text = (
        "--------------------------------------------------------------------------\n"
        "ORTE was unable to reliably start one or more daemons.\n"
        "This usually is caused by:\n"
        "--------------------------------------------------------------------------\n"
        "prterun noticed that process rank 48 with PID 613162 on node gpu-node07 exited on "
        "signal 11 (Segmentation fault).\n"
        "    mpirun noticed that process rank 0 with PID 0 on node n1 exited on signal 9 "
        "(Killed).\n"
    )
    triage = read_report(text, "pasted")
    seen = {
        kind: [o.value for o in triage.snapshot.observations(kind)]
        for kind in ("mpi-launch-failed", "mpi-rank-signalled")
    }
    assert seen["mpi-launch-failed"] == ["ORTE was unable to reliably start one or more daemons"]
    assert seen["mpi-rank-signalled"] == [
        "rank 48 on gpu-node07: signal 11 (Segmentation fault)",
        "rank 0 on n1: signal 9 (Killed)",
    ]
    assert triage.recognised
    findings = check(triage.snapshot, _matrix()).findings
    assert not [f for f in findings if f.severity is not Severity.INFO]
