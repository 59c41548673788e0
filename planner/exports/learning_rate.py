"""The learning-rate schedule an exported training run starts with: a peak per task and model size, linear
warmup, cosine decay to a floor. Published recipes, not tuned values (docs/sources.md, "Learning rate"); launch.sh
writes them in as defaults the user overrides (LR=..., WARMUP_STEPS=..., MIN_LR_RATIO=...), and train.py builds
the schedule with torch's LambdaLR for every runner.

- Pretraining: Llama 2 (Touvron et al. 2023, section 2.2 and Table 1): peak 3.0e-4 for the 7B and 13B models,
  1.5e-4 for 34B and 70B; 2,000 warmup steps; cosine decay to 10% of the peak.
- Full fine-tuning: Llama 2's supervised fine-tuning (section 3.1): 2e-5 with a cosine schedule.
- LoRA / QLoRA: the QLoRA paper (Dettmers et al. 2023, Appendix B.2, Table 9): 2e-4 for 7B and 13B models,
  1e-4 for 33B and 65B; warmup over 3% of the steps (its warmup ratio 0.03, also Stanford Alpaca's).
"""

from __future__ import annotations

import math

from planner.vocabulary import Task

# Llama 2 and QLoRA halve the peak between their 13B and 33B/34B models; the line is drawn between them.
LARGE_MODEL_PARAMS = 20e9
PRETRAIN_PEAK = (3.0e-4, 1.5e-4)  # (below LARGE_MODEL_PARAMS, from it): Llama 2 Table 1
FINETUNE_PEAK = 2e-5  # Llama 2 section 3.1
ADAPTER_PEAK = (2e-4, 1e-4)  # QLoRA Table 9
PRETRAIN_WARMUP_STEPS = 2000  # Llama 2 section 2.2
WARMUP_RATIO = 0.03  # QLoRA / Alpaca; also the cap of pretraining's warmup on a short run
MIN_LR_RATIO = 0.1  # Llama 2 section 2.2: cosine decay to 10% of the peak


def peak_learning_rate(task: Task, params: int) -> tuple[float, str]:
    """The published peak for this task at this model size, with where it comes from."""
    large = params >= LARGE_MODEL_PARAMS
    if task == Task.PRETRAIN:
        return PRETRAIN_PEAK[large], "Llama 2 (Touvron et al. 2023) pretraining, Table 1"
    if task.is_adapter:
        return ADAPTER_PEAK[large], "QLoRA (Dettmers et al. 2023), Table 9"
    return FINETUNE_PEAK, "Llama 2 (Touvron et al. 2023) supervised fine-tuning, section 3.1"


def warmup_steps(task: Task, steps: int) -> int:
    """Warmup optimizer steps: 3% of the run, and for pretraining at most Llama 2's 2,000."""
    share = math.ceil(WARMUP_RATIO * max(1, steps))
    return min(PRETRAIN_WARMUP_STEPS, share) if task == Task.PRETRAIN else share
