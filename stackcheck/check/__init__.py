"""Checking a snapshot: rules against the matrix, giving findings and recommendations."""
