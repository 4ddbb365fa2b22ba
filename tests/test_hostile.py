"""The corpus of hostile and broken inputs (tests/support/hostile.py): each ends with its
expected result, exit 2 and one line naming the refused input, or a right answer; never a
traceback, never exit 1 for a crash. Time and memory per case: benchmarks/hostile_inputs.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import Outcome
from tests.support import hostile
from tests.support.elfbuild import ElfFactory

Cli = Callable[..., Outcome]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, elves: ElfFactory) -> Iterator[hostile.Corpus]:
    built = hostile.build(tmp_path_factory.mktemp("hostile"), elves)
    yield built
    built.cleanup()


def _names() -> list[str]:
    # The case names, known without building the corpus (pytest collects before fixtures run).
    return [
        "ldso-self-include-root", "ldso-self-include-image", "elf-rodata-2^62",
        "ld-library-path-entries", "ld-library-path-snapshot",
        "fifo-docker-archive", "fifo-snapshot", "fifo-baseline",
        "fifo-dockerfile", "fifo-triage", "fifo-config", "plan-max-gpus-1e9",
        "gzip-archive-4MiB-members",
        "nvidia-smi-floods", "pasted-env-dump", "huge-member-count", "gzip-then-junk",
        "pax-size-abc", "tree-1500-deep-image", "tree-1500-deep-root", "non-utf8-names-root",
        "non-utf8-names-image", "snapshot-deep", "baseline-deep", "snapshot-malformed",
        "baseline-malformed", "snapshot-not-utf8", "baseline-not-utf8", "snapshot-wrong-types",
        "baseline-wrong-types", "manifest-deep", "manifest-malformed", "manifest-wrong-types",
        "manifest-not-utf8", "oci-index-deep", "oci-index-wrong-types", "traversal", "absolute",
        "symlink-loop", "truncated-layer", "lying-size",
    ]  # fmt: skip


def test_the_corpus_lists_every_case(corpus: hostile.Corpus) -> None:
    assert sorted(c.name for c in corpus.cases) == sorted(_names())


@pytest.mark.parametrize("name", _names())
def test_hostile_input(
    name: str, corpus: hostile.Corpus, cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    [case] = [c for c in corpus.cases if c.name == name]
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    done = cli(*case.argv)
    assert "Traceback" not in done.err
    if case.expect == hostile.ERROR:
        assert done.code == 2, (done.code, done.err[-2000:])
        lines = done.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("stackcheck"), done.err[-2000:]
        assert " error: " in lines[0]
        assert case.fragment in lines[0]
    else:
        assert done.code in (0, 1), (done.code, done.err[-2000:])
        assert case.fragment in done.out
