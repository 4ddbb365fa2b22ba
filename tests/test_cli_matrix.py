"""`stackcheck matrix` and `stackcheck recommend` as a user meets them, and the stale-matrix
warning on every command (clock set by monkeypatching stackcheck.clock.today)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

import pytest

from stackcheck import clock
from stackcheck.matrix import load_matrix
from stackcheck.matrix.freshness import MAX_AGE_DAYS
from tests.conftest import Outcome, run_stackcheck
from tests.support import scenarios
from tests.support.rootfs import Root

Cli = Callable[..., Outcome]


@pytest.fixture
def stale(monkeypatch: pytest.MonkeyPatch) -> date:
    """Today set to the day after the bundled matrix turns stale."""
    built = load_matrix().built
    assert built is not None
    today = built + timedelta(days=MAX_AGE_DAYS + 1)
    monkeypatch.setattr(clock, "today", lambda: today)
    return today


def test_matrix_summary_lists_every_table_and_its_age(cli: Cli) -> None:
    done = cli("matrix")
    assert done.code == 0 and done.err == ""
    assert "built 2026-12-03" in done.out
    for table in ("cuda_release", "nccl", "ofi_nccl", "efa_installer", "dlami", "dlc", "ngc"):
        assert f"  {table} " in done.out
    document = json.loads(cli("matrix", "--json").out)
    assert document["matrix"]["max_age_days"] == MAX_AGE_DAYS
    assert document["warnings"] == []
    nccl = next(t for t in document["tables"] if t["table"] == "nccl")
    assert nccl["entries"] >= 52 and nccl["first"] == "2.7.3"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (("cuda", "12.4"), "550.54.14"),
        (("gpu", "H100"), "p5.48xlarge"),
        (("torch", "2.5"), "pytorch-training:2.5.1-"),
        (("nccl", "2.21.5"), "loads ncclNet v5-v8"),
        (("ofi-nccl", "1.13.2"), "libfabric_min"),
        (("instance", "p5.48xlarge"), "H100: compute capability 9.0"),
        (("dlc", "2.6.0"), "end_of_patch"),
        (("efa", "1.38.1"), "[unsure]"),
        (("dlami", "20260102"), "580.105.08"),
        (("ngc", "25.01"), "12.8.0"),
        (("driver", "535.161.07"), "runs CUDA up to 12.2.2"),
    ],
)
def test_matrix_lookups_print_facts_with_sources(
    cli: Cli, arguments: tuple[str, ...], expected: str
) -> None:
    done = cli("matrix", *arguments)
    assert done.code == 0, done.err
    assert expected in done.out
    flat = " ".join(done.out.split())  # long sources wrap between "checked" and the date
    assert "source " in done.out and "checked 2026-12-02" in flat


def test_matrix_nccl_shows_the_issues_that_affect_it(cli: Cli) -> None:
    done = cli("matrix", "nccl", "2.19.3", "--json")
    answer = json.loads(done.out)
    assert answer["entries"][0]["net_api"] == 7 and answer["entries"][0]["net_api_min"] == 5
    labels = [r["label"] for r in answer["related"]]
    assert "known issue (warning)" in labels and "behaviour" in labels
    assert all(r["source"] for r in answer["related"] if r["label"] != "net plugins")


def test_matrix_table_lists_keys_with_unsure_marks(cli: Cli) -> None:
    done = cli("matrix", "ngc")
    assert "ngc 25.12-py3\n" in done.out and "ngc 25.10-py3 [unsure]\n" in done.out


def test_unknown_keys_and_tables_are_one_line_and_exit_2(cli: Cli) -> None:
    done = cli("matrix", "nccl", "2.99.1")
    assert done.code == 2 and done.out == ""
    assert done.err.count("\n") == 1 and "nccl '2.99.1' is not in the matrix" in done.err
    bad = cli("matrix", "nccls")
    assert bad.code == 2 and "invalid choice" in bad.err and bad.err.count("\n") == 1


def test_table_names_in_the_parser_match_the_lookups() -> None:
    from stackcheck.cli.matrix import TABLES
    from stackcheck.matrix.describe import COMMANDS

    assert TABLES == COMMANDS


def test_a_user_matrix_adds_facts_to_lookups_and_rules(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "nccl.toml").write_text(
        '[[nccl]]\nversion = "2.31.2"\nnet_api = 12\nnet_api_min = 6\n'
        'source = "https://github.com/NVIDIA/nccl/releases/tag/v2.31.2-1"\n'
        "checked = 2026-12-01\nunsure = true\n"
    )
    assert cli("matrix", "nccl", "2.31.2").code == 2
    done = cli("matrix", "nccl", "2.31.2", "--matrix-dir", str(tmp_path))
    assert done.code == 0 and "v2.31.2-1" in done.out and "[unsure]" in done.out
    summary = cli("matrix", "--matrix-dir", str(tmp_path))
    assert f"user matrix directories over it: {tmp_path}" in summary.out


def test_stale_matrix_warns_on_stderr_for_text_and_in_json(
    cli: Cli, root: Root, stale: date
) -> None:
    text = cli("matrix")
    assert text.err.startswith("stackcheck: warning: the compatibility matrix 2026.12.03")
    assert f"({MAX_AGE_DAYS + 1} days ago" in text.err
    document = json.loads(cli("matrix", "--json").out)
    assert document["matrix"]["stale"] is True
    assert [w["code"] for w in document["warnings"]] == ["matrix-stale"]
    scenarios.dlami_p5(root)
    checked = cli("check", "--root", str(root.path), "--format", "json")
    assert checked.err == ""
    assert [w["code"] for w in json.loads(checked.out)["warnings"]] == ["matrix-stale"]
    assert "matrix is" not in checked.out.split('"warnings"')[0]
    text_check = cli("check", "--root", str(root.path))
    assert "stackcheck: warning: the compatibility matrix" in text_check.err
    assert cli("recommend", "--gpu", "H100").err.startswith("stackcheck: warning:")


def test_a_fresh_matrix_does_not_warn(cli: Cli, root: Root) -> None:
    scenarios.dlami_p5(root)
    assert cli("check", "--root", str(root.path)).err == ""


def test_recommend_from_options(cli: Cli) -> None:
    done = cli("recommend", "--instance", "p5.48xlarge", "--driver", "535.161.07", "--limit", "1")
    assert done.code == 0, done.err
    assert done.out.startswith("Recommendations for p5.48xlarge, H100, x86_64, driver 535.161.07")
    assert "DLAMI\n  1. Deep Learning" in done.out
    assert "changes          driver 535.161.07 -> 5" in done.out
    assert "763104351884.dkr.ecr.<region>.amazonaws.com/pytorch" in done.out


def test_recommend_json_from_a_snapshot(cli: Cli, root: Root, tmp_path: Path) -> None:
    scenarios.broken_p5(root)
    snapshot = tmp_path / "s.json"
    snapshot.write_text(run_stackcheck("probe", "--root", str(root.path), "--json").out)
    done = cli("recommend", "--snapshot", str(snapshot), "--torch", "2.9", "--json")
    document = json.loads(done.out)
    assert document["target"]["instance_type"] == "p5.48xlarge"
    assert document["target"]["driver"] == "535.161.07"
    assert document["target"]["torch"] == "2.9"
    assert set(document["recommendations"]) == {"dlami", "dlc", "ngc"}
    dlc = document["recommendations"]["dlc"]
    assert dlc and set(dlc[0]) >= {"name", "reason", "changes", "cautions", "source", "unsure"}


def test_recommend_rejects_what_the_matrix_does_not_know(cli: Cli) -> None:
    for arguments, message in (
        (("--instance", "p9.96xlarge"), "instance type 'p9.96xlarge' is not in the matrix"),
        (("--gpu", "Voodoo3"), "GPU 'Voodoo3' is not in the matrix"),
        (("--driver", "latest"), "--driver 'latest' is not a version"),
    ):
        done = cli("recommend", *arguments)
        assert done.code == 2 and message in done.err and done.err.count("\n") == 1
