"""A torchrun worker that fails the way a broken rank does: rank 1 raises, rank 0 then loses its peer.

Run by tests/profiler/test_collectives.py under a real torchrun (gloo on CPU), so the error-line extraction is
checked against torchrun's real output: rank 0's "Connection closed by peer" is a consequence, rank 1's error is
the root cause torchrun names.
"""

import torch.distributed as dist

dist.init_process_group("gloo")
if dist.get_rank() == 1:
    raise RuntimeError("rank one lost its NIC: unhandled system error (run with NCCL_DEBUG=INFO for details)")
dist.barrier()  # rank 0 waits here and fails when rank 1 dies
dist.destroy_process_group()
