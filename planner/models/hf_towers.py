"""Parameters of the vision tower a multimodal wrapper builds beside its text decoder, with the projector that maps
the tower's output into the decoder, counted as transformers 5.22 builds them: gemma3's SigLIP tower
(siglip/modeling_siglip.py) and Gemma3MultiModalProjector, mistral3's Pixtral tower (pixtral/modeling_pixtral.py)
and Mistral3MultiModalProjector, llama4's vision model (llama4/modeling_llama4.py: Llama4VisionModel with its
pixel-shuffle adapter) and Llama4MultiModalProjector, qwen3_5's and qwen3_5_moe's vision model (Qwen3_5VisionModel,
whose patch merger is the projector). Plans count only the text decoder; this figure is said beside them. A wrapper
whose tower is not here gives 0 (its tower is then named without a size)."""

from __future__ import annotations

from typing import Any

from planner.models.config_file import ConfigKeys

# the vision configuration types counted here (their class defaults ship with the decoder types')
TOWER_TYPES = (
    "siglip_vision_model",
    "pixtral",
    "llama4_vision_model",
    "qwen3_5_vision",
    "qwen3_5_moe_vision",
)


def tower_params(wrapper: dict[str, Any], text_hidden: int, path: str) -> int:  # Any: JSON values
    """Parameters of the wrapper's vision tower + projector; 0 when its type is not counted here."""
    vision = wrapper.get("vision_config")
    if not isinstance(vision, dict):
        return 0
    wrapper_type = str(wrapper.get("model_type"))
    vision_type = str(vision.get("model_type") or _DEFAULT_TOWER.get(wrapper_type, ""))
    counter = _COUNTERS.get((wrapper_type, vision_type))
    if counter is None or vision_type not in TOWER_TYPES:  # only these types' class defaults ship
        return 0
    return counter(
        ConfigKeys(vision, path, vision_type), ConfigKeys(wrapper, path, wrapper_type), text_hidden
    )


def _siglip_gemma3(vision: ConfigKeys, wrapper: ConfigKeys, text_hidden: int) -> int:
    h = vision.int("hidden_size")
    inner = vision.int("intermediate_size")
    patch = vision.int("patch_size")
    positions = (vision.int("image_size") // patch) ** 2
    embeddings = (
        vision.int("num_channels") * patch * patch * h + h + positions * h
    )  # conv with bias, positions
    mlp = 2 * h * inner + inner + h  # fc1, fc2 with biases
    layer = 2 * 2 * h + 4 * (h * h + h) + mlp  # two LayerNorms, q/k/v/out with biases, the MLP
    tower = embeddings + vision.int("num_hidden_layers") * layer + 2 * h  # + post_layernorm
    # SiglipVisionTransformer builds its pooling head unless the config says vision_use_head false
    if vision.raw.get("vision_use_head", True):
        tower += (
            h + (3 * h * h + 3 * h) + (h * h + h) + 2 * h + mlp
        )  # probe, attention in/out, LayerNorm, MLP
    return tower + h * text_hidden + h  # mm_input_projection_weight, mm_soft_emb_norm


def _pixtral_mistral3(vision: ConfigKeys, wrapper: ConfigKeys, text_hidden: int) -> int:
    h = vision.int("hidden_size")
    patch = vision.int("patch_size")
    layer = 2 * h + 4 * h * h + 3 * h * vision.int("intermediate_size")  # two RMSNorms, q/k/v/o, gated MLP
    tower = vision.int("num_channels") * patch * patch * h + h + vision.int("num_hidden_layers") * layer
    merge = wrapper.int("spatial_merge_size")
    feature_layers = wrapper.data.get("vision_feature_layer")
    width = h * (len(feature_layers) if isinstance(feature_layers, list) else 1)
    bias = text_hidden if wrapper.bool("multimodal_projector_bias", False) else 0
    # norm, patch merger, linear_1 and linear_2 (text_hidden x text_hidden)
    projector = h + h * merge * merge * h + width * text_hidden + bias + text_hidden * text_hidden + bias
    return tower + projector


def _llama4_vision(vision: ConfigKeys, wrapper: ConfigKeys, text_hidden: int) -> int:
    h = vision.int("hidden_size")
    inner = vision.int("intermediate_size")
    patch = vision.int("patch_size")
    positions = (vision.int("image_size") // patch) ** 2 + 1  # the patches and the class token
    # unfold + Linear without a bias, the class embedding, the positions, layernorm_pre and layernorm_post
    embeddings = vision.int("num_channels") * patch * patch * h + h + positions * h + 2 * 2 * h
    layer = 2 * 2 * h + 4 * (h * h + h) + 2 * h * inner + inner + h  # two LayerNorms, q/k/v/o, fc1/fc2 biased
    # the pixel-shuffle adapter's MLP (fc1: intermediate_size -> projector_input_dim, fc2: projector_output_dim
    # square, no biases) and the projector (vision_output_dim -> the text hidden size, no bias)
    adapter = inner * vision.int("projector_input_dim") + vision.int("projector_output_dim") ** 2
    projector = vision.int("vision_output_dim") * text_hidden
    return embeddings + vision.int("num_hidden_layers") * layer + adapter + projector


def _qwen3_5_vision(vision: ConfigKeys, wrapper: ConfigKeys, text_hidden: int) -> int:
    h = vision.int("hidden_size")
    inner = vision.int("intermediate_size")
    patch = vision.int("patch_size")
    # Conv3d over (temporal_patch_size x patch x patch) with a bias, the learned position grid
    embeddings = vision.int("in_channels") * vision.int("temporal_patch_size") * patch * patch * h + h
    embeddings += vision.int("num_position_embeddings") * h
    block = 2 * 2 * h + (3 * h * h + 3 * h) + (h * h + h) + 2 * h * inner + inner + h  # norms, qkv, proj, MLP
    merged = h * vision.int("spatial_merge_size") ** 2
    out = vision.int("out_hidden_size")
    merger = (
        2 * h + merged * merged + merged + merged * out + out
    )  # LayerNorm, linear_fc1, linear_fc2 (biased)
    return embeddings + vision.int("depth") * block + merger


_COUNTERS = {("gemma3", "siglip_vision_model"): _siglip_gemma3, ("mistral3", "pixtral"): _pixtral_mistral3,
             ("llama4", "llama4_vision_model"): _llama4_vision, ("qwen3_5", "qwen3_5_vision"): _qwen3_5_vision,
             ("qwen3_5_moe", "qwen3_5_moe_vision"): _qwen3_5_vision}  # fmt: skip
_DEFAULT_TOWER = {"gemma3": "siglip_vision_model", "mistral3": "pixtral", "llama4": "llama4_vision_model",
                  "qwen3_5": "qwen3_5_vision", "qwen3_5_moe": "qwen3_5_moe_vision"}  # fmt: skip
