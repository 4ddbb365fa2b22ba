from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest
from hypothesis import settings

from stackcheck.cli import main
from stackcheck.matrix import Matrix, load_matrix
from tests.support.elfbuild import ElfFactory
from tests.support.images import ImageBuilder
from tests.support.rootfs import Root

PROJECT = Path(__file__).resolve().parent.parent

# Property tests and fuzzers draw the same examples on every run and every machine (a fixed seed,
# no example database): a failure CI sees is one a developer reproduces.
settings.register_profile("stackcheck", derandomize=True, database=None)
settings.load_profile("stackcheck")


@pytest.fixture(scope="session", autouse=True)
def private_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every run writes its caches (matrix, layers, results) under a directory of its own, never
    the user's ~/.cache: a test must not read what an earlier run or another checkout left."""
    home = tmp_path_factory.mktemp("cache-home")
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(home)
    yield home
    if before is None:
        del os.environ["XDG_CACHE_HOME"]
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture(scope="session")
def elves(tmp_path_factory: pytest.TempPathFactory) -> ElfFactory:
    return ElfFactory(tmp_path_factory.mktemp("elves"))


@pytest.fixture
def root(tmp_path: Path, elves: ElfFactory) -> Root:
    return Root(tmp_path / "root", elves)


@pytest.fixture(scope="session")
def matrix() -> Matrix:
    return load_matrix()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Real artefacts made by scripts/prepare-artifacts.sh; required when the suite runs in CI."""
    path = Path(os.environ.get("STACKCHECK_ARTIFACTS", PROJECT / ".cache" / "artifacts"))
    if not (path / "realroot" / ".stamp").exists():
        message = f"real artefacts missing at {path}: run scripts/prepare-artifacts.sh {path}"
        if os.environ.get("STACKCHECK_REQUIRE_ARTIFACTS"):
            pytest.fail(message)
        pytest.skip(message)
    return path


@dataclass
class Outcome:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Outcome]:
    """Run the command line in this process, as ``stackcheck ARGS``."""

    def run(*arguments: str) -> Outcome:
        try:
            code = main(list(arguments))
        except SystemExit as exc:  # argparse's --help / --version / usage errors
            code = int(exc.code or 0)
        captured = capsys.readouterr()
        return Outcome(code, captured.out, captured.err)

    return run


def run_stackcheck(
    *arguments: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> Outcome:
    """Run ``python -m stackcheck ARGS`` in a child process, as a user would."""
    done = subprocess.run(
        [sys.executable, "-m", "stackcheck", *arguments],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )
    return Outcome(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def images(tmp_path: Path) -> ImageBuilder:
    return ImageBuilder(tmp_path / "images")


def need_service(message: str) -> NoReturn:
    """Skip a test whose service is missing, saying why in one line; fail instead where
    scripts/test.sh started the services (as root, as CI runs it)."""
    if os.environ.get("STACKCHECK_REQUIRE_SERVICES"):
        pytest.fail(message)
    pytest.skip(message)


def _service(variable: str, script: str) -> str:
    """A test service started by scripts/test.sh when it runs as root."""
    value = os.environ.get(variable)
    if not value:
        need_service(
            f"needs a service scripts/test.sh starts as root ({variable} unset; or run "
            f"scripts/services/{script} start DIR)"
        )
    return value


@pytest.fixture(scope="session")
def podman_socket() -> str:
    return _service("STACKCHECK_PODMAN_SOCKET", "podman.sh")


@pytest.fixture(scope="session")
def registry() -> str:
    return _service("STACKCHECK_REGISTRY", "registry.sh")


@pytest.fixture(scope="session")
def login_registry() -> tuple[str, str]:
    """A registry that asks for a password, and its test user as ``user:password``."""
    return (
        _service("STACKCHECK_REGISTRY_LOGIN", "registry.sh"),
        _service("STACKCHECK_REGISTRY_USER", "registry.sh"),
    )


@pytest.fixture(scope="session")
def p5(tmp_path_factory: pytest.TempPathFactory, elves: ElfFactory) -> dict[str, Path]:
    """The DLAMI p5 trees of tests/support/fleet.py (healthy, broken, and one change each),
    built once; tests read them and never change them."""
    from tests.support.fleet import p5_trees

    return p5_trees(tmp_path_factory.mktemp("p5-trees"), elves)
