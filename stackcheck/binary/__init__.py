"""Readers for binary formats, used without loading or executing anything."""
