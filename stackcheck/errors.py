"""Errors that end a command with exit code 2 and one clear line on stderr."""


class StackcheckError(Exception):
    """The tool could not do its job: bad arguments, unreadable input, unreachable source."""
