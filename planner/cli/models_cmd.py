"""`gpu-advisor models [--json]`: the model presets with their exact parameter counts and sources."""

from __future__ import annotations

import argparse

from planner.cli import SUMMARIES, print_json
from planner.models import ModelSpec, list_presets


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "models",
        help=SUMMARIES["models"],
        description="Model presets. Any --model option also takes a size such as 7b, a config.json or a model folder.",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output (counts as integers)")
    parser.set_defaults(handler=run_models)


def model_json(spec: ModelSpec) -> dict[str, object]:
    """One preset for --json: counts are integers (parameters, layers, features, tokens)."""
    return {
        "id": spec.id,
        "name": spec.name,
        "family": spec.family,
        "params": spec.total_params,
        "active_params": spec.active_params,
        "layers": spec.layers,
        "hidden": spec.hidden,
        "heads": spec.heads,
        "kv_heads": spec.kv_heads,
        "head_dim": spec.head_dim,
        "ffn": spec.ffn,
        "vocab": spec.vocab,
        "tied_embeddings": spec.tied_embeddings,
        "experts": spec.experts,
        "experts_per_token": spec.experts_per_token,
        "uses_mla": spec.uses_mla,
        "max_context_tokens": spec.max_context,
        "source": spec.source,
        "source_date": spec.source_date,
    }


def _billions(count: int) -> str:
    return f"{count / 1e9:.2f} B"


def run_models(args: argparse.Namespace) -> int:
    presets = list_presets()
    if args.json:
        print_json({"models": [model_json(spec) for spec in presets]})
        return 0
    rows = [("id", "name", "params", "active", "layers", "hidden", "heads/KV", "context", "source date")]
    for spec in presets:
        attention = "MLA" if spec.uses_mla else f"{spec.heads}/{spec.kv_heads}"
        rows.append(
            (
                spec.id,
                spec.name,
                _billions(spec.total_params),
                _billions(spec.active_params),
                str(spec.layers),
                str(spec.hidden),
                attention,
                f"{spec.max_context:,} tok",
                spec.source_date,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for number, row in enumerate(rows):
        print(
            "  ".join(
                cell.ljust(width) if i < 2 else cell.rjust(width)
                for i, (cell, width) in enumerate(zip(row, widths, strict=True))
            )
        )
        if number == 0:
            print("  ".join("-" * width for width in widths))
    print()
    print(
        "params in billions (1e9). Also accepted by --model: a size such as 7b, a config.json, a model folder."
    )
    print("Sources: the config.json URLs in `gpu-advisor models --json`.")
    return 0
