"""Communication: collectives as per-call latency plus bytes over the group's bus bandwidth, the link a group
uses (NVLink/NVSwitch inside its domain, PCIe, the inter-node network), and how much of it compute hides.

Bus bandwidth convention (NVIDIA nccl-tests, doc/PERFORMANCE.md): a ring all-reduce moves 2(n-1)/n x S per
rank, all-gather and reduce-scatter (n-1)/n x S of the full buffer, all-to-all (n-1)/n x S.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.gpus import GpuSpec
from planner.perf.efficiencies import LINK_EFFICIENCY, NO_P2P_PENALTY, DeviceRates


def allreduce_time_s(size_bytes: float, ranks: int, bus_bytes_per_s: float, latency_s: float = 0.0) -> float:
    """Ring all-reduce: each rank sends and receives 2(n-1)/n x S (nccl-tests doc/PERFORMANCE.md)."""
    if ranks <= 1 or size_bytes <= 0:
        return 0.0
    return 2 * (ranks - 1) / ranks * size_bytes / bus_bytes_per_s + latency_s


def allgather_time_s(size_bytes: float, ranks: int, bus_bytes_per_s: float, latency_s: float = 0.0) -> float:
    """All-gather or reduce-scatter of a full buffer of S bytes: (n-1)/n x S per rank (nccl-tests)."""
    if ranks <= 1 or size_bytes <= 0:
        return 0.0
    return (ranks - 1) / ranks * size_bytes / bus_bytes_per_s + latency_s


reduce_scatter_time_s = allgather_time_s


def alltoall_time_s(size_bytes: float, ranks: int, bus_bytes_per_s: float, latency_s: float = 0.0) -> float:
    """All-to-all of S bytes per rank: (n-1)/n x S leaves each rank (MoE token dispatch and combine)."""
    return allgather_time_s(size_bytes, ranks, bus_bytes_per_s, latency_s)


def intra_node_bus_bytes_per_s(gpu: GpuSpec, group: int) -> float:
    """Achievable collective bandwidth per GPU for `group` GPUs inside one node.

    NVLink when the whole group sits in one NVLink domain: the published 8-GPU all-reduce busbw where the
    catalog has one, else LINK_EFFICIENCY x one-direction NVLink. Otherwise PCIe (one direction), halved for
    cards without peer-to-peer.
    """
    if gpu.nvlink_bytes_per_s > 0 and group <= gpu.nvlink_domain:
        if gpu.allreduce_busbw_bytes_per_s > 0:
            return gpu.allreduce_busbw_bytes_per_s
        return gpu.nvlink_bytes_per_s / 2 * LINK_EFFICIENCY
    pcie = gpu.pcie_bytes_per_s / 2 * LINK_EFFICIENCY
    return pcie if gpu.p2p else pcie * NO_P2P_PENALTY


@dataclass(frozen=True, slots=True)
class Link:
    """A group's collective path: bus bandwidth per rank and per-call latency; `kind` names the link."""

    bus_bytes_per_s: float
    latency_s: float
    kind: str  # "nvlink" | "pcie" | "network"


def group_link(
    gpu: GpuSpec,
    rates: DeviceRates,
    group: int,
    span_gpus: int,
    gpus_per_node: int,
    inter_node_bytes_per_s: float,
    latency_scale: float,
) -> Link:
    """The link of `group` ranks spread over `span_gpus` consecutive GPUs.

    A group inside one node uses the node's links (a probe's measured bus bandwidth where there is one); a
    group that crosses nodes is limited by the network per GPU. Latency: nccl-tests' 1 KB all-reduce of 8 GPUs
    (planner.perf.efficiencies), x the fitted scale, growing with log2 of the group (tree / ring depth): a 2-GPU
    group costs 4/6 and an 8-GPU group 6/6 of it; across nodes twice (a network hop on every ring step).
    """
    depth = (3.0 + math.log2(max(2, group))) / 6.0
    latency = rates.allreduce_latency_s * latency_scale * depth
    if span_gpus <= gpus_per_node:
        inside_nvlink = gpu.nvlink_bytes_per_s > 0 and span_gpus <= gpu.nvlink_domain
        bandwidth = intra_node_bus_bytes_per_s(gpu, span_gpus)
        if rates.bus_bytes_per_s and inside_nvlink:
            bandwidth = rates.bus_bytes_per_s
        return Link(bandwidth, latency, "nvlink" if inside_nvlink else "pcie")
    network = inter_node_bytes_per_s * LINK_EFFICIENCY
    return Link(min(network, intra_node_bus_bytes_per_s(gpu, gpus_per_node)), 2 * latency, "network")


# A fat tree oversubscribed above its pods (1:N): inside a pod every GPU reaches every other at its own link's
# rate; the links above carry 1/N of what the pod's GPUs could send (Llama 3's RoCE cluster: pods of 3,072 GPUs
# with full bisection bandwidth, 1:7 between the pods, arXiv 2407.21783, section 3.3.1; NVIDIA's DGX SuperPOD
# reference architecture builds a non-blocking rail-optimised fat tree, 1:1). What it costs depends on the
# collective's pattern: a ring (and NCCL's tree, whose subtrees are contiguous ranges of ranks) crosses a pod
# boundary with one flow per rail, while a pod's uplinks carry pod nodes / N flows per rail, so it slows only where
# a pod has fewer nodes than N; an all-to-all sends the share 1 - pod / span of each rank's bytes out of its pod
# through 1/N of the bandwidth, so it slows by that share x N.
@dataclass(frozen=True, slots=True)
class Fabric:
    """The network above the nodes: `pod_gpus` GPUs per non-blocking pod (0: one non-blocking fabric) and the
    oversubscription N of 1:N above the pods."""

    pod_gpus: int = 0
    oversubscription: float = 1.0

    def _crosses(self, span_gpus: int) -> bool:
        return self.pod_gpus > 0 and self.oversubscription > 1 and span_gpus > self.pod_gpus

    def ring_slowdown(self, span_gpus: int, gpus_per_node: int) -> float:
        """How much slower a ring (or tree) collective over `span_gpus` consecutive GPUs moves its bytes."""
        if not self._crosses(span_gpus):
            return 1.0
        pod_nodes = max(1, self.pod_gpus // max(1, gpus_per_node))
        return max(1.0, self.oversubscription / pod_nodes)

    def alltoall_slowdown(self, span_gpus: int) -> float:
        """How much slower an all-to-all over `span_gpus` consecutive GPUs moves its inter-node bytes."""
        if not self._crosses(span_gpus):
            return 1.0
        return max(1.0, (1 - self.pod_gpus / span_gpus) * self.oversubscription)


NON_BLOCKING = Fabric()


def slowed(link: Link, slowdown: float) -> Link:
    """`link` with its bus bandwidth divided by `slowdown` (a Fabric's, for a collective's pattern)."""
    if slowdown == 1.0:
        return link
    return Link(link.bus_bytes_per_s / slowdown, link.latency_s, link.kind)


def exposed_s(
    communication_s: float, hiding_compute_s: float, last_piece_s: float = 0.0, interference: float = 0.0
) -> float:
    """Communication left on the critical path when it runs beside `hiding_compute_s` of independent compute:
    what does not fit behind the compute, and at least the last piece (the final bucket or layer, which has
    nothing left to hide behind), plus the `interference` share of the hidden part that slows the compute."""
    exposed = max(communication_s - hiding_compute_s, min(last_piece_s, communication_s), 0.0)
    return exposed + interference * (communication_s - exposed)


# NCCL's own latency model of a collective across nodes (NVIDIA/nccl, src/graph/tuning.cc at commit 01afd20,
# ncclTopoTuneModel: baseLat and hwLat in microseconds, Simple protocol, the one large buffers use). A ring takes
# one step per rank, 2(n - 1) for an all-reduce and n - 1 for a reduce-scatter or all-gather, of which 2(nodes - 1)
# (nodes - 1) cross the network; a large multi-node ring all-reduce takes 1.9x that ("plateau effect of ring",
# ncclTopoGetAlgoTime). A tree (all-reduce only) climbs and descends log2(nodes) network hops and n / nodes - 1
# links inside each node, at 0.9 of the bus bandwidth. NCCL runs whichever is faster for the size.
NCCL_RING_BASE_S = 8.4e-6
NCCL_RING_STEP_S = {"nvlink": 3.4e-6, "pcie": 5.7e-6, "network": 9.6e-6}
NCCL_RING_PLATEAU = 1.9
NCCL_TREE_STEP_S = {"nvlink": 28e-6, "pcie": 28e-6, "network": 50e-6}
NCCL_TREE_BANDWIDTH = 0.9


def _nodes_of(ranks: int, span_gpus: int, gpus_per_node: int) -> int:
    """The nodes `ranks` ranks spread evenly over `span_gpus` consecutive GPUs sit on."""
    return max(1, min(ranks, math.ceil(span_gpus / max(1, gpus_per_node))))


def multi_node_allreduce_s(
    size_bytes: float,
    ranks: int,
    span_gpus: int,
    gpus_per_node: int,
    bus_bytes_per_s: float,
    intra: str = "nvlink",
) -> float:
    """One all-reduce of `size_bytes` per rank over `ranks` ranks spread across nodes: NCCL's faster of ring and
    tree, each its bandwidth time plus its latency (the constants above)."""
    if ranks <= 1 or size_bytes <= 0:
        return 0.0
    nodes = _nodes_of(ranks, span_gpus, gpus_per_node)
    network = 2 * (nodes - 1)
    ring_latency = NCCL_RING_BASE_S + (2 * (ranks - 1) - network) * NCCL_RING_STEP_S[intra]
    ring_latency += network * NCCL_RING_STEP_S["network"]
    ring = allreduce_time_s(size_bytes, ranks, bus_bytes_per_s) + NCCL_RING_PLATEAU * ring_latency
    per_node = max(1, ranks // nodes)
    tree_latency = 2 * (
        (per_node - 1) * NCCL_TREE_STEP_S[intra] + math.log2(nodes) * NCCL_TREE_STEP_S["network"]
    )
    tree = 2 * size_bytes / (NCCL_TREE_BANDWIDTH * bus_bytes_per_s) + tree_latency
    return min(ring, tree)


def multi_node_gather_latency_s(
    ranks: int, span_gpus: int, gpus_per_node: int, intra: str = "nvlink"
) -> float:
    """The latency of one reduce-scatter or all-gather over `ranks` ranks across nodes: a ring (NCCL has no tree
    for them), n - 1 steps of which nodes - 1 cross the network."""
    if ranks <= 1:
        return 0.0
    nodes = _nodes_of(ranks, span_gpus, gpus_per_node)
    steps, network = ranks - 1, nodes - 1
    return (
        NCCL_RING_BASE_S + (steps - network) * NCCL_RING_STEP_S[intra] + network * NCCL_RING_STEP_S["network"]
    )
