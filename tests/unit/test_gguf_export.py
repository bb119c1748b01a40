"""GGUF export of a trained planner: tensor names map to the Hugging Face keys, llama's rotary permutation
inverts transformers' reverse permutation, and (with the packaged 0.5B model) an exported file generates
exactly what the original GGUF generates and tells the planner it wants the student prompt."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from grasp_agent.errors import GraspError
from grasp_agent.training.gguf_export import hf_name, llama_rope_permute


def test_tensor_names_map_to_hugging_face_keys() -> None:
    assert hf_name("token_embd.weight") == "model.embed_tokens.weight"
    assert hf_name("blk.3.attn_q.bias") == "model.layers.3.self_attn.q_proj.bias"
    assert hf_name("blk.11.ffn_down.weight") == "model.layers.11.mlp.down_proj.weight"
    assert hf_name("output_norm.weight") == "model.norm.weight"
    with pytest.raises(GraspError, match="no known Hugging Face counterpart"):
        hf_name("blk.0.ffn_gate_exps.weight")


def test_the_rotary_permutation_undoes_the_loaders_reverse_permutation() -> None:
    heads, head_dim, width = 4, 6, 5
    gguf_layout = np.arange(heads * head_dim * width, dtype=np.float32).reshape(heads * head_dim, width)
    # what transformers does when it reads a llama GGUF: (heads, dim, 2) -> swap -> back
    hf_layout = gguf_layout.reshape(heads, head_dim // 2, 2, width).swapaxes(2, 1).reshape(gguf_layout.shape)
    assert np.array_equal(llama_rope_permute(hf_layout, heads), gguf_layout)


@pytest.mark.slow
def test_an_exported_student_generates_what_the_original_gguf_generates(tmp_path: Path) -> None:
    if importlib.util.find_spec("trl") is None or importlib.util.find_spec("gguf") is None:
        pytest.skip("the [train] extra installs trl and gguf")
    from tests.llm_support import HAVE_LLAMA_CPP, parts_installed

    if not (HAVE_LLAMA_CPP and parts_installed()):
        pytest.skip("needs the [local-llm] extra (llama-cpp-python and the packaged 0.5B GGUF)")
    from llama_cpp import Llama

    from grasp_agent.config import default_models_cache_dir
    from grasp_agent.llm.packaged_models import QWEN_05B, resolve_gguf
    from grasp_agent.training.gguf_export import export_gguf
    from grasp_agent.training.planner_sft import load_student

    models = default_models_cache_dir()
    original = resolve_gguf(QWEN_05B, models)
    model, _ = load_student(QWEN_05B, models)
    exported = export_gguf(model, original, tmp_path / "student.gguf")
    messages = [{"role": "user", "content": "Name three colours."}]
    answers = []
    for path in (original, exported):
        llm = Llama(model_path=str(path), n_ctx=256, verbose=False, n_threads=2)
        reply = llm.create_chat_completion(messages, temperature=0.0, max_tokens=16, seed=0)  # type: ignore[arg-type]
        answers.append(reply["choices"][0]["message"]["content"])  # type: ignore[index]
        llm.close()
    assert answers[0] and answers[0] == answers[1]
    # the exported file says which prompt it was trained on, and the planner's "auto" prompt follows it
    from grasp_agent.graph_branch.branch import planner_prompt
    from grasp_agent.llm.llama_cpp import LlamaCppLLM

    for path, expected in ((exported, "student"), (original, "full")):
        served = LlamaCppLLM(path, context_tokens=256)
        assert planner_prompt("auto", served) == expected
        assert planner_prompt("full", served) == "full"
        served.close()
