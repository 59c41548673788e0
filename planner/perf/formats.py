"""Weight formats for serving: the real bits a stored weight takes (scales and zero points included) and
whether a kernel must dequantise it (integer formats) before the multiply.

Bits per weight are the formats' own layouts:
- fp16 / bf16 16; fp8 8 (one scale per tensor: nothing per weight); int8 weight-only 8 (one fp16 scale per
  output channel: under 0.01 bits);
- GPTQ and AWQ int4 with group size g: 4 bits plus an fp16 scale and a zero point per group, 4 + 32 / g
  (Frantar et al., arXiv 2210.17323; Lin et al., arXiv 2306.00978; group 128 is both papers' default);
  gpt-fast's int4 (group 32, a bf16 scale and zero per group): 4 + 32/32 = 5;
- GGUF (ggml-org/llama.cpp, ggml/src/ggml-common.h block layouts): Q8_0 = blocks of 32 int8 + one fp16 scale,
  34 bytes / 32 = 8.5 bits; Q4_0 = 32 nibbles + an fp16 scale, 18 / 32 = 4.5 bits; Q4_K_M = Q4_K super-blocks
  (4.5 bits) with the attention V and FFN down tensors in Q6_K (6.5625 bits), 4.85 bits on Llama-2-7B (llama.cpp
  README, quantization table: 3.80 GiB for 6.74 B parameters = 4.84 bits);
- EXL2 (turboderp/exllamav2, README "EXL2 quantization"): a mix of 2- to 8-bit GPTQ-style layers reaching a
  stated average bitrate between 2 and 8 bits per weight: `exl2-<bpw>` (e.g. exl2-4.0) takes that average as
  stored, scales included.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.errors import UserError
from planner.messages import msg


@dataclass(frozen=True, slots=True)
class WeightFormat:
    name: str
    bits_per_weight: float
    integer: bool  # dequantised by the kernel's integer ALUs (weight-only); False: read as stored
    description: str


FORMATS: dict[str, WeightFormat] = {
    f.name: f
    for f in (
        WeightFormat("fp32", 32.0, False, "32-bit float"),
        WeightFormat("bf16", 16.0, False, "bfloat16"),
        WeightFormat("fp16", 16.0, False, "float16"),
        WeightFormat("fp8", 8.0, False, "fp8 e4m3, per-tensor scale"),
        WeightFormat("int8", 8.0, True, "int8 weight-only, per-channel scale"),
        WeightFormat("int4", 4.25, True, "int4 weight-only, GPTQ/AWQ group 128"),
        WeightFormat("int4-g128", 4.25, True, "int4 weight-only, GPTQ/AWQ group 128"),
        WeightFormat("int4-g64", 4.5, True, "int4 weight-only, group 64"),
        WeightFormat("int4-g32", 5.0, True, "int4 weight-only, group 32 (gpt-fast)"),
        WeightFormat("q8_0", 8.5, True, "GGUF Q8_0 (blocks of 32, fp16 scale)"),
        WeightFormat("q4_0", 4.5, True, "GGUF Q4_0 (blocks of 32, fp16 scale)"),
        WeightFormat("q4_k_m", 4.85, True, "GGUF Q4_K_M (Q4_K with Q6_K for attention V and FFN down)"),
    )
}
ALIASES = {"awq": "int4-g128", "gptq": "int4-g128", "awq-g128": "int4-g128", "gptq-g128": "int4-g128"}


EXL2_BITS = (
    2.0,
    8.0,
)  # the bitrates EXL2's converter reaches (README: "any average bitrate between 2 and 8")


def weight_format(name: str | None, precision: str) -> WeightFormat:
    """The format named (or the precision's own: bf16, fp8, int8, int4 = group 128; exl2-<bits>); UserError if
    unknown."""
    key = (name or precision).strip().lower()
    key = ALIASES.get(key, key)
    found = FORMATS.get(key) or _exl2(key)
    if found is None:
        choices = ", ".join([*FORMATS, *ALIASES, "exl2-<2..8>"])
        raise UserError.of(
            msg("error.unknown_choice", what=msg("choice.weight_format"), text=name, choices=choices)
        )
    return found


def _exl2(key: str) -> WeightFormat | None:
    """exl2-<bits>: EXL2 at that average bitrate (2 to 8 bits per weight), dequantised by its kernels."""
    prefix, _, bits = key.partition("-")
    if prefix != "exl2":
        return None
    try:
        value = float(bits)
    except ValueError:
        return None
    low, high = EXL2_BITS
    if not low <= value <= high:
        return None
    return WeightFormat(key, value, True, f"EXL2 at {value:g} bits per weight (average, scales included)")
