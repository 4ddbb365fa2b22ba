"""The bundled matrix: valid, sourced, dated, unique, and consistent across its tables."""

from __future__ import annotations

import sys
from datetime import date, timedelta
from pathlib import Path

import pytest

from stackcheck import versions
from stackcheck.errors import StackcheckError
from stackcheck.matrix import Matrix, MatrixIndex, bundled_dir, load_matrix
from stackcheck.matrix.freshness import MAX_AGE_DAYS, stale_warning
from stackcheck.matrix.index import instance_family
from stackcheck.matrix.loader import META_KEYS, read_tables
from stackcheck.matrix.models import TABLE_KEYS, Fact
from stackcheck.matrix.requirements import driver_needs

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def test_every_bundled_file_parses_into_known_tables() -> None:
    tables = read_tables(bundled_dir())
    assert tables["version"]
    assert set(tables) - set(META_KEYS) <= set(TABLE_KEYS)


def test_every_entry_has_a_source_and_a_date(matrix: Matrix) -> None:
    for table in TABLE_KEYS:
        for entry in getattr(matrix, table):
            assert isinstance(entry, Fact)
            assert (
                entry.source.startswith(("http", "pytorch/", "aws/", "NVIDIA/"))
                or "@" in entry.source
            ), (
                table,
                entry,
            )
            assert entry.checked is not None


def test_keys_are_unique(matrix: Matrix) -> None:
    for table, key in TABLE_KEYS.items():
        seen = [tuple(getattr(e, k) for k in key) for e in getattr(matrix, table)]
        duplicates = {k for k in seen if seen.count(k) > 1}
        assert not duplicates, (table, duplicates)


def test_versions_parse(matrix: Matrix) -> None:
    for release in matrix.cuda_release:
        assert versions.parse(release.version) and versions.parse(release.min_driver)
    for torch in matrix.torch:
        for variant in torch.variants:
            assert versions.parse(variant.cuda)


def test_instances_name_known_gpus(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    names = {g.name for g in matrix.gpu}
    for instance in matrix.instance:
        assert instance.gpu is None or instance.gpu in names, instance.type
        if instance.gpu:
            assert index.gpu(instance.gpu) is not None


def test_cuda_release_floors_respect_their_major(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    for release in matrix.cuda_release:
        major = index.cuda_major(versions.major(release.version))
        assert major is not None, release.version
        if versions.release(release.version, 2) == "11.0":
            continue  # 11.0 shipped before the 11.x floor (450.80.02) existed: Table 3's footnote
        assert versions.parse(release.min_driver) >= versions.parse(major.min_driver)  # type: ignore[operator]


def test_gpu_lookup_prefers_the_longest_match() -> None:
    index = MatrixIndex(load_matrix())
    assert index.gpu("NVIDIA GB200") is not None and index.gpu("NVIDIA GB200").name == "GB200"  # type: ignore[union-attr]
    assert index.gpu("NVIDIA L40S").name == "L40S"  # type: ignore[union-attr]
    assert index.gpu("NVIDIA L4").name == "L4"  # type: ignore[union-attr]
    assert index.gpu("NVIDIA A100-SXM4-80GB").name == "A100 80GB"  # type: ignore[union-attr]
    assert index.gpu("Matrox G200") is None


def test_user_matrix_overrides_and_bad_files_fail_clearly(tmp_path: Path) -> None:
    (tmp_path / "gpus.toml").write_text(
        '[[gpu]]\nname = "H100"\nmatch = ["H100"]\ncompute_capability = "9.0"\n'
        'architecture = "Hopper"\ndatacenter = true\nsource = "https://example.invalid/x"\n'
        'checked = 2026-12-01\nnote = "overridden"\n'
    )
    overlaid = MatrixIndex(load_matrix([tmp_path]))
    assert overlaid.gpu("NVIDIA H100 80GB HBM3").note == "overridden"  # type: ignore[union-attr]
    (tmp_path / "bad.toml").write_text("[[gpu]]\nname = \n")
    with pytest.raises(StackcheckError, match=r"bad\.toml"):
        load_matrix([tmp_path])
    (tmp_path / "bad.toml").write_text('[[gpus]]\nname = "x"\n')
    with pytest.raises(StackcheckError, match=r"unknown table 'gpus'"):
        load_matrix([tmp_path])
    (tmp_path / "bad.toml").write_text('[[gpu]]\nname = "x"\nmatch = ["x"]\n')
    with pytest.raises(StackcheckError, match="invalid matrix entry"):
        load_matrix([tmp_path])


# -- every file on its own, and every fact ---------------------------------------------------------
def test_each_file_validates_on_its_own() -> None:
    """A broken file names itself: each bundled file is a valid matrix by itself."""
    for path in sorted(bundled_dir().glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        Matrix.model_validate(data)  # raises with the file's own entries


def test_nested_facts_name_their_sources(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    for table in (matrix.nccl, matrix.ofi_nccl, matrix.efa_installer):
        for issue, _entry in index.known_issues(table):
            assert len(issue.source) > 4, issue.summary
    for torch in matrix.torch:
        for variant in torch.variants:
            assert variant.source or torch.source, (torch.version, variant.cuda)


def test_every_version_field_parses(matrix: Matrix) -> None:
    fields = {
        "cuda_release": ("version", "min_driver"),
        "cudnn": ("version",),
        "nccl": ("version",),
        "ofi_nccl": ("version", "nccl_min", "libfabric_min"),
        "efa_installer": ("version", "libfabric", "ofi_nccl"),
        "dlami": ("driver", "efa", "ofi_nccl", "cuda_default"),
        "dlc": ("torch", "cuda", "cudnn", "nccl", "efa", "ofi_nccl", "min_driver"),
        "ngc": ("torch", "cuda", "cudnn", "nccl", "efa", "ofi_nccl", "min_driver"),
    }
    for table, names in fields.items():
        for entry in getattr(matrix, table):
            for name in names:
                value = getattr(entry, name)
                assert value is None or versions.parse(value), (table, name, value)
    for nccl in matrix.nccl:
        assert nccl.net_api is not None and nccl.net_api_min is not None, nccl.version
        assert nccl.net_api_min <= nccl.net_api
        assert nccl.released is not None


# -- consistency across tables ---------------------------------------------------------------------
def test_official_pytorch_builds_of_images_are_torch_variants(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    for image in [*matrix.dlc, *matrix.ngc]:
        if image.torch_build == "official" and image.torch:  # base images carry no PyTorch
            assert index.torch_variant(image.torch, image.torch_cuda or image.cuda), image.tag


def test_image_components_are_in_their_tables(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    oldest_nccl = min((n.version for n in matrix.nccl), key=versions.key)
    for image in [*matrix.dlc, *matrix.ngc]:
        assert image.efa is None or index.efa_installer(image.efa), (image.tag, image.efa)
        assert image.ofi_nccl is None or index.ofi_nccl_release(image.ofi_nccl), image.tag
        assert image.cuda is None or index.cuda_release(image.cuda), (image.tag, image.cuda)
        if image.nccl and versions.key(image.nccl) >= versions.key(oldest_nccl):
            assert index.nccl_release(image.nccl), (image.tag, image.nccl)


def test_ofi_nccl_ranges_match_the_nccl_net_api_table(matrix: Matrix) -> None:
    """Every NCCL a plugin release was tested with, and its NCCL floor, can load it: the plugin
    exports a net API version within [net_api_min, net_api] of that NCCL release."""
    index = MatrixIndex(matrix)
    for plugin in matrix.ofi_nccl:
        if not plugin.net_api:
            continue
        for version in [*plugin.nccl_tested, plugin.nccl_min]:
            nccl = index.nccl_release(version)
            if nccl is None or nccl.net_api is None or nccl.net_api_min is None:
                continue  # before NCCL 2.17, or a release the NCCL history read does not have
            assert any(nccl.net_api_min <= v <= nccl.net_api for v in plugin.net_api), (
                plugin.version,
                version,
            )


def test_efa_installers_bundle_known_plugins(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    for installer in matrix.efa_installer:
        assert installer.ofi_nccl is None or index.ofi_nccl_release(installer.ofi_nccl), (
            installer.version
        )


def test_dlamis_agree_with_the_efa_table(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    for dlami in matrix.dlami:
        installer = index.efa_installer(dlami.efa)
        assert dlami.efa is None or installer is not None, (dlami.name, dlami.efa)
        if installer is not None and installer.ofi_nccl and dlami.ofi_nccl:
            assert installer.ofi_nccl == dlami.ofi_nccl, (dlami.name, dlami.release)
        assert dlami.ofi_nccl is None or index.ofi_nccl_release(dlami.ofi_nccl)
        assert index.driver_branch(dlami.driver) is not None, dlami.driver
        for cuda in dlami.cuda:
            assert index.cuda_release(cuda) is not None, (dlami.name, cuda)


# Families AWS lists for DLAMIs that instances.toml does not have yet (that table is being
# verified separately); when a family is added there, this set must shrink with it.
FAMILIES_PENDING_IN_INSTANCES = {"g5g", "g6f", "g7", "gr6", "gr6f", "p6e-gb300"}


def test_dlami_instance_families_exist(matrix: Matrix) -> None:
    known = {instance_family(i.type) for i in matrix.instance}
    listed = {family for dlami in matrix.dlami for family in dlami.instances}
    assert listed - known == FAMILIES_PENDING_IN_INSTANCES


def test_gpu_conditions_and_new_gpus_name_known_gpus(matrix: Matrix) -> None:
    names = {g.name.lower() for g in matrix.gpu} | {g.architecture.lower() for g in matrix.gpu}
    index = MatrixIndex(matrix)
    for table in (matrix.nccl, matrix.ofi_nccl, matrix.efa_installer):
        for issue, _entry in index.known_issues(table):
            assert {g.lower() for g in issue.gpus} <= names, issue.summary
    for nccl in matrix.nccl:
        assert {g.lower() for g in nccl.new_gpus} <= names, nccl.version


def test_known_issues_are_listed_under_an_affected_release(matrix: Matrix) -> None:
    """An issue sits under the first release it affects, so `matrix nccl X` finds it there; an
    issue of releases older than the table (NCCL 1.x) sits under the table's first entry."""
    index = MatrixIndex(matrix)
    for table in (matrix.nccl, matrix.ofi_nccl, matrix.efa_installer):
        oldest = min((e.version for e in table), key=versions.key)
        for issue, entry in index.known_issues(table):
            assert versions.matches(entry.version, issue.affected) or (
                entry.version == oldest
                and not any(versions.matches(e.version, issue.affected) for e in table)
            ), issue.summary


def test_gb200_support_is_a_fact_of_the_nccl_table(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    first = index.nccl_first_for(index.gpu("NVIDIA GB200"))  # type: ignore[arg-type]
    assert first is not None and first.version == "2.27.5"
    hopper = index.nccl_first_for(index.gpu("NVIDIA H100 80GB HBM3"))  # type: ignore[arg-type]
    assert hopper is not None and hopper.version == "2.15.1"  # 'Add support for H100 (sm90)'
    ampere = index.nccl_first_for(index.gpu("NVIDIA A10G"))  # type: ignore[arg-type]
    assert ampere is not None and ampere.version == "2.7.3"


def test_cuda_11_0_runs_on_its_own_ga_driver(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    assert driver_needs(index, "11.0").floor == "450.51.05"
    assert driver_needs(index, "11.8").floor == "450.80.02"
    assert driver_needs(index, "12.4").full == "550.54.14"
    assert driver_needs(index, "12.4.1").full == "550.54.15"


# -- freshness ---------------------------------------------------------------------------------
def test_a_matrix_older_than_120_days_is_stale(matrix: Matrix) -> None:
    assert matrix.built is not None
    assert stale_warning(matrix, matrix.built + timedelta(days=MAX_AGE_DAYS)) is None
    late = stale_warning(matrix, matrix.built + timedelta(days=MAX_AGE_DAYS + 1))
    assert late is not None and f"{MAX_AGE_DAYS + 1} days ago" in late
    assert stale_warning(matrix.model_copy(update={"built": None}), date(2099, 1, 1)) is None
