"""SC1411: a libfabric that is not a release (a release candidate, the development branch), read
from its version, a build from ofiwg/libfabric's branch, or a report saying so; releases,
vendor builds and a release candidate named as the fix give nothing."""

from __future__ import annotations

import pytest

from stackcheck.check.engine import check
from stackcheck.ingest import read_report
from tests.corpus import _matrix


def _ids(text: str) -> list[str]:
    return [f.id for f in check(read_report(text, "pasted").snapshot, _matrix()).findings]


@pytest.mark.parametrize(
    "text",
    [
        # fi_info --version (libfabric's configure.ac: rc for candidates, a1 on the branch)
        "$ fi_info --version\nfi_info: 1.12.0rc1\nlibfabric: 1.12.0rc1\nlibfabric api: 1.12\n",
        "$ fi_info --version\nfi_info: 1.13.0a1\nlibfabric: 1.13.0a1\nlibfabric api: 1.13\n",
        # a component list (ofiwg/libfabric#6441) and a clone of the branch in a build step
        "Components:\nLibfabric: https://github.com/ofiwg/libfabric -b 'master'\n",
        "RUN git clone -b main https://github.com/ofiwg/libfabric.git && cd libfabric\n",
        # prose (ofiwg/libfabric#6565), also with the version before the words
        "We see hangs on EFA with the newest release candidate of libfabric.\n",
        "Our nodes run the libfabric 1.12.0 release candidate and hang in shm progress.\n",
    ],
)
def test_an_unreleased_libfabric_is_a_warning(text: str) -> None:
    assert "SC1411" in _ids(text)


@pytest.mark.parametrize(
    "text",
    [
        "$ fi_info --version\nfi_info: 1.18.2amzn1.0\nlibfabric: 1.18.2amzn1.0\n"
        "libfabric api: 1.18\n",
        "$ fi_info --version\nfi_info: 1.12.0\nlibfabric: 1.12.0\nlibfabric api: 1.12\n",
        "RUN git clone -b v1.22.0 https://github.com/ofiwg/libfabric.git\n",
        "The newest release candidate of libfabric fixed the hang for us.\n",
        "Is there a release candidate of libfabric with this change?\n",
    ],
)
def test_a_release_or_a_candidate_named_as_the_fix_is_not(text: str) -> None:
    assert "SC1411" not in _ids(text)
