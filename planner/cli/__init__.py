"""The `gpu-advisor` subcommands (the command line contract: README.md, "Command line").

Each subcommand lives in its own module with a `register(subparsers)` function that adds its parser and sets
`handler` to a function `(args) -> int`. Errors the user can cause raise planner.errors.UserError and come out
as one line on stderr with exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from planner.errors import UserError

# name -> module under planner.cli that registers it. Order is the order of `--help`.
SUBCOMMANDS = {
    "models": "planner.cli.models_cmd",
    "gpus": "planner.cli.gpus_cmd",
    "memory": "planner.cli.memory_cmd",
    "plan": "planner.cli.plan_cmd",
    "rentbuy": "planner.cli.rentbuy_cmd",
    "quotes": "planner.cli.quotes_cmd",
    "probe": "planner.cli.probe_cmd",
    "history": "planner.cli.history_cmd",
    "validate": "planner.cli.validate_cmd",
}


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("gpu-advisor")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+source"


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments as one line and exit code 2 (argparse's own code)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"gpu-advisor: error: {_with_suggestion(message)}\n")
        raise SystemExit(2)


def _with_suggestion(message: str) -> str:
    """argparse's "invalid choice: 'memroy' (choose from ...)" plus the closest choice, when one is close."""
    import difflib
    import re

    found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if not found:
        return message
    choices = re.findall(r"[\w.-]+", found.group(2))
    close = difflib.get_close_matches(found.group(1), choices, n=1)
    return f"{message}; did you mean '{close[0]}'?" if close else message


def add_global_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", default=None, help="database file (default: GPU_ADVISOR_DB or the user data folder)"
    )
    parser.add_argument("--lang", choices=["en", "ru"], default=None, help="interface language")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gpu-advisor", description="Plan and price LLM work on NVIDIA GPUs.")
    parser.add_argument("--version", action="version", version=f"gpu-advisor {version()}")
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module_name in SUBCOMMANDS.values():
        importlib.import_module(module_name).register(sub)
    return parser


def print_json(payload: object) -> None:
    json.dump(payload, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.db:
        os.environ["GPU_ADVISOR_DB"] = args.db
    if not getattr(args, "handler", None):
        parser.print_help()
        return 0
    try:
        return int(args.handler(args) or 0)
    except UserError as exc:
        sys.stderr.write(f"gpu-advisor: {exc}\n")
        return 2
    except BrokenPipeError:  # `gpu-advisor quotes list | head`
        return 0
    except KeyboardInterrupt:  # Ctrl-C (e.g. during `gpu-advisor probe`): one line, the shell's 128 + SIGINT
        sys.stderr.write("gpu-advisor: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
