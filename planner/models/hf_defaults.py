"""What transformers assumes for a key a config.json leaves out, per model type (data only)."""

from __future__ import annotations

from typing import Any

# What transformers assumes for a key a config.json leaves out: the defaults of each model type's configuration
# class in transformers 5.24 (transformers/models/<type>/configuration_<type>.py, read 2026-12-01). A config.json
# saved by transformers always writes them; hand-written and trimmed ones do not, and transformers then builds the
# model with these. tests/planner/test_model_import_vs_transformers.py checks them against transformers itself.
HF_DEFAULTS: dict[str, dict[str, Any]] = {  # Any: JSON values
    "llama": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
              "num_attention_heads": 32, "max_position_embeddings": 2048, "tie_word_embeddings": False},
    "mistral": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072,
                "tie_word_embeddings": False, "sliding_window": 4096},
    "mixtral": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072,
                "tie_word_embeddings": False, "num_local_experts": 8, "num_experts_per_tok": 2},
    "qwen2": {"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016, "num_hidden_layers": 32,
              "num_attention_heads": 32, "max_position_embeddings": 32768, "tie_word_embeddings": False},
    "qwen2_moe": {"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 24,
                  "num_attention_heads": 16, "max_position_embeddings": 32768, "tie_word_embeddings": False,
                  "qkv_bias": True, "num_experts_per_tok": 4, "num_experts": 60, "moe_intermediate_size": 1408,
                  "shared_expert_intermediate_size": 5632, "decoder_sparse_step": 1},
    "qwen3": {"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016, "num_hidden_layers": 32,
              "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 32768,
              "tie_word_embeddings": False},
    "qwen3_moe": {"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 6144, "num_hidden_layers": 24,
                  "num_attention_heads": 32, "num_key_value_heads": 4, "max_position_embeddings": 32768,
                  "tie_word_embeddings": False, "num_experts_per_tok": 8, "num_experts": 128,
                  "moe_intermediate_size": 768, "decoder_sparse_step": 1},
    "gemma": {"vocab_size": 256000, "hidden_size": 3072, "intermediate_size": 24576, "num_hidden_layers": 28,
              "num_attention_heads": 16, "num_key_value_heads": 16, "head_dim": 256, "max_position_embeddings": 8192,
              "tie_word_embeddings": True},
    "gemma2": {"vocab_size": 256000, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
               "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "max_position_embeddings": 8192,
               "tie_word_embeddings": True, "sliding_window": 4096},
    "gemma3_text": {"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
                    "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                    "max_position_embeddings": 131072, "tie_word_embeddings": True, "sliding_window": 4096},
    "phi3": {"vocab_size": 32064, "hidden_size": 3072, "intermediate_size": 8192, "num_hidden_layers": 32,
             "num_attention_heads": 32, "max_position_embeddings": 4096, "tie_word_embeddings": False},
    "gpt2": {"vocab_size": 50257, "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024,
             "tie_word_embeddings": True},
    "gpt_neox": {"vocab_size": 50432, "hidden_size": 6144, "intermediate_size": 24576, "num_hidden_layers": 44,
                 "num_attention_heads": 64, "max_position_embeddings": 2048, "tie_word_embeddings": False,
                 "attention_bias": True},
    "deepseek_v2": {"vocab_size": 102400, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                    "num_attention_heads": 32, "max_position_embeddings": 2048, "tie_word_embeddings": False,
                    "moe_intermediate_size": 1407, "n_routed_experts": 64, "n_shared_experts": 2,
                    "first_k_dense_replace": 0, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                    "qk_nope_head_dim": 128, "v_head_dim": 128},
    "deepseek_v3": {"vocab_size": 129280, "hidden_size": 7168, "intermediate_size": 18432, "num_hidden_layers": 61,
                    "num_attention_heads": 128, "max_position_embeddings": 4096, "tie_word_embeddings": False,
                    "num_experts_per_tok": 8, "moe_intermediate_size": 2048, "n_routed_experts": 256,
                    "n_shared_experts": 1, "first_k_dense_replace": 3, "q_lora_rank": 1536, "kv_lora_rank": 512,
                    "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128},
}  # fmt: skip
# DeepSeek-V2 routes each token to 6 experts (arXiv 2405.04434, section 4.1); transformers' default is None,
# which counts the same parameters, so this only sets the active count of a config without the key.
DEEPSEEK_V2_EXPERTS_PER_TOKEN = 6
