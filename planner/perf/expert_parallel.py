"""Expert-parallel token traffic of one MoE layer: what its dispatch and combine move, over which links, and
how much of it the compute hides.

Who sends what. Megatron-Core orders an expert layer's ranks expert-tensor-parallel first, then expert parallel
(parallel_state: RankGenerator(tp=expert_tensor_parallel_size, ep=..., order "tp-cp-ep-dp-pp")), and its MoE
recipes run the experts without tensor parallelism (--expert-tensor-parallel-size 1, Megatron-MoE-ModelZoo).
With sequence parallel each tensor-parallel rank then routes the 1/tp shard of the micro-batch it holds, and an
EP group is `ep` consecutive GPUs: EP 8 is one 8-GPU node whatever tp is. Without sequence parallel the experts
follow the tensor split (each rank of a tp group sends the whole micro-batch) and the group spans ep x tp GPUs.

How much leaves the GPU. With routing balanced over the experts (the auxiliary loss keeps it so), a token's k
copies land on each GPU of the group alike: a share (g - 1) / ep on other GPUs of its own node (g = the group's
GPUs per node) and (ep - g) / ep on other nodes. A dispatcher that sends a token once per destination node and
forwards it inside that node over NVLink (DeepEP's internode kernels; DeepSeek-V3 technical report, arXiv
2412.19437, section 3.2.2) sends instead, per token, the expected number of other nodes its k experts fall on:
(N - 1) x (1 - C(E - E/N, k) / C(E, k)) for E experts spread evenly over N nodes. The combine returns the same
volume. The NVLink and network parts run at once: the slower one sets the time.

Load. Routing balanced in expectation still leaves one rank of the group busier than the mean in each micro-batch:
the slowest rank's share (slowest_rank_load) scales the routed experts' GEMMs and the all-to-all.

Overlap. With the all-to-all of one micro-batch run behind another micro-batch's compute (Megatron-Core
--overlap-moe-expert-parallel-comm, the 1F1B A2A overlap; DualPipe in the DeepSeek-V3 report, section 3.2.1),
what the compute cannot hide stays exposed (communication.exposed_s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from planner.perf.communication import Link

DISPATCH_AND_COMBINE = 4  # forward dispatch + combine, and both again in the backward


@dataclass(frozen=True, slots=True)
class ExpertTraffic:
    """Copies of one routed token's hidden vector that leave its GPU in one dispatch: to other GPUs of its node
    (over NVLink) and to other nodes (over the network)."""

    intra_node: float
    inter_node: float


def group_span(ep: int, tp: int, sequence_parallel: bool) -> int:
    """Consecutive GPUs an EP group spans: ep when each tensor-parallel rank routes its own shard, else ep x tp."""
    return ep if sequence_parallel else ep * tp


def routed_tokens(tokens: float, tp: int, sequence_parallel: bool) -> float:
    """Tokens one rank dispatches per micro-batch: its sequence-parallel shard, or the whole micro-batch."""
    return tokens / tp if sequence_parallel else tokens


def slowest_rank_load(routed_per_rank: float, ep: int, top_k: int) -> float:
    """How much more routed work the busiest rank of an EP group gets than the mean, in one micro-batch, with routing
    balanced in expectation (each token-expert pair lands on a rank uniformly at random; module docstring).

    A = routed_per_rank x ep x top_k pairs fall on ep ranks: each rank's count is Binomial(A, 1/ep), mean A/ep and
    standard deviation sqrt(A (1/ep)(1 - 1/ep)), close to Gaussian at these counts. The busiest of the ep ranks
    sits expected_max_normal(ep) standard deviations above the mean, so the load is
    1 + expected_max_normal(ep) sqrt((ep - 1) / A). Dropless MoE (Megatron-Core's default, torchtitan, MegaBlocks:
    Gale et al., arXiv 2211.15841) computes every routed token, so the busiest rank sets the layer's time, both its
    expert GEMMs and the all-to-all it receives. A learned router is less even than random: this is a floor."""
    pairs = routed_per_rank * ep * top_k
    if ep <= 1 or pairs <= 0:
        return 1.0
    return 1.0 + expected_max_normal(ep) * math.sqrt((ep - 1) / pairs)


def padded_expert_load(capacity_factor: float) -> float:
    """The expert work of a token-dropping MoE over the mean routed load: GShard's dispatch (Lepikhin et al. 2020,
    arXiv 2006.16668, section 2.2) and DeepSpeed-MoE's (deepspeed/moe/sharded_moe.py: capacity =
    ceil(tokens / experts x capacity_factor), x 2 for top-2; tokens dispatched by einsum into an
    [experts, capacity, hidden] tensor) give every expert a buffer of C x its mean load, filled or padded, and the
    all-to-all moves that fixed-size tensor: every rank computes and sends C x the mean, whatever the routing."""
    return capacity_factor


@lru_cache(maxsize=64)
def expected_max_normal(n: int) -> float:
    """E[max of n independent standard normal variables] = integral of x n phi(x) Phi(x)^(n-1) dx (the density of
    the maximum of n draws), by the midpoint rule over [-10, 10]: 0.564 for 2 (1 / sqrt(pi)), 1.424 for 8, 2.070 for 32."""
    if n <= 1:
        return 0.0
    steps, low, high = 4000, -10.0, 10.0
    width = (high - low) / steps
    total = 0.0
    for i in range(steps):
        x = low + (i + 0.5) * width
        density = math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
        below = 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))
        total += x * n * density * below ** (n - 1) * width
    return total


def traffic(
    experts: int, top_k: int, ep: int, span: int, gpus_per_node: int, per_node_dispatch: bool
) -> ExpertTraffic:
    """The copies of one token that leave its GPU, by path (module docstring)."""
    if ep <= 1 or top_k <= 0:
        return ExpertTraffic(0.0, 0.0)
    nodes = max(1, math.ceil(span / gpus_per_node))
    local = ep / nodes  # the group's GPUs in one node
    intra = top_k * (local - 1) / ep
    if nodes == 1:
        return ExpertTraffic(intra, 0.0)
    if per_node_dispatch:
        per_node = experts / nodes
        missed = _choose(experts - per_node, top_k) / _choose(experts, top_k)
        return ExpertTraffic(intra, (nodes - 1) * (1 - missed))
    return ExpertTraffic(intra, top_k * (ep - local) / ep)


def _choose(n: float, k: int) -> float:
    """C(n, k) for a real n (n experts per node need not be whole when E does not divide evenly)."""
    if n < k:
        return 0.0
    value = 1.0
    for i in range(k):
        value *= (n - i) / (k - i)
    return value


def alltoall_seconds(
    token_bytes: float, tokens: float, copies: ExpertTraffic, nvlink: Link, network: Link
) -> float:
    """One dispatch (or combine) of `tokens` tokens of `token_bytes` each: the slower of the two paths, plus the
    latency of the path that carries the call."""
    inside = tokens * copies.intra_node * token_bytes / nvlink.bus_bytes_per_s
    if copies.inter_node <= 0:
        return inside + nvlink.latency_s
    across = tokens * copies.inter_node * token_bytes / network.bus_bytes_per_s
    return max(inside, across) + network.latency_s
