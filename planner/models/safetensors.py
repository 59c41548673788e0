"""safetensors headers: tensor names, dtypes and shapes read without the tensor data, and the parameters each
tensor stands for (packed quantised weights count the values they hold)."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any, TypeGuard

from planner.errors import UserError
from planner.files import open_regular_file
from planner.messages import msg
from planner.models.config_file import cannot_read
from profiler.report import json_int

# The safetensors format: 8 bytes little-endian header length N, then N bytes of JSON, then tensor data.
# The reference implementation refuses headers over 100 MB; so do we.
MAX_SAFETENSORS_HEADER_BYTES = 100_000_000


# A tensor has a handful of dimensions; NumPy 2 allows at most 64 (NPY_MAXDIMS), and so do we. The cap, and
# refusing a shape whose element count passes 2**63 as soon as the running product does, keep the header's
# check linear in its size: math.prod of 300,000 huge dimensions multiplies ever longer integers (quadratic).
MAX_TENSOR_DIMS = 64
MAX_TENSOR_ELEMENTS = 2**63


MAX_INDEX_BYTES = 64 * 2**20  # model.safetensors.index.json: about 100 KiB even for a 671B model


def safetensors_header(path: str | os.PathLike[str]) -> dict[str, tuple[str, tuple[int, ...]]]:
    """{tensor name: (dtype, shape)} from one .safetensors file's JSON header (tensor data is never read)."""
    path = Path(path)
    try:
        with open_regular_file(path) as handle:  # a FIFO named *.safetensors is refused, not waited on
            prefix = handle.read(8)
            if len(prefix) < 8:
                raise UserError.of(msg("error.safetensors_short", path=str(path)))
            header_bytes = int.from_bytes(prefix, "little")
            file_bytes = os.fstat(handle.fileno()).st_size
            if header_bytes > MAX_SAFETENSORS_HEADER_BYTES or header_bytes > file_bytes - 8:
                raise UserError.of(
                    msg("error.safetensors_header", path=str(path), header=header_bytes, size=file_bytes)
                )
            raw = handle.read(header_bytes)
    except OSError as exc:
        raise UserError.of(cannot_read(path, exc)) from None
    try:
        header = json.loads(raw.decode("utf-8"), parse_int=json_int)
    except (UnicodeDecodeError, ValueError, RecursionError):  # ValueError: bad JSON, or a 19-digit integer
        raise UserError.of(msg("error.safetensors_not_json", path=str(path))) from None
    if not isinstance(header, dict):
        raise UserError.of(msg("error.safetensors_not_object", path=str(path)))
    tensors: dict[str, tuple[str, tuple[int, ...]]] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        shape = entry.get("shape") if isinstance(entry, dict) else None
        if not _sane_shape(shape):
            raise UserError.of(msg("error.safetensors_shape", path=str(path), tensor=name))
        dtype = entry.get("dtype") if isinstance(entry, dict) else None
        tensors[name] = (str(dtype), tuple(shape))
    return tensors


def _sane_shape(shape: object) -> TypeGuard[list[int]]:
    """A list of at most MAX_TENSOR_DIMS whole numbers whose product stays below MAX_TENSOR_ELEMENTS."""
    if not isinstance(shape, list) or len(shape) > MAX_TENSOR_DIMS:
        return False
    elements = 1
    for size in shape:
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            return False
        elements *= size
        if elements >= MAX_TENSOR_ELEMENTS:
            return False
    return True


def count_safetensors_params(path: str | os.PathLike[str], quantization: dict[str, Any] | None = None) -> int:
    """Parameters in one .safetensors file, from its header: every tensor's elements, except that packed
    quantised weights count the values they hold and quantisation metadata (scales, zeros, indices) counts
    nothing (see quantised_param_count)."""
    total = 0
    for name, (dtype, shape) in safetensors_header(path).items():
        total += quantised_param_count(name, dtype, shape, quantization or {})
        if total >= 2**63:  # no file holds that many elements; a bigger int would overflow float() later
            raise UserError.of(msg("error.safetensors_shape", path=str(path), tensor=name))
    return total


# Tensors that quantisation adds beside the weights: GPTQ/AWQ zeros, scales and group indices; bitsandbytes'
# absmax, quantisation maps and states, int8 SCB; fp8 and compressed-tensors scales; none is a model parameter.
_QUANT_METADATA = re.compile(
    r"\.(qzeros|scales|g_idx|absmax|quant_map|nested_absmax|nested_quant_map|quant_state\.[\w.]+|SCB|"
    r"weight_format|weight_scale|weight_scale_inv|input_scale|weight_zero_point|weight_g_idx|weight_shape|"
    r"k_scale|v_scale)$"
)


def _quant_bits(quantization: dict[str, Any]) -> int:
    bits = quantization.get("bits") or quantization.get("w_bit")
    if bits is None:  # compressed-tensors: {"config_groups": {"group_0": {"weights": {"num_bits": 4}}}}
        groups = quantization.get("config_groups")
        for group in groups.values() if isinstance(groups, dict) else ():
            weights = group.get("weights") if isinstance(group, dict) else None
            if isinstance(weights, dict) and isinstance(weights.get("num_bits"), int):
                bits = weights["num_bits"]
                break
    return bits if isinstance(bits, int) and 0 < bits <= 32 and 32 % bits == 0 else 4


def quantised_param_count(name: str, dtype: str, shape: tuple[int, ...], quantization: dict[str, Any]) -> int:
    """The model parameters one checkpoint tensor stands for, under the config's quantization_config.

    GPTQ and AWQ pack 32/bits values into each int32 of `*.qweight` (GPTQ along the input rows, AWQ along the
    output columns: the same count); compressed-tensors packs `*.weight_packed` the same way; bitsandbytes 4-bit
    stores two values per uint8 byte; bitsandbytes 8-bit and fp8 store one value per element. Metadata tensors
    (_QUANT_METADATA) hold no parameters. Without a quantization_config every tensor counts its elements.
    """
    elements = math.prod(shape)
    method = str(quantization.get("quant_method", "")).lower()
    if not method:
        return elements
    if _QUANT_METADATA.search(name):
        return 0
    if name.endswith((".qweight", ".weight_packed")) and dtype in ("I32", "U32"):
        return elements * (32 // _quant_bits(quantization))
    four_bit = quantization.get("load_in_4bit") or quantization.get("_load_in_4bit")
    if method == "bitsandbytes" and four_bit and dtype == "U8":
        return elements * 2
    return elements
