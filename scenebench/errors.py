"""The one error type of the non-render subcommands: one line on stderr, exit 2."""


class CliError(Exception):
    """Bad input to a subcommand (unknown benchmark, missing run, bad file): the message says why."""
