"""Glue for CI systems: the GitHub Action's entry point."""
