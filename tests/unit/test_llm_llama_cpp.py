"""In-process llama.cpp: the real packaged 0.5B model when llama-cpp-python and the GGUF parts are installed."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from grasp_agent.graph_branch.plan import Plan
from grasp_agent.llm.errors import LLMError, ModelFileError
from grasp_agent.llm.llama_cpp import GRAMMAR_MAX_LENGTH, grammar_schema
from tests.llm_support import HAVE_LLAMA_CPP, open_05b

needs_llama_cpp = pytest.mark.skipif(not HAVE_LLAMA_CPP, reason="the [local-llm] extra installs llama-cpp-python")

SYSTEM = (
    "You translate biomedical questions into a JSON graph query plan. Node types: Phenotype, Disease, Gene. "
    "Relations: Phenotype-IS_A->Phenotype, Disease-HAS_PHENOTYPE->Phenotype, Disease-LACKS_PHENOTYPE->Phenotype, "
    "Gene-ASSOCIATED_WITH->Disease. Anchors are entities named in the question; the target is what is asked for."
)


@pytest.mark.skipif(HAVE_LLAMA_CPP, reason="llama-cpp-python is installed; the missing-extra message cannot occur")
def test_without_the_extra_the_error_names_it(tmp_path: Path) -> None:
    from grasp_agent.llm.llama_cpp import LlamaCppLLM

    with pytest.raises(LLMError, match=r"grasp-agent\[local-llm\]"):
        LlamaCppLLM(tmp_path / "model.gguf")


def test_grammar_schemas_drop_only_length_bounds_llama_cpp_cannot_unroll() -> None:
    schema = Plan.json_schema()
    bounded = grammar_schema(schema)
    assert "maxLength" not in bounded["properties"]["relevance_text"]  # 2000: refused by llama.cpp
    assert "maxLength" not in bounded["$defs"]["Anchor"]["properties"]["text"]  # 500 > GRAMMAR_MAX_LENGTH
    assert bounded["$defs"]["Anchor"]["properties"]["text"]["minLength"] == 1
    assert GRAMMAR_MAX_LENGTH == 64
    assert bounded["$defs"]["Target"] == schema["$defs"]["Target"]  # patterns and everything else stay
    assert schema["properties"]["relevance_text"]["maxLength"] == 2000  # the input is not modified


@needs_llama_cpp
def test_a_missing_or_foreign_file_is_refused(tmp_path: Path) -> None:
    from grasp_agent.llm.llama_cpp import LlamaCppLLM

    with pytest.raises(ModelFileError, match="does not exist"):
        LlamaCppLLM(tmp_path / "absent.gguf")
    (tmp_path / "weights.bin").write_bytes(b"\x00" * 64)
    with pytest.raises(ModelFileError, match="not a GGUF"):
        LlamaCppLLM(tmp_path / "weights.bin")


@pytest.fixture(scope="module")
def llm() -> Iterator[object]:
    model = open_05b(context_tokens=2048, max_tokens=300)
    yield model
    model.close()


def _messages(question: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]


@pytest.mark.slow
def test_the_05b_model_writes_schema_valid_plan_json(llm: object) -> None:
    from grasp_agent.llm.llama_cpp import LlamaCppLLM

    assert isinstance(llm, LlamaCppLLM) and llm.model_id == "llama-cpp:qwen2.5-0.5b"
    text = llm.complete_json(
        _messages("Which diseases present epileptic spasm and hypsarrhythmia?"), Plan.json_schema()
    )
    payload = json.loads(text)  # the grammar admits nothing but JSON
    try:
        Plan.model_validate(payload)
    except ValidationError as error:
        # The grammar enforces the schema (types, patterns, enums); only the cross-field rules can fail.
        assert all(problem["loc"] == () for problem in error.errors()), error.errors()
    assert (
        llm.complete_json(_messages("Which diseases present epileptic spasm and hypsarrhythmia?"), Plan.json_schema())
        == text
    )  # greedy: the same answer again


@pytest.mark.slow
def test_the_05b_model_gives_first_token_logprobs(llm: object) -> None:
    from grasp_agent.llm.llama_cpp import LlamaCppLLM

    assert isinstance(llm, LlamaCppLLM)
    question = "Is hypsarrhythmia an abnormal EEG pattern? Answer with one word: yes or no."
    scores = llm.first_token_logprobs([{"role": "user", "content": question}], ["yes", "no"])
    assert set(scores) == {"yes", "no"}
    assert all(math.isfinite(value) and value <= 0.0 for value in scores.values())
    response = llm.invoke([{"role": "user", "content": question}], max_tokens=5)
    assert response.content.strip() and response.usage is not None and response.usage.response_tokens


@pytest.mark.slow
def test_a_grammar_llama_cpp_refuses_is_an_error_not_a_crash(llm: object) -> None:
    from grasp_agent.llm.llama_cpp import LlamaCppLLM

    assert isinstance(llm, LlamaCppLLM)
    with pytest.raises(LLMError, match="refused the grammar for schema 'huge'"):
        llm.complete_json(_messages("anything"), {"title": "huge", "type": "string", "pattern": "^[a-z]{0,3000}$"})


@pytest.mark.slow
def test_answers_do_not_depend_on_the_calls_before_them(llm: object) -> None:
    """The saved prefix state is restored for every call, so a cached prefix gives the answer a cold one does."""
    from grasp_agent.llm.llama_cpp import LlamaCppLLM

    assert isinstance(llm, LlamaCppLLM)
    long_system = SYSTEM + " " + " ".join(f"Rule {i}: answer briefly." for i in range(40))  # above the cache floor
    demo = [
        {"role": "system", "content": long_system},
        {"role": "user", "content": "Name a colour."},
        {"role": "assistant", "content": "Blue."},
    ]
    first = [*demo, {"role": "user", "content": "Name a fruit."}]
    second = [*demo, {"role": "user", "content": "Name an animal."}]
    cold = llm.invoke(first, max_tokens=8).content  # evaluates and saves the prefix
    llm.invoke(second, max_tokens=8)  # restores it
    llm.invoke([{"role": "user", "content": "Something else entirely."}], max_tokens=8)
    assert llm.invoke(first, max_tokens=8).content == cold  # restored again, same answer
    assert llm.first_token_logprobs(first, ["Apple", "Banana"]) == llm.first_token_logprobs(first, ["Apple", "Banana"])


@pytest.mark.slow
def test_a_prefix_shared_by_calls_is_kept_and_one_calls_own_is_not(llm: object) -> None:
    """Demonstrations picked per question follow the fixed prefix: only the shared part takes a saved state, and a
    call answers the same whether its prefix was restored or evaluated."""
    from grasp_agent.llm.llama_cpp import LlamaCppLLM

    assert isinstance(llm, LlamaCppLLM)
    long_system = SYSTEM + " " + " ".join(f"Rule {i}: answer briefly." for i in range(40))
    shared = [
        {"role": "system", "content": long_system},
        {"role": "user", "content": "Name a colour."},
        {"role": "assistant", "content": "Blue."},
    ]
    calls = [
        [
            *shared,
            {"role": "user", "content": f"Name a number above {i} and below 100, in words, please."},
            {"role": "assistant", "content": f"{i + 1}."},
            {"role": "user", "content": "Name a fruit."},
        ]
        for i in range(3)
    ]
    answers = [llm.invoke(call, max_tokens=8).content for call in calls]
    prompts = [llm._prompt_tokens(call, 8) for call in calls]
    ours = [key for key in llm._prefix_states if any(tuple(p[: len(key)]) == key for p in prompts)]
    assert len(ours) == 1 and all(tuple(p[: len(ours[0])]) == ours[0] for p in prompts)  # one state, shared by all
    assert llm.invoke(calls[0], max_tokens=8).content == answers[0]  # restored now, evaluated cold before
