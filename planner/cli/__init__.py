"""The `gpu-advisor` subcommands (the command line contract: docs/cli.md).

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
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from planner.cli.terminal import visible_stdout
from planner.errors import UserError
from planner.messages import msg
from profiler.exits import streams_present

# name -> module under planner.cli that registers it. Order is the order of `--help`.
SUBCOMMANDS = {
    "models": "planner.cli.models_cmd",
    "gpus": "planner.cli.gpus_cmd",
    "memory": "planner.cli.memory_cmd",
    "plan": "planner.cli.plan_args",
    "rentbuy": "planner.cli.rentbuy_args",
    "quotes": "planner.cli.quotes_cmd",
    "probe": "planner.cli.probe_cmd",
    "history": "planner.cli.history_cmd",
    "validate": "planner.cli.validate_cmd",
}
# name -> the line `gpu-advisor --help` shows for it. Each module's register() reads its own line here, so
# `--help` and `--version` list the subcommands without importing them (build_parser's `commands`).
SUMMARIES = {
    "models": "model presets (architecture, exact parameter counts, sources)",
    "gpus": "GPU catalog plus the GPUs detected here",
    "memory": "per-GPU memory breakdown for one configuration",
    "plan": "search strategies and GPU counts, rank, time, cost",
    "rentbuy": "rent vs buy over a horizon",
    "quotes": "your GPU rental and purchase quotes (add, list, import, export, delete)",
    "probe": "measure this machine with gpu-probe and save the result; `probe import FILE` adds another machine's",
    "history": "stored probe runs with their key figures",
    "validate": "score the performance model on published runs (with cross-validation)",
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
        if message.startswith("argument "):  # "argument --mfu: --mfu must be ...": the option named once
            option, _, rest = message.removeprefix("argument ").partition(": ")
            message = rest if rest.startswith(option.split("/")[-1] + " ") else message
        sys.stderr.write(f"gpu-advisor: error: {one_line(_with_suggestion(message))}\n")
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


def build_parser(commands: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `commands`, only those subcommands' modules are imported and registered, the
    others stand in by name and summary (what `--help` lists), so `--version` and `--help` load nothing else."""
    parser = _Parser(prog="gpu-advisor", description="Plan and price LLM work on NVIDIA GPUs.")
    parser.add_argument("--version", action="version", version=f"gpu-advisor {version()}")
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, module_name in SUBCOMMANDS.items():
        if commands is None or name in commands:
            importlib.import_module(module_name).register(sub)
        else:
            sub.add_parser(name, help=SUMMARIES[name], add_help=False)
    limit_numbers(parser)
    return parser


def chosen_command(argv: Sequence[str]) -> tuple[str, ...]:
    """The subcommand `argv` runs, as build_parser's `commands`: the first argument that is not a global option
    or its value; () when that is no subcommand (--help, --version, a typo: the stand-ins are enough)."""
    position = 0
    while position < len(argv):
        arg = argv[position]
        if arg in ("--db", "--lang"):
            position += 2
            continue
        if arg.startswith("-"):
            if arg.split("=")[0] in ("--db", "--lang"):
                position += 1
                continue
            return ()
        return (arg,) if arg in SUBCOMMANDS else ()
    return ()


def limit_numbers(parser: argparse.ArgumentParser) -> None:
    """Every int/float option of every subcommand checked against planner.limits before it is a number: digit
    cap, finite, the quantity's physical range (a new option gets this without asking)."""
    from planner.limits import argparse_type

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for subparser in set(action.choices.values()):
                limit_numbers(subparser)
        elif action.type in (int, float):
            option = action.option_strings[-1] if action.option_strings else action.dest
            action.type = argparse_type(action.dest, action.type is int, option)


def print_json(payload: object) -> None:
    """`payload` as strict JSON: a non-finite figure (there should be none) is null, never Infinity."""
    from planner.limits import finite_json

    json.dump(finite_json(payload), sys.stdout, indent=2, ensure_ascii=False, allow_nan=False)
    sys.stdout.write("\n")


def print_json_list(head: Mapping[str, object], key: str, items: Iterable[object]) -> None:
    """print_json({**head, key: list(items)}), written item by item: the list is never held whole (a listing of
    a million quotes streams in bounded memory and starts at once). The same text print_json would write."""
    from planner.limits import finite_json

    def dumped(value: object, indent: int) -> str:
        text = json.dumps(finite_json(value), indent=2, ensure_ascii=False, allow_nan=False)
        return text.replace("\n", "\n" + " " * indent)

    opening = dumped({**head, key: []}, 0)
    assert opening.endswith(f'"{key}": []\n}}'), opening  # the list is the last member
    sys.stdout.write(opening[: -len("[]\n}")] + "[")
    separator = "\n    "
    wrote = False
    for item in items:
        sys.stdout.write(separator + dumped(item, 4))
        separator, wrote = ",\n    ", True
    sys.stdout.write("\n  ]\n}\n" if wrote else "]\n}\n")


def handler_of(args: argparse.Namespace) -> Callable[[argparse.Namespace], int | None]:
    """The parsed command's handler: a function, or "module:function" for one imported only now (plan_args.py and
    rentbuy_args.py name their runs so, and the parser never imports what only the run needs)."""
    handler = args.handler
    if isinstance(handler, str):
        module, _, name = handler.partition(":")
        handler = getattr(importlib.import_module(module), name)
    return handler  # type: ignore[no-any-return]


def _refuse_unusable_arguments(argv: list[str]) -> None:
    """UserError for arguments argparse or the terminal would mishandle (issue 14 item 4):
    - bytes that are not UTF-8 (Python hands them over as lone surrogates, which no file, database or terminal
      can hold): refused, naming the argument, instead of a UnicodeEncodeError later;
    - `--option=--`: argparse of CPython 3.11.7 turns that value into an empty list (python/cpython#115061)."""
    for position, arg in enumerate(argv, start=1):
        if any("\ud800" <= char <= "\udfff" for char in arg):
            shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")[:60]
            raise UserError.of(msg("error.argument_not_utf8", position=position, text=shown))
        name, equals, value = arg.partition("=")
        if equals and value == "--" and name.startswith("--"):
            raise UserError.of(msg("error.option_value_double_dash", option=name))


def one_line(text: str) -> str:
    """A message as one line: a newline or other control character in a name it quotes (a file called
    "bad\nname.csv") is shown escaped, so the message stays the one line the CLI contract promises."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def main(argv: list[str] | None = None) -> int:
    streams_present()  # also when called in-process (tests, the self-test) rather than from the entry point
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        _refuse_unusable_arguments(argv)
    except UserError as exc:
        sys.stderr.write(f"gpu-advisor: error: {one_line(str(exc))}\n")
        return 2
    commands = chosen_command(argv)
    parser = build_parser(commands)
    try:
        args = parser.parse_args(argv)
        if args.command is not None and args.command not in commands:  # chosen in a way chosen_command missed
            parser = build_parser()  # (an abbreviated global option, say): parse again with every subcommand
            args = parser.parse_args(argv)
    except SystemExit as exc:  # a refused argument (one line already written) or --help: its exit code
        return exc.code if isinstance(exc.code, int) else 2
    if args.db:
        os.environ["GPU_ADVISOR_DB"] = args.db
    if not getattr(args, "handler", None):
        parser.print_help()
        return 0
    try:
        with visible_stdout():  # text from files reaches the terminal with its control characters escaped
            return int(handler_of(args)(args) or 0)
    except UserError as exc:
        sys.stderr.write(f"gpu-advisor: {one_line(str(exc))}\n")
        return 2
    except BrokenPipeError:  # `gpu-advisor quotes list | head`
        return 0
    except OSError as exc:  # the file system refused a path the user gave (a name too long, a loop): one line
        detail = msg("error.os", path=str(exc.filename or ""), reason=exc.strerror or str(exc))
        sys.stderr.write(f"gpu-advisor: {one_line(detail.text)}\n")
        return 2
    except KeyboardInterrupt:  # Ctrl-C (e.g. during `gpu-advisor probe`): one line, the shell's 128 + SIGINT
        sys.stderr.write("gpu-advisor: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
