"""Recommendations: which DLAMI, DLC image and NGC image fit, in what order, and why."""

from __future__ import annotations

from datetime import date

from stackcheck.check.engine import check
from stackcheck.check.model import Recommendation
from stackcheck.formats.text import TextFormat
from stackcheck.matrix import Matrix, MatrixIndex
from stackcheck.probes import probe_root
from stackcheck.recommend import Target, recommend_for, with_overrides
from tests.support import scenarios
from tests.support.recorded import PROC_VERSION_535, h100_gpus
from tests.support.rootfs import Root

TODAY = date(2026, 12, 2)


def ranked(
    matrix: Matrix, today: date = TODAY, limit: int = 20, **options: str
) -> dict[str, list[Recommendation]]:
    index = MatrixIndex(matrix)
    return recommend_for(with_overrides(Target(), index, **options), index, today, limit)


def test_driver_535_on_p5_gets_a_newer_dlami_and_cuda_12_images(matrix: Matrix) -> None:
    found = ranked(matrix, instance="p5.48xlarge", driver="535.161.07")
    top = found["dlami"][0]
    assert top.changes[0].startswith("driver 535.161.07 -> 5")
    assert all("p5" in d.reason for d in found["dlami"])
    assert "x86_64" in top.reason
    dlc = found["dlc"]
    assert dlc, "CUDA 12 images run on R535 through minor-version compatibility"
    assert all("cu13" not in r.name for r in dlc)  # CUDA 13 needs R580
    assert any("minor-version compatibility" in c for r in dlc for c in r.cautions)


def test_images_the_driver_cannot_run_say_which_dlami_brings_one(matrix: Matrix) -> None:
    """A g4dn (T4) on an R418 driver (CUDA 10.1) runs no image in the matrix: the best images are
    offered with the driver they need and the top DLAMI that brings it."""
    found = ranked(matrix, instance="g4dn.12xlarge", driver="418.226.00")
    dlami = found["dlami"][0]
    image = found["dlc"][0]
    assert image.changes[0].startswith("driver 418.226.00 -> >= ")
    assert "needs driver >= " in image.reason
    assert f"DLAMI {dlami.name}" in image.changes[0]


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
    found = ranked(matrix, gpu="H100", torch="2.5")
    assert "pytorch-training:2.5.1-" in found["dlc"][0].name
    assert "no DLC image" not in found["dlc"][0].reason
    assert "no NGC image in the matrix has PyTorch 2.5" in found["ngc"][0].reason


def test_images_past_end_of_patch_rank_below_patched_ones(matrix: Matrix) -> None:
    before = ranked(matrix, instance="p5.48xlarge", driver="575.57.08", today=date(2026, 6, 1))
    after = ranked(matrix, instance="p5.48xlarge", driver="575.57.08", today=date(2026, 9, 1))
    assert "2.8.0-gpu" in before["dlc"][0].name and before["dlc"][0].cautions == []
    caution = next(r for r in after["dlc"] if "2.8.0-gpu" in r.name).cautions
    assert "past end of patch (2026-08-06)" in caution


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
    assert "caution: runs through CUDA minor-version compatibility on driver 535.161.07" in tail
    assert "  also: NGC " in tail and "  also: DLAMI " in tail


def test_report_ends_with_an_image_for_an_image(root: Root, matrix: Matrix) -> None:
    scenarios.ngc_image(root)
    snapshot = probe_root(str(root.path))
    snapshot.source.kind = "image"
    report = check(snapshot, matrix, today=TODAY)
    assert [r.kind for r in report.recommendations][:2] == ["dlc", "ngc"]
