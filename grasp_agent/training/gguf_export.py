"""A trained planner as a GGUF file for llama.cpp, so that `GRASP_LLM=llama-cpp GRASP_LLM_GGUF=<file>` serves it.

The student was dequantised from a GGUF (planner_sft.load_student), so that file is the template: its metadata
(architecture, hyper-parameters, tokenizer, chat template) is copied as is and every tensor it lists is written
again from the trained weights, under the same name, 2-D weights in float16 and the rest in float32. Names map
back the way transformers' GGUF loader maps them forward; llama-architecture q/k projections are permuted back
into llama.cpp's rotary layout (Qwen2 needs no permutation).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from grasp_agent.errors import GraspError
from grasp_agent.graph_branch.branch import PROMPT_KEY  # the planner reads what this writes

if TYPE_CHECKING:
    from transformers import PreTrainedModel

# GGUF block tensor suffix -> Hugging Face module path under model.layers.N
_BLOCK_NAMES = {
    "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}
_TOP_NAMES = {
    "token_embd.weight": "model.embed_tokens.weight",
    "output_norm.weight": "model.norm.weight",
    "output.weight": "lm_head.weight",
}
_BLOCK = re.compile(r"^blk\.(\d+)\.([a-z_]+)\.(weight|bias)$")
SUPPORTED_ARCHITECTURES = ("qwen2", "llama")


def hf_name(gguf_name: str) -> str:
    """The Hugging Face state-dict key of a GGUF tensor name (Qwen2/Llama layouts)."""
    if gguf_name in _TOP_NAMES:
        return _TOP_NAMES[gguf_name]
    match = _BLOCK.match(gguf_name)
    if match is None or match.group(2) not in _BLOCK_NAMES:
        raise GraspError(f"GGUF tensor {gguf_name!r} has no known Hugging Face counterpart")
    layer, part, kind = match.groups()
    return f"model.layers.{layer}.{_BLOCK_NAMES[part]}.{kind}"


def llama_rope_permute(weight: np.ndarray, heads: int) -> np.ndarray:
    """Hugging Face's rotary layout (halves) -> llama.cpp's (interleaved pairs), per head."""
    rows = weight.shape[0]
    return weight.reshape(heads, 2, rows // heads // 2, *weight.shape[1:]).swapaxes(1, 2).reshape(weight.shape)


def _field_value(field: Any) -> Any:
    return field.contents()


def export_gguf(model: PreTrainedModel, template: Path, out: Path, prompt: str = "student") -> Path:
    """Writes `out` (float16 weights) with `template`'s metadata and tensor list, plus `grasp.planner.prompt`
    (the planner prompt the model learned: "student" after `grasp train planner`); returns `out`."""
    import gguf
    import torch

    try:
        reader = gguf.GGUFReader(str(template))
    except (OSError, ValueError) as error:
        raise GraspError(f"cannot read the template GGUF {template}: {error}") from error
    arch_field = reader.get_field(gguf.Keys.General.ARCHITECTURE)
    arch = str(_field_value(arch_field)) if arch_field is not None else ""
    if arch not in SUPPORTED_ARCHITECTURES:
        raise GraspError(f"GGUF export supports {SUPPORTED_ARCHITECTURES}; the template is {arch!r}")
    state = {name: tensor.detach().to(torch.float32).cpu().numpy() for name, tensor in model.state_dict().items()}
    if "lm_head.weight" not in state:  # tied embeddings
        state["lm_head.weight"] = state["model.embed_tokens.weight"]
    config = model.config
    heads, kv_heads = int(config.num_attention_heads), int(config.num_key_value_heads or config.num_attention_heads)

    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(out.name + ".partial")
    writer = gguf.GGUFWriter(str(staging), arch)
    for field in reader.fields.values():
        if field.name in (gguf.Keys.General.ARCHITECTURE, PROMPT_KEY) or field.name.startswith("GGUF."):
            continue  # written by GGUFWriter itself
        value_type = field.types[0]
        if field.name == gguf.Keys.General.FILE_TYPE:
            writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
            continue
        sub_type = field.types[-1] if value_type == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, _field_value(field), value_type, sub_type=sub_type)
    writer.add_string(PROMPT_KEY, prompt)
    for tensor in reader.tensors:
        name = hf_name(tensor.name)
        if name not in state:
            raise GraspError(f"the trained model has no {name} for GGUF tensor {tensor.name}")
        weight = state[name]
        if arch == "llama" and tensor.name.endswith("attn_q.weight"):
            weight = llama_rope_permute(weight, heads)
        elif arch == "llama" and tensor.name.endswith("attn_k.weight"):
            weight = llama_rope_permute(weight, kv_heads)
        data = weight.astype(np.float16 if weight.ndim == 2 else np.float32)
        writer.add_tensor(tensor.name, data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    staging.replace(out)
    return out
