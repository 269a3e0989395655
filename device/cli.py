"""The ``ducktable`` command line: one entry point, sub-commands contributed by feature modules.

Each module in ``COMMAND_MODULES`` exposes ``register(subparsers)``, adding its sub-commands
with ``set_defaults(func=...)``; ``func(args) -> int`` returns the exit status. Errors the user
can fix are raised as :class:`UserError` and printed as one clear line, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

COMMAND_MODULES = (
    "ducktable.device.cli_match",  # start, submit, check, show, undo, export, replay, simulate
    "ducktable.device.cli_run",  # run, demo, qr
    "ducktable.device.cli_vision",  # identify, enroll
    "ducktable.device.cli_bench",  # bench
    "ducktable.device.cli_rules",  # rules
    "ducktable.device.cli_table",  # markers, calibrate, replay-video
    "ducktable.device.cli_party",  # party host, party join, party status
)


class UserError(Exception):
    """A problem the user can fix; printed as ``ducktable: error: <message>``, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ducktable",
        description="A table companion for five duck card games: referee, scorer, scoreboard.",
    )
    parser.add_argument("--data-dir", help=DATA_DIR_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # that feature is not installed in this build
            raise
        module.register(sub)
    _global_options_after_commands(parser)
    return parser


DATA_DIR_HELP = ("where matches, calibration and enrolled decks are kept "
                 "(default: $DUCKTABLE_DATA or ~/.local/share/ducktable)")


def _global_options_after_commands(parser: argparse.ArgumentParser) -> None:
    """Let ``--data-dir`` follow the command too (``ducktable show 1 --data-dir D``), for every
    sub-command and their own sub-commands. SUPPRESS as the default keeps a value given before
    the command: a sub-command's parser would otherwise overwrite it with its own None."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        for command in set(action.choices.values()):
            if "--data-dir" not in command._option_string_actions:
                command.add_argument("--data-dir", default=argparse.SUPPRESS, help=DATA_DIR_HELP)
            _global_options_after_commands(command)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        parser = build_parser()  # imports OpenCV and numpy: a second or more on a Pi
    except KeyboardInterrupt:
        print("ducktable: interrupted", file=sys.stderr)
        return 130
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        status = int(args.func(args) or 0)
        sys.stdout.flush()  # a reader that went away shows here, not in Python's flush at exit
        return status
    except UserError as exc:
        print(f"ducktable: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ducktable: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader of our output went away (`ducktable ... | head`): nothing is wrong here.
        # Point stdout at /dev/null so that Python's flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    # Run the installed module's main, not this __main__ copy, so UserError is one class.
    from ducktable.device.cli import main as installed_main

    sys.exit(installed_main())
