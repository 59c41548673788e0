"""The files a fuzz test's sandbox folder starts with, so generated names find something real to open."""

from __future__ import annotations

import json
import shlex
import struct
import sys
from pathlib import Path

from tests.fuzz.strategies import LLAMA, SAFETENSORS_BASE, base_report

FAKE_PROBE = Path(__file__).with_name("fake_probe_child.py")
RENTAL_CSV = (
    "provider,offer,gpu,gpus_per_instance,price_per_gpu_hour,currency,kind,quoted_on,note\n"
    "Lambda,gpu_8x_h100,h100-sxm,8,2.99,USD,on-demand,2026-09-10,first\n"
    "RunPod,,a100-sxm-80gb,1,1.64,USD,spot,2026-09-11,second\n"
)
PURCHASE_CSV = (
    "vendor,gpu,gpus,price,currency,quoted_on,server_overhead_fraction,power_w\n"
    "Reseller,h100-sxm,8,240000,USD,2026-09-10,0.25,700\n"
)


def safetensors_bytes(header: dict) -> bytes:
    body = json.dumps(header).encode()
    return struct.pack("<Q", len(body)) + body


def write_model_folder(folder: Path, config: dict | bytes, shards: tuple[bytes, ...] = ()) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = config if isinstance(config, bytes) else json.dumps(config).encode()
    (folder / "config.json").write_bytes(data)
    for index, shard in enumerate(shards):
        (folder / f"model-{index:05d}.safetensors").write_bytes(shard)
    return folder


def populate(folder: Path) -> None:
    """(Re)write the fixture files a generated argument may name; missing ones come back, others stay."""
    files = {
        "quotes.csv": RENTAL_CSV.encode(),
        "purchase.csv": PURCHASE_CSV.encode(),
        "report.json": json.dumps(base_report()).encode(),
        "notes.txt": b"my notes, not a database\n",
        "config.json": json.dumps(LLAMA).encode(),
    }
    for name, data in files.items():
        path = folder / name
        if not path.is_file() or path.read_bytes() != data:
            if path.is_dir():
                continue
            path.write_bytes(data)
    model = folder / "model"
    if not (model / "config.json").is_file():
        write_model_folder(model, LLAMA, (safetensors_bytes(SAFETENSORS_BASE),))


def fake_probe_command() -> str:
    """GPU_ADVISOR_PROBE_CMD for the fake child above."""
    return shlex.join([sys.executable, str(FAKE_PROBE)])
