"""Exit statuses of the command line, shared by its commands."""

EXIT_ERROR = 2
"""Bad input or a failed run; one line on standard error says why."""

EXIT_INTERRUPTED = 130
"""Interrupted with Ctrl-C (128 + SIGINT, as shells report it); the run can be resumed."""
