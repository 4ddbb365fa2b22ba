"""Parsers for the text that GPU-stack tools and files write. Pure functions: text in, facts out.

The host probe, the image scan and triage of pasted text share them, so a format is understood
the same way wherever it is met.
"""
