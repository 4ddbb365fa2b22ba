"""Dockerfiles as a source: lint one statically, and anchor an image's findings to its lines."""
