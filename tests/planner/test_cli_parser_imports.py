"""`gpu-advisor COMMAND --help` and a refused argument load the argument parser, not the planner (issue 31: `plan
--help` imported 376 modules, 0.82 s, because the plan command imported its output, the exports, the search and
the performance model). plan and rentbuy keep their parsers in plan_args.py / rentbuy_args.py, which write the
few heavy modules' values the help shows as plain values: each is checked here against the module it stands for.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from planner.cli import SUBCOMMANDS

# What only a run needs: the search, the performance and scale models, the resolver, the exports, the costs.
HEAVY = ("planner.search", "planner.perf", "planner.scale", "planner.resolver", "planner.exports", "planner.costs",
         "planner.cli.plan_cmd", "planner.cli.rentbuy_cmd", "torch", "numpy")  # fmt: skip
# `probe --help`, the largest now, imports 107 modules beside the interpreter's own; plan's took 376.
MAX_MODULES = 150

PROBE = """
import contextlib, io, json, sys
before = set(sys.modules)
from planner.cli import main
codes = []
for argv in ([sys.argv[1], "--no-such-option"], [sys.argv[1], "--help"]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        codes.append(main(argv))
print(json.dumps({"codes": codes, "modules": sorted(set(sys.modules) - before)}))
"""


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_help_and_a_refused_argument_import_only_the_parser(command: str) -> None:
    out = subprocess.run([sys.executable, "-c", PROBE, command], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    assert report["codes"] == [2, 0]  # the refusal's exit code, then --help's
    assert [m for m in report["modules"] if m.startswith(HEAVY)] == []
    assert len(report["modules"]) <= MAX_MODULES


def test_the_parsers_stand_ins_are_the_planners_values() -> None:
    from planner import costs, perf, scale, search
    from planner.cli import plan_args, rentbuy_args

    assert plan_args.ENGINES == tuple(sorted(perf.ENGINES))
    assert plan_args.FORMATS == tuple(sorted(perf.FORMATS))
    assert plan_args.STORAGES == scale.STORAGES
    assert plan_args.DEFAULT_MAX_GPUS == search.DEFAULT_MAX_GPUS
    assert plan_args.DEFAULT_MEMORY_HEADROOM == search.DEFAULT_MEMORY_HEADROOM
    # the help shows it to two significant digits
    assert f"{plan_args.DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR:.2g}" == (
        f"{scale.DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR:.2g}"
    )
    assert rentbuy_args.DEFAULT_ELECTRICITY_PER_KWH == costs.DEFAULT_ELECTRICITY_PER_KWH
    assert rentbuy_args.DEFAULT_PUE == costs.DEFAULT_PUE


def test_a_plan_and_a_rent_or_buy_still_run_through_the_parsers(capsys: pytest.CaptureFixture[str]) -> None:
    from planner.cli import main

    assert main(["rentbuy", "--gpu", "h100-sxm", "--rent-per-gpu-hour", "2.5"]) == 0
    # H100 SXM's 700 W TDP x the default PUE 1.4 x 0.12 USD/kWh = 0.1176 USD per busy GPU-hour
    assert "700 W per busy GPU x PUE 1.4 x 0.12 USD/kWh = 0.118 USD" in capsys.readouterr().out
    assert main(["plan", "--model", "7b", "--gpu", "h100-sxm", "--top", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["options"]


def test_the_handlers_named_by_the_parsers_are_the_runs() -> None:
    from planner.cli import build_parser, handler_of
    from planner.cli.plan_cmd import run_plan
    from planner.cli.rentbuy_cmd import run_rentbuy

    parser = build_parser()
    assert handler_of(parser.parse_args(["plan", "--model", "7b"])) is run_plan
    assert (
        handler_of(parser.parse_args(["rentbuy", "--gpu", "h100-sxm", "--rent-per-gpu-hour", "2"]))
        is run_rentbuy
    )


def test_every_weight_format_the_help_names_is_taken(capsys: pytest.CaptureFixture[str]) -> None:
    """The help names exl2-<2..8> and the awq / gptq aliases beside the listed formats; each must plan (the
    parser once refused them by its fixed list), and fewer bits leave more room for sequences on a 24 GB card:
    Llama 2 7B holds 13.5 GB of weights in bf16 and about 3.4 GB at 4.0 bits per weight."""
    from planner.cli import main

    base = ["plan", "--model", "llama-2-7b", "--task", "inference", "--gpu", "rtx-4090", "--gpus", "1", "--json"]
    fit = {}
    for name in ("bf16", "exl2-4.0", "awq", "gptq"):
        assert main([*base, "--weight-format", name]) == 0, name
        fit[name] = json.loads(capsys.readouterr().out)["options"][0]["max_concurrent_sequences"]
    assert fit["exl2-4.0"] > fit["bf16"] and fit["awq"] > fit["bf16"]
    assert main([*base, "--weight-format", "exl2-9"]) == 2  # beyond EXL2's 2..8 bits: one line, no traceback
    assert "exl2-<2..8>" in capsys.readouterr().err
