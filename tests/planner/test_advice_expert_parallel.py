"""The "plain data parallel cannot work" advice of an MoE plan counts the model states of the expert parallelism
its example runs, as the excluded DDP row does (a Mixtral plan with EP 8 said 2.0 TiB per GPU in the advice and
384 GiB in the excluded row)."""

from __future__ import annotations

import re

from planner.gpus import GIB, get_gpu
from planner.models import get_preset, param_counts
from planner.search import plan
from planner.search.types import Constraints, Workload
from planner.vocabulary import Task


def test_ddp_advice_counts_the_example_s_expert_parallel_states():
    model = get_preset("mixtral-8x7b")
    counts = param_counts(model)
    routed = counts.routed_expert * model.experts * model.moe_layers
    ep = 8
    # DDP with EP 8: every parameter but 7/8 of the routed experts, at 16 bytes each at least (bf16 weight and
    # gradient, fp32 master, Adam m and v)
    floor = (model.total_params - routed * (1 - 1 / ep)) * 16
    result = plan(model, Workload(task=Task.PRETRAIN, seq_len=4096, global_batch=256), get_gpu("h100-sxm"),
                  Constraints(gpus=64, pinned={"ep": ep}))  # fmt: skip
    advice = [text for text in result.advice if "cannot work" in text]
    assert advice, result.advice
    stated = float(re.search(r"the model states alone are ([\d.]+) GiB", advice[0]).group(1)) * GIB
    assert floor <= stated <= 1.25 * floor  # not the 46.7 B x 16 bytes of DDP without EP (696 GiB)
