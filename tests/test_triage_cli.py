"""``stackcheck triage`` as a user meets it: files and stdin, formats, exit codes, bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Outcome, run_stackcheck
from tests.corpus import body

Cli = Callable[..., Outcome]


def write(tmp_path: Path, key: str) -> str:
    path = tmp_path / f"{key}.txt"
    path.write_text(body(key))
    return str(path)


def test_a_broken_stack_exits_1_with_its_findings(cli: Cli, tmp_path: Path) -> None:
    done = cli("triage", write(tmp_path, "006"))
    assert done.code == 1, done.err
    assert "SC101" in done.out and "418.67" in done.out
    assert "Stack of text" in done.out


def test_a_healthy_stack_exits_0(cli: Cli, tmp_path: Path) -> None:
    done = cli("triage", write(tmp_path, "015"))
    assert done.code == 0, done.out
    assert cli("triage", write(tmp_path, "046"), "--fail-on", "warning").code == 0


def test_fail_on_counts_warnings_when_asked(cli: Cli, tmp_path: Path) -> None:
    report = write(tmp_path, "037")  # NCCL_P2P_DISABLE=1: a warning
    assert cli("triage", report).code == 0
    assert cli("triage", report, "--fail-on", "warning").code == 1


def test_stdin_and_json_with_parsed_segments() -> None:
    done = run_stackcheck("triage", "-", "--format", "json", "--show-parsed", stdin=body("063"))
    assert done.code == 1, done.err
    document = json.loads(done.out)
    assert document["snapshot"]["source"] == {"kind": "text", "target": "stdin"}
    assert document["snapshot"]["partial"] is True
    assert [f["id"] for f in document["findings"]] == ["SC533"]
    [compose] = [p for p in document["parsed"] if p["format"] == "compose"]
    assert compose["lines"][0] >= 1 and compose["facts"]


def test_show_parsed_in_text(cli: Cli, tmp_path: Path) -> None:
    done = cli("triage", write(tmp_path, "022"), "--show-parsed")
    assert done.out.startswith("Parsed:")
    assert "NCCL_DEBUG=INFO log" in done.out
    assert "observed libfabric-provider: tcp" in done.out


def test_bad_input_exits_2_with_one_line(cli: Cli, tmp_path: Path) -> None:
    missing = cli("triage", str(tmp_path / "nope.txt"))
    binary = tmp_path / "core"
    binary.write_bytes(b"\x7fELF\x00\x00\x01")
    prose = tmp_path / "prose.txt"
    prose.write_text("My training job is slow. Any idea why?\n")
    for done in (
        missing,
        cli("triage", str(binary)),
        cli("triage", str(prose)),
        cli("triage", str(tmp_path)),
    ):
        assert done.code == 2
        assert done.err.count("\n") == 1 and done.err.startswith("stackcheck: error:")
    said = cli("triage", str(prose)).err
    assert "no tool output recognised; the text seems to be prose (1 lines)" in said
    assert "known error messages" in said and "nccl log" in said
    assert cli("triage").code == 2  # no FILE


def test_nothing_recognised_says_what_the_text_seemed_to_be(cli: Cli, tmp_path: Path) -> None:
    # A traceback of a program that printed no stack message (huggingface/transformers style).
    trace = tmp_path / "trace.txt"
    trace.write_text(
        "Traceback (most recent call last):\n"
        '  File "train.py", line 12, in <module>\n'
        "    main()\n"
        '  File "train.py", line 8, in main\n'
        '    raise ValueError("bad config")\n'
        "ValueError: bad config\n"
    )
    done = cli("triage", str(trace))
    assert done.code == 2 and "seems to be a Python traceback (6 lines)" in done.err


def test_a_recognised_part_never_makes_triage_exit_2(cli: Cli, tmp_path: Path) -> None:
    """Prose and an unknown traceback around one message still give a report (exit 0 or 1)."""
    mixed = tmp_path / "mixed.txt"
    mixed.write_text(
        "We cannot start training, see below.\n\n"
        "Traceback (most recent call last):\n"
        '  File "x.py", line 1, in <module>\n'
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
        "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n"
        "Any idea?\n"
    )
    done = cli("triage", str(mixed))
    # A warning (nothing in the text shows a GPU): exit 0 at the default --fail-on error.
    assert done.code == 0 and "SC532" in done.out


def test_explain_documents_the_new_rules(cli: Cli) -> None:
    done = cli("explain", "SC603")
    assert done.code == 0 and "NCCL_PROTO" in done.out
    assert "SC521" in cli("rules").out
