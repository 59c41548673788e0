"""`gpu-advisor plan`'s arguments: the parser alone, so that `plan --help` and a refused argument import no planner
module beyond the vocabulary and the limits (the search, the performance model and the exports load only when the
plan runs: planner/cli/plan_cmd.py).

The choices and defaults the help shows that belong to heavy modules are written here as plain values;
tests/planner/test_cli_parser_imports.py checks each against the module it stands for, and that `plan --help`
imports none of those modules.
"""

from __future__ import annotations

import argparse

from planner.cli import SUMMARIES
from planner.vocabulary import Offload, Optimizer, Precision, RankBy, Recompute, Runtime, Task

DEFAULT_OUTPUT_LEN = 256  # serving: tokens generated per request when --output-len is not given
# Stand-ins for the heavy modules' values (checked equal by the test named above):
DEFAULT_MAX_GPUS = 4096  # planner.search.DEFAULT_MAX_GPUS
DEFAULT_MEMORY_HEADROOM = 0.10  # planner.search.DEFAULT_MEMORY_HEADROOM
ENGINES = (
    "exllamav2",
    "gpt-fast",
    "llama.cpp",
    "sglang",
    "tensorrt-llm",
    "transformers",
    "vllm",
)  # perf.ENGINES
FORMATS = (  # sorted(planner.perf.FORMATS)
    "bf16", "fp16", "fp32", "fp8", "int4", "int4-g128", "int4-g32", "int4-g64", "int8", "q4_0", "q4_k_m", "q8_0",
)  # fmt: skip
STORAGES = ("nvme", "pfs")  # planner.scale.STORAGES
DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR = 3.0547e-4  # planner.scale's, to the 2 digits the help shows


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "plan",
        help=SUMMARIES["plan"],
        description="Search GPU counts and parallel strategies (dp x tp x pp x ep, ZeRO, recompute, offload), "
        "drop what does not fit, and rank what is left by time or cost.",
    )
    parser.add_argument(
        "--model",
        required=True,
        help="preset id (see `models`), a size such as 7b, a config.json or a model folder",
    )
    parser.add_argument(
        "--task", default="pretrain", choices=Task.choices(), help="train = pretrain (full training)"
    )
    parser.add_argument(
        "--gpu", default=None,
        help="GPU id from `gpus`, run:ID (a stored probe run) or quote:ID (a stored quote); comma-separated",
    )  # fmt: skip
    parser.add_argument(
        "--pool", default=None, metavar="ID:COUNT,...",
        help="training on a mixed pool you have, e.g. a100-sxm-80gb:64,h100-sxm:32: each type alone against the "
        "whole pool as one data-parallel job (instead of --gpu)",
    )  # fmt: skip
    parser.add_argument(
        "--pool-ways", default="all", metavar="WAY,...|all",
        help="with --pool: the ways to compare, of alone, pool, pipeline (stages sized to each type's speed) and "
        "separate (jobs); all for every one (default: all, the Plan page's rows)",
    )  # fmt: skip
    count = parser.add_mutually_exclusive_group()
    count.add_argument("--gpus", type=int, default=None, help="exactly this many GPUs")
    count.add_argument(
        "--max-gpus", type=int, default=None, help=f"at most this many GPUs (default {DEFAULT_MAX_GPUS})"
    )
    parser.add_argument(
        "--seq-len", type=int, default=4096, help="tokens per sequence (serving: prompt + output)"
    )
    parser.add_argument(
        "--batch", type=int, default=None,
        help="training: sequences per optimizer step (default 1024 pretrain, 64 fine-tune); serving: concurrent users",
    )  # fmt: skip
    parser.add_argument("--precision", default="bf16", choices=Precision.values())
    parser.add_argument(
        "--kv-precision", default=None, choices=Precision.values(), help="KV-cache precision (serving)"
    )
    parser.add_argument("--optimizer", default="adamw", choices=Optimizer.values())
    parser.add_argument("--lora-rank", type=int, default=16)
    parser.add_argument(
        "--tokens", type=float, default=None, help="training tokens (serving: output tokens to serve)"
    )
    parser.add_argument(
        "--tokens-per-second", type=float, default=None, help="serving target, output tokens/s"
    )
    parser.add_argument(
        "--output-len",
        "--output-tokens",
        dest="output_len",
        type=int,
        default=None,
        help=f"serving: tokens generated per request (default {DEFAULT_OUTPUT_LEN}, at most half of --seq-len)",
    )
    parser.add_argument(
        "--prompt-tokens",
        type=int,
        default=None,
        help="serving: tokens per prompt (then --seq-len is prompt + output)",
    )
    load = parser.add_mutually_exclusive_group()
    load.add_argument("--users", type=int, default=None, help="serving: concurrent users (as --batch)")
    load.add_argument(
        "--request-rate", type=float, default=None, help="serving: requests per second, Poisson arrivals"
    )
    parser.add_argument(
        "--ttft-ms", type=float, default=None, help="serving target: time to first token at p90, milliseconds"
    )
    parser.add_argument(
        "--tpot-ms", type=float, default=None, help="serving target: mean time per output token, milliseconds"
    )
    parser.add_argument(
        "--engine", default=None, choices=ENGINES, help="serving engine profile (default vllm)"
    )
    parser.add_argument(
        "--weight-format", default=None, metavar="FORMAT",
        help=f"serving weight format with its real bits: {', '.join(FORMATS)}, or exl2-<2..8> for an EXL2 average "
        "bitrate (int4-g128 = AWQ/GPTQ, awq and gptq say so); default: the precision",
    )  # fmt: skip
    parser.add_argument(
        "--mfu", type=float, default=None, help="model-FLOPs utilisation to assume (default 0.40)"
    )
    parser.add_argument(
        "--bandwidth-fraction", type=float, default=None, help="decode share of peak bandwidth (default 0.8)"
    )
    parser.add_argument(
        "--price-per-gpu-hour", type=float, default=None, help="price per GPU-hour in --currency"
    )
    parser.add_argument(
        "--price-from-quotes", action="store_true",
        help="price each GPU type at the median of your on-demand quotes (else the reference quotes)",
    )  # fmt: skip
    parser.add_argument("--currency", default="USD", help="currency of prices and costs (USD, EUR, RUB)")
    parser.add_argument("--budget", type=float, default=None, help="most the run may cost, in --currency")
    parser.add_argument("--deadline-days", type=float, default=None, help="longest acceptable wall time")
    parser.add_argument("--gpus-per-node", type=int, default=None, help="override the GPU type's node size")
    parser.add_argument(
        "--inter-node-gbps", type=float, default=None, help="network per GPU in Gbit/s (default 400)"
    )
    parser.add_argument(
        "--pod-gpus", type=int, default=None,
        help="GPUs per non-blocking pod of the network's fat tree (with --oversubscription; default: one "
        "non-blocking fabric)",
    )  # fmt: skip
    parser.add_argument(
        "--oversubscription", type=float, default=None,
        help="N of the 1:N oversubscription above the --pod-gpus pods (Llama 3's cluster: 7 above pods of 3,072 "
        "GPUs); all-to-all leaving a pod slows by N, rings barely",
    )  # fmt: skip
    parser.add_argument(
        "--host-ram-gib", type=float, default=None,
        help="CPU RAM per node in GiB, which offloaded training states share (default: 2x the node's GPU memory)",
    )  # fmt: skip
    measured = parser.add_mutually_exclusive_group()
    measured.add_argument(
        "--spec-only", action="store_true", help="datasheet figures only (the default; kept for scripts)"
    )
    measured.add_argument(
        "--measured", action="store_true",
        help="use the newest stored probe run of each GPU type (or give --gpu run:ID for one run)",
    )  # fmt: skip
    parser.add_argument(
        "--memory-headroom", type=float, default=DEFAULT_MEMORY_HEADROOM * 100,
        # %% : argparse %-formats help texts, and a bare "%)" made every `plan --help` crash (found by tests/fuzz)
        help=f"percent of each GPU's memory left free (default {DEFAULT_MEMORY_HEADROOM * 100:.0f}%%)",
    )  # fmt: skip
    add_resilience_arguments(parser)
    pin = parser.add_argument_group("pin part of the strategy")
    pin.add_argument("--dp", type=int, default=None)
    pin.add_argument("--tp", type=int, default=None)
    pin.add_argument("--pp", type=int, default=None)
    pin.add_argument("--ep", type=int, default=None)
    pin.add_argument("--zero", type=int, default=None, choices=[0, 1, 2, 3])
    pin.add_argument("--recompute", default=None, choices=Recompute.values())
    pin.add_argument("--offload", default=None, choices=Offload.values())
    pin.add_argument("--micro-batch", type=int, default=None)
    pin.add_argument(
        "--virtual-stages", type=int, default=None, help="interleaved 1F1B chunks per pipeline rank"
    )
    pin.add_argument(
        "--runtime", default=None, choices=Runtime.values(),
        help="training runtime to plan for (default: the planner chooses one per layout)",
    )  # fmt: skip
    parser.add_argument("--rank-by", default="time", choices=RankBy.choices())
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument(
        "--export", metavar="DIR", default=None, help="write launch configs and a report for the top option"
    )
    parser.add_argument(
        "--probe-shapes", metavar="FILE", default=None,
        help="write the top option's GEMM and attention shapes for gpu-probe --model-shapes FILE",
    )  # fmt: skip
    parser.add_argument("--force", action="store_true", help="let --export and --probe-shapes replace files")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler="planner.cli.plan_cmd:run_plan")  # imported when it runs


def add_resilience_arguments(parser: argparse.ArgumentParser) -> None:
    """Failures, checkpoints, restarts and spot: the goodput term of training options (planner.scale)."""
    group = parser.add_argument_group("failures, checkpoints and spot (training goodput)")
    group.add_argument(
        "--failures-per-million-gpu-hours", type=float, default=None,
        help="job interruptions per million GPU-hours (default: published per GPU type, e.g. 19.7 for H100 "
        "from Llama 3; 0 turns the goodput term off)",
    )  # fmt: skip
    group.add_argument(
        "--checkpoint-storage", default="pfs", choices=STORAGES,
        help="where checkpoints go: pfs (parallel file system, 2 TB/s in all) or nvme (local, 3.5 GB/s per GPU)",
    )  # fmt: skip
    group.add_argument(
        "--checkpoint-gb-per-s", type=float, default=None,
        help="checkpoint write rate per GPU in GB/s (overrides --checkpoint-storage)",
    )  # fmt: skip
    group.add_argument(
        "--restart-minutes", type=float, default=None,
        help="detection + rescheduling + reload per interruption (default: 10 min NCCL timeout + 5 min + reload)",
    )  # fmt: skip
    group.add_argument(
        "--checkpoint-interval-minutes", type=float, default=None,
        help="fixed checkpoint interval (default: Daly's optimum)",
    )  # fmt: skip
    group.add_argument(
        "--spot", action="store_true",
        help="spot capacity: nodes are reclaimed (rate from the quote, --spot-interruptions-per-node-hour, or "
        f"AWS's top band, {DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR:.2g}/h); with --price-from-quotes: spot quotes",
    )  # fmt: skip
    group.add_argument(
        "--spot-interruptions-per-node-hour", type=float, default=None,
        help="spot reclaims per instance-hour (implies --spot)",
    )  # fmt: skip
