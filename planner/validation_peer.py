"""NVIDIA's AIConfigurator as a peer in `gpu-advisor validate`: for each serving case on a system, engine and
model shape it models, its prediction of the published figure beside ours.

AIConfigurator (`pip install aiconfigurator`, the `peer` extra) predicts serving from operator timings NVIDIA
measured per GPU and engine version (its SILICON database); it runs offline. It is optional: without it the
column reads "not installed". It is given what our prediction is given: the case's GPU, engine, tensor-parallel
size, prompt and output lengths, the weight / KV precision, and the same load (the stated batch, or for in-flight
batching the sequences our model found to fit, with the engine's token budget per step). The model goes to it as
a Hugging Face config.json written from the case's shape (Llama and Mixtral layouts: what its model library
reads), so a Llama 2 case is Llama 2, not a stand-in.

Pure apart from AIConfigurator's own files: no printing (planner/cli/validate_cmd.py prints).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planner.models import ModelSpec
from planner.perf import SHIPPED
from planner.validation_cases import Case
from planner.validation_predict import serving_load
from planner.vocabulary import Precision

PACKAGE = "aiconfigurator"
OOM_RETRIES = 4
# Our catalog's GPU ids -> AIConfigurator's system names (aiconfigurator_core/systems/*.yaml).
SYSTEMS = {"h100-sxm": "h100_sxm", "h200-sxm": "h200_sxm", "a100-sxm-80gb": "a100_sxm", "l40s": "l40s",
           "h100-pcie": "h100_pcie", "b200-sxm": "b200_sxm", "l4": "l4", "a30": "a30"}  # fmt: skip
# Our engine names -> its backends (it models only these three).
BACKENDS = {"tensorrt-llm": "trtllm", "vllm": "vllm", "sglang": "sglang"}
# A case's precision -> its (GEMM, KV cache, attention) quantisation modes. 16-bit runs are all bfloat16 to it
# (it has no float16 GEMM tables; the two run at the same rate on these GPUs).
QUANT_MODES = {
    Precision.FP8: ("fp8", "fp8", "fp8"),
    Precision.BF16: ("bfloat16", "bfloat16", "bfloat16"),
    Precision.FP16: ("bfloat16", "bfloat16", "bfloat16"),
    Precision.INT8: ("int8_wo", "bfloat16", "bfloat16"),
    Precision.INT4: ("int4_wo", "bfloat16", "bfloat16"),
}
# Our published metrics -> its result fields, and the factor to our unit (it reports milliseconds).
METRICS = {
    "output_tokens_per_s": ("tokens_per_second", 1.0),
    "output_tokens_per_s_per_gpu": ("tokens_per_second_per_gpu", 1.0),
    "output_tokens_per_s_per_user": ("tokens_per_second_per_user", 1.0),
    "tpot_s": ("tpot", 1e-3),
    "ttft_s": ("ttft", 1e-3),
}


@dataclass(frozen=True, slots=True)
class PeerRequest:
    """One AIConfigurator estimate: cli_estimate's arguments for a case, and the field that answers it."""

    config: dict[str, object]  # the Hugging Face config.json of the case's model
    system: str
    backend: str
    mode: str  # "agg" (in-flight batching) or "static" (a static batch)
    isl: int
    osl: int
    batch: int
    ctx_tokens: int
    tp: int
    quant: tuple[str, str, str]
    moe: bool
    field: str
    scale: float


def installed() -> bool:
    return importlib.util.find_spec(PACKAGE) is not None


def peer_request(case: Case) -> PeerRequest | str:
    """The estimate that answers `case`, or why AIConfigurator cannot (a phrase)."""
    inputs = case.inputs
    if inputs is None or inputs.serving is None:
        return "not a serving case"
    serving = inputs.serving
    system, backend = SYSTEMS.get(inputs.gpu.id), BACKENDS.get(serving.engine)
    if system is None:
        return f"no tables for {inputs.gpu.id}"
    if backend is None:
        return f"does not model {serving.engine}"
    config = hf_config(inputs.model)
    if config is None:
        return f"does not model the {inputs.model.family} layout"
    quant = QUANT_MODES.get(inputs.precision)
    metric = METRICS.get(case.published.metric)
    if quant is None or metric is None or (inputs.model.experts and quant[0] == "int8_wo"):
        return f"no {inputs.precision} / {case.published.metric} estimate"
    replica, load = serving_load(case, SHIPPED)
    inflight = serving.scheduling == "inflight"
    return PeerRequest(
        config=config, system=system, backend=backend, mode="agg" if inflight else "static",
        isl=serving.prompt_len, osl=serving.output_len, batch=load.concurrency, ctx_tokens=replica.limits[1],
        tp=serving.tp, quant=quant, moe=inputs.model.experts > 0, field=metric[0], scale=metric[1],
    )  # fmt: skip


def hf_config(model: ModelSpec) -> dict[str, object] | None:
    """The Hugging Face config.json of a Llama- or Mixtral-shaped model (a gated MLP, RMSNorm, no biases, no
    MLA), which AIConfigurator reads as LlamaForCausalLM / MixtralForCausalLM; None for other layouts."""
    plain = model.gated_mlp and model.norm == "rmsnorm" and not model.attn_bias and not model.mlp_bias
    if not plain or model.uses_mla or model.shared_experts or model.dense_layers:
        return None
    config: dict[str, object] = {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": model.hidden,
        "intermediate_size": model.ffn, "num_attention_heads": model.heads, "num_key_value_heads": model.kv_heads,
        "head_dim": model.head_dim, "num_hidden_layers": model.layers, "vocab_size": model.vocab,
        "max_position_embeddings": model.max_context, "tie_word_embeddings": model.tied_embeddings,
        "torch_dtype": "bfloat16", "hidden_act": "silu", "rms_norm_eps": 1e-5,
    }  # fmt: skip
    if model.experts:
        config |= {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral",
                   "intermediate_size": model.moe_ffn or model.ffn, "num_local_experts": model.experts,
                   "num_experts_per_tok": model.experts_per_token}  # fmt: skip
    return config


def estimate(request: PeerRequest) -> float:
    """AIConfigurator's figure for `request`, in our metric's unit (raises what AIConfigurator raises)."""
    api: Any = importlib.import_module("aiconfigurator.cli.api")
    gemm, kv, fmha = request.quant
    moe = {"moe_tp_size": request.tp, "moe_ep_size": 1, "moe_quant_mode": gemm} if request.moe else {}
    with tempfile.TemporaryDirectory(prefix="gpu-advisor-peer-") as folder:
        (Path(folder) / "config.json").write_text(json.dumps(request.config), encoding="utf-8")
        result = api.cli_estimate(
            folder, request.system, mode=request.mode, backend_name=request.backend, isl=request.isl,
            osl=request.osl, batch_size=request.batch, ctx_tokens=request.ctx_tokens, tp_size=request.tp,
            gemm_quant_mode=gemm, kvcache_quant_mode=kv, fmha_quant_mode=fmha, **moe,
        )  # fmt: skip
    return float(getattr(result, request.field)) * request.scale


@dataclass(frozen=True, slots=True)
class PeerResult:
    """AIConfigurator on one case: its figure (None: it gave none) at `batch` sequences, or why not."""

    value: float | None
    batch: int = 0
    reason: str = ""


def peer_result(case: Case) -> PeerResult:
    """AIConfigurator's prediction of `case`. Where its memory model finds our batch does not fit (it keeps
    more memory aside than ours), the batch is halved until it fits by its own count (at most OOM_RETRIES times):
    its figure at the load it would run."""
    request = peer_request(case)
    if isinstance(request, str):
        return PeerResult(None, reason=request)
    for _ in range(OOM_RETRIES + 1):
        try:
            return PeerResult(estimate(request), request.batch)
        except Exception as error:  # noqa: BLE001 - a peer's failure on one case is reported, not fatal
            text = str(error).splitlines()[0] if str(error) else type(error).__name__
            if not text.startswith("OOM") or request.batch <= 1:
                return PeerResult(None, request.batch, f"failed: {text[:100]}")
            request = replace(request, batch=request.batch // 2)
    return PeerResult(None, request.batch, "does not fit by its memory count")


def peer_results(cases: Iterable[Case]) -> dict[str, PeerResult]:
    """Per case id: AIConfigurator's result. Its log is quietened (it warns on every call)."""
    if not installed():
        return {case.id: PeerResult(None, reason="not installed") for case in cases}
    for name in (PACKAGE, f"{PACKAGE}_core"):
        logging.getLogger(name).setLevel(logging.ERROR)
    return {case.id: peer_result(case) for case in cases}
