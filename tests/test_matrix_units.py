"""One unit per quantity, honest provenance, and the rows users meet (issue 16).

The unit test walks every model of the matrix schema: a number that is a quantity must say its
unit in its name (``_gib``, ``_gb``, ``_gb_s``) and its description must agree; counts and
identifiers are listed here as unitless, so a new numeric field has to be classified on purpose.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable
from types import UnionType

import pytest
from pydantic import BaseModel

from stackcheck.matrix import Matrix, MatrixIndex, load_matrix
from stackcheck.matrix.models import Fact
from stackcheck.matrix.provenance import audit, classify, primary_share
from tests.conftest import Outcome

# A suffix and the text its field's description must contain.
UNIT_SUFFIXES = {"_gib": "GiB", "_gb_s": "GB/s", "_gb_marketed": "GB", "_tflops": "TFLOPS"}
# Numbers without a unit: counts, identifiers, version parts.
UNITLESS = {
    "major",
    "branch",
    "max_cuda_major",
    "last_cuda_major",
    "last_driver_branch",
    "gpu_count",
    "nvlink_domain_gpus",
    "efa_interfaces",
    "net_api",
    "net_api_min",
    "cuda_major",
    "pcie_gen",  # a PCIe generation number
    "pcie_width",  # lanes
    "nvlink_links",
    "code",  # an Xid code
    "achievable",  # a share of the dense peak, 0 to 1
}


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix()


def _numeric(annotation: object) -> bool:
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, UnionType) or args:
        return any(_numeric(a) for a in args)
    return annotation in (int, float)


def _models(model: type[BaseModel], seen: set[type[BaseModel]]) -> set[type[BaseModel]]:
    seen.add(model)
    for field in model.model_fields.values():
        stack = [field.annotation]
        while stack:
            current = stack.pop()
            stack.extend(typing.get_args(current))
            if isinstance(current, type) and issubclass(current, BaseModel) and current not in seen:
                _models(current, seen)
    return seen


def test_every_numeric_field_names_its_unit_and_its_description_agrees() -> None:
    disagree = []
    for model in _models(Matrix, set()):
        for name, field in model.model_fields.items():
            if not _numeric(field.annotation) or name in UNITLESS:
                continue
            suffix = next((s for s in UNIT_SUFFIXES if name.endswith(s)), None)
            if suffix is None:
                disagree.append(f"{model.__name__}.{name}: no unit in the name")
            elif UNIT_SUFFIXES[suffix] not in (field.description or ""):
                disagree.append(f"{model.__name__}.{name}: description does not say {suffix}")
    assert disagree == []


def test_the_unit_walk_catches_a_field_without_a_unit() -> None:
    class Bad(BaseModel):
        bandwidth: float | None = None

    fields = [n for n, f in Bad.model_fields.items() if _numeric(f.annotation)]
    assert fields == ["bandwidth"]
    assert not any("bandwidth".endswith(s) for s in UNIT_SUFFIXES)


def test_gpu_memory_is_the_drivers_gib_below_the_marketed_figure(matrix: Matrix) -> None:
    for gpu in matrix.gpu:
        if gpu.memory_gib is None:
            continue
        assert gpu.memory_source, gpu.name
        assert gpu.memory_gb_marketed is not None, gpu.name
        # The driver reports a little less than the physical memory the product name counts.
        assert 0.9 * gpu.memory_gb_marketed <= gpu.memory_gib <= gpu.memory_gb_marketed, gpu.name


def test_instances_carry_their_gpus_memory_figure(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    # p3.2x/8x/16xlarge carry the 16 GB V100 (16384 MiB); the V100 row is the 32 GB part.
    sixteen_gb_v100 = {"p3.2xlarge", "p3.8xlarge", "p3.16xlarge"}
    for instance in matrix.instance:
        gpu = index.gpu(instance.gpu)
        if gpu is None or instance.gpu_memory_gib is None:
            continue
        expected = 16.0 if instance.type in sixteen_gb_v100 else gpu.memory_gib
        assert instance.gpu_memory_gib == expected, instance.type


def test_provenance_classes(matrix: Matrix) -> None:
    prefixes = matrix.primary_sources
    english = Fact.model_validate(
        {"source": "https://docs.aws.amazon.com/AWSEC2/latest/x.html", "checked": "2026-12-03"}
    )
    translated = english.model_copy(update={"via": "https://docs.aws.amazon.com/es_es/x.html"})
    samples = Fact.model_validate(
        {"source": "aws-samples/awsome-distributed-training@abc:x.md", "checked": "2026-12-03"}
    )
    unsure = english.model_copy(update={"unsure": True})
    assert [classify(f, prefixes) for f in (english, translated, samples, unsure)] == [
        "primary",
        "secondary",
        "secondary",
        "unsure",
    ]


def test_audit_counts_every_entry_once(matrix: Matrix) -> None:
    rows = audit(matrix)
    total = rows[-1]
    assert total.table == "all"
    assert total.total == sum(r.total for r in rows[:-1])
    assert total.total == sum(len(getattr(matrix, r.table)) for r in rows[:-1])
    assert 0.0 < primary_share(rows) <= 1.0


def test_cudnn_of_every_wheel_and_image_is_in_the_matrix(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    shipped = {v.cudnn for t in matrix.torch for v in t.variants if v.cudnn}
    shipped |= {i.cudnn for i in [*matrix.dlc, *matrix.ngc] if i.cudnn}
    assert "9.1.0.70" in shipped
    assert sorted(c for c in shipped if index.cudnn_release(c) is None) == []


def test_efa_installers_before_1_38_bundle_no_plugin(matrix: Matrix) -> None:
    from stackcheck import versions

    for installer in matrix.efa_installer:
        if versions.key(installer.version) < versions.key("1.38.0"):
            assert installer.bundles_ofi_nccl is False, installer.version
            assert installer.ofi_nccl is None, installer.version
        elif installer.ofi_nccl is not None:
            assert installer.bundles_ofi_nccl is True, installer.version


def test_sync_memops_boundary_is_the_plugins(matrix: Matrix) -> None:
    advice = next(e for e in matrix.env_var if e.name == "FI_EFA_SET_CUDA_SYNC_MEMOPS")
    assert advice.needed_when == [{"efa-installer": "<1.29.0", "nccl": ">=2.19"}]
    issue = next(
        i for e in matrix.efa_installer for i in e.known_issues if "NCCL >= 2.19" in i.summary
    )
    assert issue.affected == "<1.29.0"
    assert advice.source.startswith("aws/aws-ofi-nccl@")


def test_matrix_audit_prints_counts_and_the_primary_share(cli: Callable[..., Outcome]) -> None:
    done = cli("matrix", "--audit")
    assert done.code == 0, done.err
    assert "PRIMARY SECONDARY  UNSURE" in done.out and "primary share: " in done.out
    document = json.loads(cli("matrix", "--audit", "--json").out)
    rows = {r["table"]: r for r in document["audit"]}
    assert rows["all"]["total"] == sum(r["total"] for t, r in rows.items() if t != "all")
    assert document["entries"] == []
    efa = json.loads(cli("matrix", "--audit", "efa", "--json").out)["entries"]
    translated = next(e for e in efa if e["key"] == "1.42.0")
    assert translated["provenance"] == "secondary" and "es_es" in translated["via"]


def test_matrix_efa_says_when_no_plugin_is_bundled(cli: Callable[..., Outcome]) -> None:
    done = cli("matrix", "efa", "1.29.1")
    assert done.code == 0, done.err
    assert "libfabric        1.19.0" in done.out
    assert "bundles_ofi_nccl False" in done.out
