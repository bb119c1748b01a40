"""Tiny stand-ins for training tests: a character tokenizer with a Qwen-style chat template and a randomly
initialised Qwen2 model of a few thousand parameters (the student's architecture, none of its weights)."""

from __future__ import annotations

from typing import Any

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<unk>"]


def char_tokenizer() -> Any:
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    chars = [chr(code) for code in range(32, 127)] + ["\n"]
    vocab = {token: index for index, token in enumerate(SPECIALS + chars)}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    backend.decoder = decoders.Fuse()
    backend.add_special_tokens(SPECIALS)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, eos_token="<|im_end|>", pad_token="<|endoftext|>", unk_token="<unk>"
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def tiny_qwen2(vocab_size: int, seed: int = 0) -> Any:
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=vocab_size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
    )
    return Qwen2ForCausalLM(config)
