"""Serving engine profiles: what an engine does with a load, each figure from the engine's own documentation or
source (docs/sources.md, "Serving engines").

An engine decides four things the performance model needs: whether new requests join a running batch
(continuous / in-flight batching) or wait for the next static batch; how many sequences and tokens one step may
carry (its defaults depend on the GPU's memory for vLLM and SGLang); whether a long prompt is prefilled in chunks
mixed into decode steps (chunked prefill) or in a step of its own; and how much host time each operator costs
(engines that replay CUDA graphs or compiled kernels pay only the GPU's fixed kernel time; eager PyTorch pays its
dispatch and launch per operator as well).

Speculative decoding is not modelled: every engine here is timed decoding one token per sequence per step.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from planner.errors import UserError
from planner.messages import msg

GIB = 1024**3
# Host time of one eager PyTorch operator (dispatch + launch) beyond its GPU time: gpt-fast's Llama-2-7B on an
# A100, bf16 at batch 1, ran at 25.5 tokens/s in eager mode and at 107 tokens/s with torch.compile's CUDA graphs
# (pytorch.org/blog/accelerating-generative-ai-2, 2023-11-30): (1 / 25.5 - 1 / 107) s per token over the
# 32 layers x 35 operators of the eager Llama layer (RMSNorm 6, q/k/v 3, rotary 10, attention 1, output 1,
# residual adds 2, RMSNorm 6, gate/up/act/mul/down 5, plus the head's 1 per token spread over the layers).
EAGER_OPERATORS_PER_LAYER = 35
EAGER_HOST_S_PER_OP = (1 / 25.5 - 1 / 107) / (32 * EAGER_OPERATORS_PER_LAYER)


@dataclass(frozen=True, slots=True)
class EngineProfile:
    """What an engine does with a load (each figure from the engine's documentation).

    continuous_batching: new requests join a running batch (in-flight batching); max_batch: most sequences in
    one step; step_tokens: the token budget of one step (decode tokens + prefill chunks); chunked_prefill: a
    prompt longer than the budget is split over steps that also decode (else a prompt runs in a step of its own
    and the decodes wait); fused: norms, residual adds and rotary fused (fewer kernels per layer); eager: runs
    PyTorch operators one by one from Python (host time per operator, no CUDA graphs); large_gpu: (max_batch,
    step_tokens) on GPUs of at least `large_gpu_gib` GiB (vLLM's and SGLang's defaults grow with memory);
    disaggregation: the engine can run prefill and decode on separate pools (the serving search tries pools only
    then); expert_parallel: the engine can split an MoE model's experts over data-parallel attention ranks;
    gqa_groups: the query heads per KV head its decode attention reads a KV head once for (None: every group);
    source: where the figures come from.
    """

    name: str
    continuous_batching: bool
    max_batch: int
    step_tokens: int
    fused: bool
    source: str
    chunked_prefill: bool = True
    eager: bool = False
    large_gpu: tuple[int, int] | None = None
    large_gpu_gib: float = 70.0
    disaggregation: bool = False
    expert_parallel: bool = False
    gqa_groups: tuple[int, ...] | None = None

    def kv_reads(self, query_heads: int, kv_heads: int) -> int:
        """How many times a decode step reads each KV head's cache: once where the engine has a grouped-query
        decode kernel for this group of query heads per KV head (gqa_groups; None: for every group), else once
        per query head of the group (a masked MHA kernel, one thread block per query head)."""
        group = max(1, query_heads // max(1, kv_heads))
        return 1 if self.gqa_groups is None or group in self.gqa_groups else group

    def limits(self, memory_bytes: int, gpu_name: str = "") -> tuple[int, int]:
        """(max sequences per step, token budget per step) on a GPU of `memory_bytes` (vLLM keeps the small
        defaults on the A100: "Setting large max_num_batched_tokens for A100 reduces throughput", PR 17885)."""
        large = self.large_gpu is not None and memory_bytes >= self.large_gpu_gib * GIB
        if large and self.name == "vllm" and "a100" in gpu_name.lower():
            large = False
        return self.large_gpu if large and self.large_gpu else (self.max_batch, self.step_tokens)

    @property
    def host_s_per_op(self) -> float:
        return EAGER_HOST_S_PER_OP if self.eager else 0.0


ENGINES: dict[str, EngineProfile] = {
    e.name: e
    for e in (
        EngineProfile(
            "vllm",
            True,
            256,
            2048,
            False,
            "vLLM V1 EngineArgs.get_batch_defaults (vllm/engine/arg_utils.py): for the API server max_num_seqs "
            "256 and max_num_batched_tokens 2048, on GPUs of 70 GiB or more (not A100) 1024 and 8192; chunked "
            "prefill always on in V1; PagedAttention, CUDA graphs for decode; disaggregated prefill through its "
            "KV connectors (docs.vllm.ai, Disaggregated Prefilling); expert parallelism with data-parallel attention "
            "(--data-parallel-size N --enable-expert-parallel; docs.vllm.ai, Expert Parallel Deployment)",
            large_gpu=(1024, 8192),
            disaggregation=True,
            expert_parallel=True,
        ),
        EngineProfile(
            "sglang",
            True,
            1024,
            2048,
            True,
            "SGLang server_args.py: chunked_prefill_size 2048 below 35 GB of GPU memory, 8192 below 160 GB, 16384 "
            "above; max_running_requests bounded by the KV pool; FlashInfer kernels with fused norm and rotary, "
            "CUDA graphs; prefill/decode disaggregation (docs.sglang.ai, PD Disaggregation); expert parallelism with "
            "DP attention (--enable-dp-attention --dp-size N --ep-size N; docs.sglang.ai, Expert Parallelism)",
            large_gpu=(1024, 8192),
            large_gpu_gib=35.0,
            disaggregation=True,
            expert_parallel=True,
        ),
        EngineProfile(
            "tensorrt-llm",
            True,
            2048,
            8192,
            True,
            "TensorRT-LLM trtllm-build defaults max_batch_size 2048, max_num_tokens 8192 (TensorRT-LLM docs, "
            "trtllm-build); in-flight batching with chunked context; fused residual + norm and rotary-in-attention "
            "kernels; disaggregated serving (NVIDIA Dynamo)",
            disaggregation=True,
        ),
        EngineProfile(
            "llama.cpp",
            True,
            1,
            2048,
            False,
            "llama.cpp server: one parallel sequence by default (-np 1), logical batch 2048 (-b); ggml runs "
            "each op as its own kernel, replayed as a CUDA graph for single-sequence decode (ggml-cuda, PR 6766, 2024)",
        ),
        EngineProfile(
            "exllamav2",
            True,
            1,
            2048,
            True,
            "ExLlamaV2 dynamic generator: batches jobs with paged flash attention, max_chunk_size 2048 per "
            "prefill chunk; its own fused kernels (quantized matmul, fused MLP and attention projections); "
            "one sequence by default in TabbyAPI",
        ),
        EngineProfile(
            "transformers",
            False,
            1024,
            1_000_000,
            False,
            "Hugging Face transformers generate(): a static batch padded to its longest prompt, decoded until its "
            "longest output ends (no batch limit of its own: 1024 here); eager PyTorch (one kernel launch per operator, no CUDA graphs by default)",
            chunked_prefill=False,
            eager=True,
        ),
        EngineProfile(
            "gpt-fast",
            False,
            1,
            1,
            True,
            "pytorch-labs/gpt-fast: batch 1, torch.compile (pointwise fusion, CUDA graphs)",
            chunked_prefill=False,
        ),
    )
}
DEFAULT_ENGINE = "vllm"
# TensorRT-LLM up to v0.9 decodes grouped-query attention with its XQA kernels only for some groups: "XQA
# optimization ... currently only supports a limited number of model configurations, such as the LLAMA2 70B model"
# (docs/source/advanced/gpt-attention.md of that time); DecoderXQARunner::shouldUse (decoderXQARunner.h, the
# releases before the XQA JIT) refuses every group but 8 query heads per KV head ("if (nbQHeadsPerKV != 8 || ...)
# SUPPORT_RETURN_FALSE("nbHeads")"; later releases add 1 and 16). Other groups run the masked MHA kernel, "a single
# CUDA thread-block per head", each reading its KV head. Later releases compile XQA for any group (the XQA JIT).
TENSORRT_LLM_PRECOMPILED_XQA_GROUPS = (8,)
LAST_TENSORRT_LLM_WITHOUT_XQA_JIT = (0, 9)


def tensorrt_llm_release(version: tuple[int, int]) -> EngineProfile:
    """TensorRT-LLM's profile at release `version` (major, minor): up to v0.9 GQA decode reads a KV head once only
    for the precompiled XQA groups."""
    current = ENGINES["tensorrt-llm"]
    if version > LAST_TENSORRT_LLM_WITHOUT_XQA_JIT:
        return current
    return dataclasses.replace(current, gqa_groups=TENSORRT_LLM_PRECOMPILED_XQA_GROUPS)
ENGINE_ALIASES = {
    "trtllm": "tensorrt-llm", "trt-llm": "tensorrt-llm", "llamacpp": "llama.cpp", "hf": "transformers",
    "huggingface": "transformers", "exllama": "exllamav2", "tabbyapi": "exllamav2",
}  # fmt: skip
# What a serving plan says about speculative decoding (the CLI's serving line, the GUI's serving panel).
SPECULATIVE_DECODING_NOTE = msg("serving.speculative_decoding")


def engine_profile(name: str | None) -> EngineProfile:
    key = (name or DEFAULT_ENGINE).strip().lower().replace("_", "-")
    key = ENGINE_ALIASES.get(key, key)
    found = ENGINES.get(key)
    if found is None:
        choices = ", ".join(ENGINES)
        raise UserError.of(msg("error.unknown_choice", what=msg("choice.engine"), text=name, choices=choices))
    return found
