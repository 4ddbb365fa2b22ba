"""Every reader of outside input under a seeded fuzzer (tests/support/fuzz.py): a short run here
(the whole file stays well under 30 s on 2 cores), >= 10,000 inputs a target in
benchmarks/fuzz_all.py. A target ends only with the errors it documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from stackcheck.matrix import Matrix
from tests.support import fuzz
from tests.support.elfbuild import ElfFactory

SEED = 19
# Inputs a target here; the heavy ones (a whole check per input) fewer.
COUNTS = {"snapshot": 500, "config": 500, "image-json": 600, "tar": 1000, "elf": 1000}
DEFAULT_COUNT = 300


@pytest.fixture(scope="module")
def targets(
    tmp_path_factory: pytest.TempPathFactory, elves: ElfFactory, matrix: Matrix
) -> dict[str, fuzz.Target]:
    built = fuzz.all_targets(tmp_path_factory.mktemp("fuzz"), elves, matrix)
    return {t.name: t for t in built}


def test_every_reader_has_a_target(targets: dict[str, fuzz.Target]) -> None:
    expected = {"snapshot", "config", "ld.so.conf", "elf", "tar", "image-json", "triage"}
    assert expected <= set(targets)
    assert sum(1 for name in targets if name.startswith("triage:")) >= 25
    assert {"triage:nvidia_smi_topo", "triage:lspci", "triage:fi_info_verbose"} <= set(targets)


def test_fuzz_targets(targets: dict[str, fuzz.Target]) -> None:
    failures = {}
    for name, target in targets.items():
        result = target.fuzz(COUNTS.get(name, DEFAULT_COUNT), SEED)
        assert result.inputs == COUNTS.get(name, DEFAULT_COUNT)
        if result.uncaught:
            failures[name] = result.examples
    assert not failures, failures


def test_the_mutators_reach_hostile_shapes() -> None:
    import random

    rng = random.Random(SEED)
    mutated = [fuzz.mutate_bytes(rng, b'{"a": [1, 2, "x"]}') for _ in range(300)]
    assert any(b"[" * 100 in m for m in mutated)  # deep nesting
    assert any(b"\xff" in m for m in mutated)  # not UTF-8
    assert any(len(m) < 5 for m in mutated)  # cut short
    documents = [fuzz.mutate_json(rng, {"a": {"b": ["x"]}}) for _ in range(300)]
    assert any(not isinstance(d, dict) for d in documents)  # the top replaced
    assert any(isinstance(d, dict) and "a" not in d for d in documents)  # a key removed


def test_fuzz_results_are_reproducible(targets: dict[str, fuzz.Target], tmp_path: Path) -> None:
    first = targets["ld.so.conf"].fuzz(30, SEED)
    again = targets["ld.so.conf"].fuzz(30, SEED)
    assert (first.inputs, first.refused, first.uncaught) == (
        again.inputs,
        again.refused,
        again.uncaught,
    )
