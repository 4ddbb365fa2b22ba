"""Helpers that build real test inputs: directory trees, shared objects compiled with gcc."""
