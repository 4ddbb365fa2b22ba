"""Views: read-only access to the filesystem of whatever artifact is being probed."""

from stackcheck.views.base import Entry, FileView
from stackcheck.views.directory import DirectoryView

__all__ = ["DirectoryView", "Entry", "FileView"]
