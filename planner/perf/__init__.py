"""The performance model: step time and serving throughput from operators, with a few physical constants.

Rooms: efficiencies (what a GPU achieves of its datasheet: sourced per GPU, plus the fitted constants), compute
(GEMMs at real shapes, flash attention), memory_ops (norms, activations, rotary, residuals, loss, optimizer,
dequantisation), communication (collectives with latency and bus bandwidth, what compute hides), schedules
(1F1B, interleaved), training (the step), engines (serving engine profiles), serving (one engine step),
serving_load (prefill and decode phases, TTFT and TPOT at a load, static vs continuous batching), queueing (the
M/D/1 wait before the prefill),
formats (weight formats' real bits), calibration (probe measurements replace sourced figures), flops (model
FLOPs for MFU). Pure functions over frozen dataclasses; units in the names.

Confidence labels (planner.vocabulary.Confidence): "measured" when a probe measured this GPU type, "user-set"
when the user typed the MFU or a bandwidth fraction, "catalog spec" otherwise.
"""

from planner.perf.bands import BandTable, band_keys, option_keys, shipped_bands
from planner.perf.calibration import (
    Calibration,
    ProbeMeasurements,
    apply_calibration,
    calibration_from_report,
    probe_shapes,
)
from planner.perf.communication import (
    allgather_time_s,
    allreduce_time_s,
    alltoall_time_s,
    group_link,
    intra_node_bus_bytes_per_s,
    reduce_scatter_time_s,
)
from planner.perf.efficiencies import (
    DEFAULT_INTER_NODE_BYTES_PER_S,
    LINK_EFFICIENCY,
    NO_P2P_PENALTY,
    SHIPPED,
    DeviceRates,
    FittedConstants,
    architecture,
    device_rates,
)
from planner.perf.engines import (
    DEFAULT_ENGINE,
    ENGINES,
    SPECULATIVE_DECODING_NOTE,
    EngineProfile,
    engine_profile,
    tensorrt_llm_release,
)
from planner.perf.flops import (
    BACKWARD_FLOPS_PER_PARAM,
    FORWARD_FLOPS_PER_PARAM,
    ModelNumbers,
    model_numbers,
    narayanan_flops_per_step,
    training_flops_per_token,
)
from planner.perf.formats import FORMATS, WeightFormat, weight_format
from planner.perf.queueing import Wait, md1_wait, stepped_wait
from planner.perf.schedules import Schedule, pipeline_bubble_fraction
from planner.perf.serving import Replica, kv_bytes_read, max_concurrent_sequences, step_seconds
from planner.perf.serving_load import (
    EMPTY_LOAD,
    BatchingLoss,
    ServingLoad,
    continuous_batching,
    serve,
    single_stream,
    static_batching,
    static_batching_loss,
    uniform_output_lengths,
)
from planner.perf.training import MicrobatchFloor, StageTime, StepModel, stage_floor_s, training_step_time
from planner.perf.training_terms import (
    CPU_ADAM_PARAMS_PER_S,
    SharedWork,
    StepTime,
    TrainingOptions,
    offload_assumption,
    offload_time_s,
)

# The GUI shows these as the placeholders of its "MFU" and "bandwidth fraction" overrides. The model computes
# compute time from operators and needs neither; a value the user types replaces the operator model's compute
# (a flat MFU) or the copy bandwidth. 0.40: Llama 3 405B trained at 38-43 % BF16 MFU on 8-16K H100 (arXiv
# 2407.21783, Table 4); 0.80: decode engines' share of peak bandwidth (gpt-fast 69-73 % on a 330 W A100).
DEFAULT_MFU = 0.40
DEFAULT_BANDWIDTH_FRACTION = 0.80
INTER_NODE_SOURCE = (
    "inter-node: one 400 Gb/s InfiniBand link per GPU (DGX H100 design), 50 GB/s per direction"
)

# Older names kept for callers (the desktop, exports): the rates of one GPU and how they are made.
Rates = DeviceRates
effective_rates = device_rates

__all__ = [
    "BandTable",
    "band_keys",
    "option_keys",
    "shipped_bands",
    "BACKWARD_FLOPS_PER_PARAM",
    "CPU_ADAM_PARAMS_PER_S",
    "DEFAULT_BANDWIDTH_FRACTION",
    "DEFAULT_ENGINE",
    "DEFAULT_INTER_NODE_BYTES_PER_S",
    "DEFAULT_MFU",
    "EMPTY_LOAD",
    "ENGINES",
    "FORMATS",
    "FORWARD_FLOPS_PER_PARAM",
    "INTER_NODE_SOURCE",
    "LINK_EFFICIENCY",
    "NO_P2P_PENALTY",
    "SHIPPED",
    "BatchingLoss",
    "Calibration",
    "DeviceRates",
    "EngineProfile",
    "FittedConstants",
    "MicrobatchFloor",
    "ModelNumbers",
    "ProbeMeasurements",
    "Rates",
    "Replica",
    "SPECULATIVE_DECODING_NOTE",
    "Schedule",
    "ServingLoad",
    "SharedWork",
    "StageTime",
    "StepModel",
    "StepTime",
    "TrainingOptions",
    "WeightFormat",
    "allgather_time_s",
    "allreduce_time_s",
    "alltoall_time_s",
    "apply_calibration",
    "architecture",
    "calibration_from_report",
    "continuous_batching",
    "device_rates",
    "effective_rates",
    "engine_profile",
    "tensorrt_llm_release",
    "group_link",
    "intra_node_bus_bytes_per_s",
    "kv_bytes_read",
    "probe_shapes",
    "max_concurrent_sequences",
    "model_numbers",
    "narayanan_flops_per_step",
    "offload_assumption",
    "offload_time_s",
    "pipeline_bubble_fraction",
    "reduce_scatter_time_s",
    "serve",
    "single_stream",
    "stage_floor_s",
    "static_batching",
    "static_batching_loss",
    "step_seconds",
    "training_flops_per_token",
    "training_step_time",
    "uniform_output_lengths",
    "Wait",
    "md1_wait",
    "stepped_wait",
    "weight_format",
]
