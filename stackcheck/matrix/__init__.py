"""The curated compatibility matrix: data in ``matrices/*.toml``, models and lookups here."""

from stackcheck.matrix.index import MatrixIndex
from stackcheck.matrix.loader import load_matrix
from stackcheck.matrix.models import Matrix
from stackcheck.matrix_files import bundled_dir

__all__ = ["Matrix", "MatrixIndex", "bundled_dir", "load_matrix"]
