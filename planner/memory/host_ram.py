"""The CPU RAM a node offers to offloaded training states, and what a layout asks of it.

Offload (DeepSpeed ZeRO-Offload / ZeRO-Infinity, FSDP2's CPUOffloadPolicy) moves the fp32 master weights, Adam
moments and fp32 gradients (and with parameter offload the weights too) to the host: a 70B fine-tune under
ZeRO-3 with everything offloaded keeps about 16-18 bytes per parameter, over 1 TB, in the RAM of the nodes. The
GPUs of one node share its RAM, so a layout fits only when every GPU's offloaded bytes together fit there.
"""

from __future__ import annotations

import math

# The host RAM assumed per node when the user states none: twice the node's GPU memory. NVIDIA's DGX H100 and
# DGX A100 carry 2 TB of system memory for 640 GB of GPU memory (3.2x), DGX B200 2 TB for 1,440 GB (1.4x); AWS
# p5.48xlarge 2 TiB for 8 x 80 GB (3.2x). The factor is an assumption between them (docs/sources.md);
# `plan --host-ram-gib` states the real figure.
HOST_RAM_PER_GPU_MEMORY = 2.0


def node_host_ram_bytes(stated: int | None, gpu_memory_bytes: int, gpus_per_node: int) -> int:
    """The node's host RAM in bytes: the stated figure, else HOST_RAM_PER_GPU_MEMORY x its GPUs' memory."""
    if stated is not None:
        return stated
    return math.floor(HOST_RAM_PER_GPU_MEMORY * gpu_memory_bytes * gpus_per_node)


def gpus_sharing_a_node(gpus: int, gpus_per_node: int) -> int:
    """How many of a plan's GPUs share the fullest node's RAM: whole nodes first, a smaller plan in one node."""
    return max(1, min(gpus, gpus_per_node))


def host_room_per_gpu(node_bytes: int, gpus: int, gpus_per_node: int) -> float:
    """The host RAM each GPU of a `gpus`-GPU plan may fill with offloaded states."""
    return node_bytes / gpus_sharing_a_node(gpus, gpus_per_node)
