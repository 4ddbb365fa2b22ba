"""Errors that end a command with exit code 2 and one clear line on stderr."""


class StackcheckError(Exception):
    """The tool could not do its job: bad arguments, unreadable input, unreachable source."""


class SeverityOutsideRange(UserWarning):
    """A rule reported at a level outside the range it declares (``lowest`` to ``severity``): a
    catalogue mistake, not the user's. The command line silences it; the test suite makes it an
    error; a program importing the rules sees it."""
