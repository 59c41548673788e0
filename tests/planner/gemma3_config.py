"""google/gemma-3-4b-it's config.json shapes (huggingface.co/google/gemma-3-4b-it): a SigLIP vision tower of hidden
1152, intermediate 4304, 27 layers, patch 14, image 896, no pooling head, beside a gemma3_text decoder. The Gemma 3
technical report (arXiv 2503.19786, Table 1) gives its vision encoder as 417M parameters; the projector adds
hidden 1152 x text 2560 + 1152 (its RMSNorm)."""

from __future__ import annotations

import json
from pathlib import Path

GEMMA3_4B_VISION = {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304,
                    "num_hidden_layers": 27, "num_attention_heads": 16, "patch_size": 14, "image_size": 896,
                    "vision_use_head": False}  # fmt: skip
GEMMA3_4B_TEXT = {"model_type": "gemma3_text", "hidden_size": 2560, "intermediate_size": 10240,
                  "num_hidden_layers": 34, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                  "vocab_size": 262208}  # fmt: skip
GEMMA3_4B_PROJECTOR = 1152 * 2560 + 1152


def write_gemma3_4b(folder: Path) -> Path:
    """The wrapper's config.json written into folder; its path."""
    path = folder / "config.json"
    data = {"model_type": "gemma3", "text_config": GEMMA3_4B_TEXT, "vision_config": GEMMA3_4B_VISION}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
