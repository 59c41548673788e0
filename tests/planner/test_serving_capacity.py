"""How many sequences a serving plan holds: what the engine holds (planner.search.serving.fitting_sequences).

A serving engine keeps its weights, a forward's activation workspace and a paged KV cache; each running sequence
adds its KV cache for its whole prompt + output, not a prefill of its own. The expectations are hand counts of
the KV cache and the memory model's own total at one sequence.
"""

from __future__ import annotations

from planner.gpus import get_gpu
from planner.memory import MemoryConfig, estimate_memory
from planner.models import get_preset
from planner.search import plan
from planner.search.types import Constraints, Workload
from planner.vocabulary import Layout, Precision, Task

# Llama-2-70B: 2 (K, V) x 80 layers x 8 KV heads x 128 values per token, 1 byte each in fp8.
KV_BYTES_PER_TOKEN_FP8 = 2 * 80 * 8 * 128


def test_a_serving_plan_holds_what_the_engine_holds():
    model, gpu = get_preset("llama-2-70b"), get_gpu("h200-sxm")
    tokens = 128 + 2048
    workload = Workload(task=Task.INFERENCE, seq_len=tokens, output_len=2048, precision=Precision.FP8,
                        kv_precision=Precision.FP8, engine="tensorrt-llm", concurrent_users=2000)  # fmt: skip
    constraints = Constraints(gpus=1)
    option = plan(model, workload, [gpu], constraints).options[0]
    kv = KV_BYTES_PER_TOKEN_FP8 * tokens  # 356,515,840 bytes a sequence
    one = estimate_memory(model, MemoryConfig(task=Task.INFERENCE, precision=Precision.FP8,
                                              kv_precision=Precision.FP8, seq_len=tokens, layout=Layout()))  # fmt: skip
    assert one.kv_cache.bytes == kv
    usable = constraints.usable_bytes(gpu)
    assert option.max_concurrent_sequences == (usable - (one.total_bytes - kv)) // kv
    # the option's memory: one sequence's total and the KV caches of the others, inside the usable memory
    batch = option.batch_per_replica
    assert batch == option.max_concurrent_sequences  # 2,000 users: every slot is taken
    assert option.memory.kv_cache.bytes == batch * kv
    assert option.memory.total_bytes == one.total_bytes + (batch - 1) * kv <= usable
    # by hand: (141e9-class H200, 150.75e9 bytes less 10 % headroom = 135.7e9) - 69e9 of fp8 weights leaves
    # room for at most 187 caches of 0.357e9; TensorRT-LLM v0.7a ran 192 on the whole GPU
    assert 150 <= batch <= 187
