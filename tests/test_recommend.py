"""Recommendations: which DLAMI, DLC image and NGC image fit, in what order, and why."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date

from stackcheck.check.engine import check
from stackcheck.check.model import Recommendation
from stackcheck.formats.text import TextFormat
from stackcheck.matrix import Matrix, MatrixIndex
from stackcheck.probes import probe_root
from stackcheck.recommend import Advice, Target, recommend_for, with_overrides
from stackcheck.recommend.dlami import dlami_recommendation, rank_dlamis
from stackcheck.versions import key as version_key
from stackcheck.versions import release as version_release
from tests.conftest import Outcome
from tests.support import scenarios
from tests.support.recorded import PROC_VERSION_535, h100_gpus
from tests.support.rootfs import Root

TODAY = date(2026, 12, 2)


def advice(
    matrix: Matrix,
    today: date = TODAY,
    limit: int = 20,
    keep_driver: bool = False,
    **options: str,
) -> Advice:
    index = MatrixIndex(matrix)
    target = with_overrides(Target(), index, **options)
    return recommend_for(target, index, today, limit, keep_driver=keep_driver)


def ranked(
    matrix: Matrix, today: date = TODAY, limit: int = 20, **options: str
) -> dict[str, list[Recommendation]]:
    return advice(matrix, today, limit, **options).found


def test_driver_535_on_p5_gets_a_newer_dlami(matrix: Matrix) -> None:
    found = ranked(matrix, instance="p5.48xlarge", driver="535.161.07")
    top = found["dlami"][0]
    assert top.changes[0].startswith("driver 535.161.07 -> 5")
    assert all("p5" in d.reason for d in found["dlami"])
    assert "x86_64" in top.reason


def test_keep_driver_ranks_images_for_the_current_driver(matrix: Matrix) -> None:
    kept = advice(matrix, instance="p5.48xlarge", driver="535.161.07", keep_driver=True)
    assert kept["dlami"] == []  # an AMI would change the driver the images are ranked for
    assert kept.basis.driver == "535.161.07" and "kept" in kept.basis.origin
    dlc = kept["dlc"]
    assert dlc, "CUDA 12 images run on R535 through minor-version compatibility"
    assert all("cu13" not in r.name for r in dlc)  # CUDA 13 needs R580
    assert any("minor-version compatibility" in c for r in dlc for c in r.cautions)


def test_images_the_driver_cannot_run_say_which_dlami_brings_one(matrix: Matrix) -> None:
    """A g4dn (T4) on an R418 driver (CUDA 10.1) runs no image in the matrix: the best images are
    offered with the driver they need and the top DLAMI that brings it."""
    kept = advice(matrix, instance="g4dn.12xlarge", driver="418.226.00", keep_driver=True)
    image = kept["dlc"][0]
    assert image.changes[0].startswith("driver 418.226.00 -> >= ")
    assert "needs driver >= " in image.reason
    # Without --keep-driver the DLAMI brings a driver, and the images are ranked for it.
    found = advice(matrix, instance="g4dn.12xlarge", driver="418.226.00")
    dlami = found["dlami"][0]
    assert found.basis.driver == dlami.stack["driver"]
    assert "runs natively on driver" in found["dlc"][0].reason
    assert not any("needs driver" in r.reason for r in found["dlc"])
    assert all(f"DLAMI {dlami.name}" in r.reason for r in found["dlc"])


def test_graviton_gb200_gets_arm64_amis_and_no_x86_only_image(matrix: Matrix) -> None:
    found = ranked(matrix, instance="p6e-gb200.36xlarge")
    assert found["dlami"] and all("aarch64" in d.reason for d in found["dlami"])
    assert found["dlc"] == []  # the DLC table holds x86_64 images only
    assert found["ngc"], "NGC images are multi-arch"


def test_volta_excludes_cuda_13_images_and_unlisted_amis(matrix: Matrix) -> None:
    found = ranked(matrix, gpu="V100")
    assert found["dlami"] == []  # no DLAMI lists an instance with V100 (p3)
    for image in [*found["dlc"], *found["ngc"]]:
        assert "cu13" not in image.name and "CUDA 13" not in image.reason, image.name
    # PyTorch 2.11's cu128 wheel dropped sm_70; 2.8's cu129 wheel kept it.
    assert not any("2.11" in r.name for r in found["dlc"])
    assert any("2.8.0-gpu" in r.name for r in found["dlc"])


def test_asked_for_pytorch_release_comes_first(matrix: Matrix) -> None:
    found = ranked(matrix, gpu="H100", torch="2.5", today=date(2025, 12, 1))
    assert "pytorch-training:2.5.1-" in found["dlc"][0].name
    assert "no DLC image" not in found["dlc"][0].reason
    assert "no NGC image in the matrix that fits has PyTorch 2.5" in found["ngc"][0].reason


def test_images_past_end_of_patch_rank_below_patched_ones(matrix: Matrix) -> None:
    options = {"instance": "p5.48xlarge", "driver": "575.57.08", "torch": "2.8"}
    before = advice(matrix, today=date(2026, 6, 1), keep_driver=True, **options)
    after = advice(matrix, today=date(2026, 9, 1), keep_driver=True, **options)
    assert "2.8.0-gpu" in before["dlc"][0].name
    assert not any("past end of patch" in c for c in before["dlc"][0].cautions)
    # On R575 no patched image runs (PyTorch 2.9's is CUDA 13, R580): 2.8's, said so.
    assert "2.8.0-gpu" in after["dlc"][0].name
    assert (
        "past end of patch (2026-08-06): offered because no patched image fits"
        in after["dlc"][0].cautions
    )
    # With the DLAMI's driver, patched images with a newer PyTorch run: those instead.
    moved = advice(matrix, today=date(2026, 9, 1), **options)
    assert all("2.8.0-gpu" not in r.name for r in moved["dlc"])
    assert "the DLC image with PyTorch 2.8 is past end of patch" in moved["dlc"][0].reason


def test_past_end_of_patch_only_when_nothing_else_fits(matrix: Matrix) -> None:
    """A V100 runs no CUDA 13 image: every image left is past its patches, and says so; an
    undated older line counts as ended when a newer line's patches have."""
    found = ranked(matrix, gpu="V100")
    assert found["dlc"]
    for image in found["dlc"]:
        assert any("past end of patch" in c for c in image.cautions), image.name


def test_report_ends_with_the_dlami_for_a_host(root: Root, matrix: Matrix) -> None:
    scenarios.broken_p5(root)
    report = check(probe_root(str(root.path)), matrix, today=TODAY)
    kinds = [r.kind for r in report.recommendations]
    assert kinds == ["dlami", "dlc", "ngc"]
    assert "driver 535.161.07 -> " in report.recommendations[0].changes[0]


def test_text_report_shows_the_top_recommendation_and_its_cautions(
    root: Root, matrix: Matrix
) -> None:
    scenarios.ngc_image(root)  # an image: the DLC comes first
    root.driver(PROC_VERSION_535, h100_gpus(1))
    snapshot = probe_root(str(root.path))
    snapshot.source.kind = "image"
    text = TextFormat().render(check(snapshot, matrix, today=TODAY))
    tail = text.split("Recommendation: ", 1)[1]
    assert tail.startswith("DLC 763104351884.dkr.ecr.<region>.amazonaws.com/")
    # One stack: the DLC is ranked for the driver of the DLAMI offered beside it, not for 535.
    assert "minor-version compatibility on driver 535.161.07" not in tail
    assert "  also: NGC " in tail and "  also: DLAMI " in tail


def test_report_ends_with_an_image_for_an_image(root: Root, matrix: Matrix) -> None:
    scenarios.ngc_image(root)
    snapshot = probe_root(str(root.path))
    snapshot.source.kind = "image"
    report = check(snapshot, matrix, today=TODAY)
    assert [r.kind for r in report.recommendations][:2] == ["dlc", "ngc"]


def test_p5_on_535_asking_for_pytorch_2_9_gets_one_stack(matrix: Matrix) -> None:
    """The case from issue 14: the DLAMI moves the driver to R595, so the images are ranked for
    that driver, run on it natively, and carry PyTorch 2.9 or newer (2.9's DLC is past patch)."""
    found = advice(matrix, limit=3, instance="p5.48xlarge", driver="535.161.07", torch="2.9")
    dlami = found["dlami"][0]
    driver = dlami.stack["driver"]
    assert found.basis.driver == driver and dlami.changes[0] == f"driver 535.161.07 -> {driver}"
    for kind in ("dlc", "ngc"):
        top = found[kind][0]
        assert version_key(top.stack["torch"]) >= version_key("2.9"), top.name
        assert f"runs natively on driver {driver}" in top.reason
        assert version_key(top.min_driver) <= version_key(driver)
        assert not any(c.startswith("driver ") for c in top.changes)  # the DLAMI changes it
    assert "past end of patch" in found["dlc"][0].reason  # PyTorch 2.9's own DLC image


def test_dlamis_with_a_known_issue_rank_below_clean_ones(matrix: Matrix) -> None:
    found = ranked(matrix, instance="p5.48xlarge")
    names = [d.name for d in found["dlami"]]
    flagged = [d.name for d in found["dlami"] if any("known issue" in c for c in d.cautions)]
    clean = [n for n in names if n not in flagged]
    assert clean and flagged
    assert max(names.index(n) for n in clean) < min(names.index(n) for n in flagged)


def test_volta_on_470_gets_the_driver_upgrade_not_an_older_pytorch(matrix: Matrix) -> None:
    found = ranked(matrix, instance="p3dn.24xlarge", driver="470.182.03", torch="2.5.1")
    top = found["dlc"][0]
    assert "2.5.1-gpu" in top.name  # not 2.0.1, which R470 runs
    assert top.changes[0].startswith("driver 470.182.03 -> >= ")
    assert "supported up to driver branch R580" in top.changes[0]


def test_every_dlami_says_how_to_get_it_without_wildcards(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    for dlami in matrix.dlami:
        command = dlami_recommendation(dlami, Target(), index, TODAY).get
        assert command is not None and "?" not in command
        if dlami.ssm_parameter:
            assert command.startswith(f"aws ssm get-parameter --name {dlami.ssm_parameter} ")
        else:
            assert command.startswith("aws ec2 describe-images --owners amazon --filters ")
            assert f"'Name=name,Values={dlami.name} {dlami.release}'" in command


def test_json_carries_each_stack_as_fields(cli: Callable[..., Outcome]) -> None:
    done = cli(
        "recommend", "--instance", "p5.48xlarge", "--driver", "535.161.07", "--torch", "2.9",
        "--format", "json",
    )  # fmt: skip
    assert done.code == 0, done.err
    document = json.loads(done.out)
    recs = document["recommendations"]
    dlami = recs["dlami"][0]
    assert set(dlami["stack"]) >= {"driver", "efa_installer", "ofi_nccl"}
    assert dlami["get"] and dlami["source"] and dlami["changes"]
    image = recs["dlc"][0]
    assert set(image["stack"]) >= {"torch", "cuda", "nccl"} and "driver" not in image["stack"]
    assert image["min_driver"] and isinstance(image["cautions"], list)
    assert document["images_for_driver"]["driver"] == dlami["stack"]["driver"]
    assert json.loads(cli("recommend", "--json", "--gpu", "H100").out)["recommendations"]


def test_text_keeps_commands_and_urls_whole(cli: Callable[..., Outcome]) -> None:
    """A command to copy is one line, and a source URL or path is never cut at a hyphen: each
    stands in the text exactly as in the JSON."""
    argv = ("recommend", "--instance", "p5.48xlarge", "--driver", "535.161.07")
    lines = [line.strip() for line in cli(*argv).out.splitlines()]
    recs = [r for found in json.loads(cli(*argv, "--format", "json").out)["recommendations"]
            .values() for r in found]  # fmt: skip
    shown = {line.split(None, 2)[-1] for line in lines if line.startswith(("get it", "source"))}
    wanted = {r["get"] for r in recs if r.get("get")} | {r["source"] for r in recs if r["source"]}
    assert wanted and wanted <= shown


def _no_contradiction(found: Advice, target: Target) -> None:
    dlamis = found["dlami"]
    if dlamis:
        assert found.basis.driver == dlamis[0].stack["driver"]
    wanted = target.torch_line
    for kind in ("dlc", "ngc"):
        recs = found[kind]
        beyond = target.driver_past_gpus(found.basis.driver)
        for rec in recs:
            cannot = "does not run on driver " in rec.reason
            needs = "needs driver >= " in rec.reason or cannot
            assert needs == any(c.startswith("driver ") for c in rec.changes), rec
            # A driver past the GPU's last branch (SC1406) runs no image: none says it runs.
            assert cannot or not beyond, rec
            if needs and not cannot:
                assert not dlamis, "the DLAMI's driver would have been the basis"
                floor = rec.reason.split("needs driver >= ", 1)[1].split(";")[0]
                assert version_key(floor) > version_key(found.basis.driver)
            elif found.basis.driver and rec.min_driver and "natively" in rec.reason:
                assert version_key(rec.min_driver) <= version_key(found.basis.driver)
            torch = rec.stack.get("torch")
            older_said = f"none has PyTorch {wanted} or newer" in rec.reason
            if wanted and torch and not older_said:
                assert version_key(version_release(torch, 2)) >= version_key(wanted), rec.name
            if wanted and f"has PyTorch {wanted}" in rec.reason and "no " in rec.reason:
                assert not any(version_release(r.stack.get("torch"), 2) == wanted for r in recs)


def test_no_recommendation_contradicts_another_over_many_targets(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    instances = sorted({i.type for i in matrix.instance if i.gpu})
    drivers = [None, "470.182.03", "535.161.07", "580.95.05", "590.44.01"]
    torches = [None, "2.5.1", "2.9"]
    checked = 0
    for instance in instances:
        for driver in drivers:
            for torch in torches:
                target = with_overrides(
                    Target(), index, instance=instance, driver=driver, torch=torch
                )
                for keep in (False, True):
                    _no_contradiction(recommend_for(target, index, TODAY, 3, keep), target)
                    checked += 1
    assert checked > 1000


def test_a_dlami_read_from_a_translated_page_says_so(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    for dlami in matrix.dlami:
        rec = dlami_recommendation(dlami, Target(), index, TODAY)
        translated = "amazonaws.cn/" in dlami.source or "/it_it/" in dlami.source
        said = any("translated copy" in c for c in rec.cautions)
        assert said == translated, dlami.source


def test_no_image_with_a_known_issue_ranks_above_one_without(matrix: Matrix) -> None:
    """A known bug of warning or error severity demotes; one resting on a fact the matrix marks
    unsure is shown as a caution, "(warning, unsure ...)", and not ranked on."""
    for instance in ("p5.48xlarge", "p4d.24xlarge", "g5.48xlarge"):
        for torch in ("2.5", "2.9", "2.11"):
            found = ranked(matrix, instance=instance, torch=torch)
            for kind in ("dlc", "ngc", "dlami"):
                severe = [
                    any(
                        c.startswith("known issue: ")
                        and ("(warning" in c or "(error" in c)
                        and "unsure" not in c
                        for c in r.cautions
                    )
                    for r in found[kind]
                ]
                runnable = ["needs driver" not in r.reason for r in found[kind]]
                for i in range(len(severe) - 1):
                    if runnable[i] == runnable[i + 1]:
                        assert not (severe[i] and not severe[i + 1]), (instance, torch, kind)


def test_a_driver_past_the_gpus_last_branch_runs_no_image(matrix: Matrix) -> None:
    """A V100 on driver 590 (its last branch is R580; SC1406 says so): with the driver kept, no
    image is said to run on it, and each names the driver to go back to."""
    kept = advice(matrix, gpu="V100", driver="590.44.01", keep_driver=True)
    images = kept["dlc"] + kept["ngc"]
    assert images
    for rec in images:
        assert "does not run on driver 590.44.01" in rec.reason, rec.reason
        assert "natively" not in rec.reason
        assert any("on branch R580 or older" in c for c in rec.changes), rec.changes
    on_580 = advice(matrix, gpu="V100", driver="580.95.05", keep_driver=True)
    assert not any("does not run" in r.reason for r in on_580["dlc"] + on_580["ngc"])


def test_a_stack_of_unknown_cpu_architecture_gets_an_x86_64_dlami(matrix: Matrix) -> None:
    """A package listing names a driver and nothing of the CPU: the release date of an ARM64
    Base DLAMI must not pick it over the x86_64 ones (every GPU family but g5g and Grace)."""
    ranked = rank_dlamis(Target(driver="535.104.05"), MatrixIndex(matrix))
    assert ranked and ranked[0].arch == "x86_64"
    assert (
        rank_dlamis(Target(driver="535.104.05", cpu_arch="aarch64"), MatrixIndex(matrix))[0].arch
        == "aarch64"
    )
