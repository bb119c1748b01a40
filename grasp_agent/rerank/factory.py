"""Builds the configured reranker from Settings (None when reranking is off)."""

from __future__ import annotations

from pathlib import Path

from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import ConfigError
from grasp_agent.llm.base import GraspLLM
from grasp_agent.rerank.base import Reranker
from grasp_agent.rerank.bi_encoder import BiEncoderReranker
from grasp_agent.rerank.listwise import MANIFEST_NAME, ListwiseReranker
from grasp_agent.rerank.llm_judge import DEFAULT_INSTRUCTION, LLMJudgeReranker
from grasp_agent.skb.schema import SkbSchema

JUDGE_DOCUMENT_TOKENS = 400  # keeps one judge call (instruction + query + document) well inside 1k tokens
PACKAGED_RERANKER_DIR = Path(__file__).resolve().parent / "pretrained"


def local_reranker_dir(settings: Settings, skb_name: str) -> Path:
    """Where `grasp train reranker` writes the adapter of an SKB trained in this checkout."""
    return settings.grasp_dir / "rerankers" / skb_name


def listwise_reranker_dir(settings: Settings, skb_name: str | None) -> Path | None:
    """GRASP_RERANKER_PATH, else the adapter trained here for the SKB, else the packaged one; None if none exists."""
    if settings.reranker_path is not None:
        return settings.reranker_path
    if skb_name is None:
        return None
    for folder in (local_reranker_dir(settings, skb_name), PACKAGED_RERANKER_DIR / skb_name):
        if (folder / MANIFEST_NAME).is_file():
            return folder
    return None


def _listwise(settings: Settings, folder: Path) -> ListwiseReranker:
    from grasp_agent.embed.packaged_models import MINILM, packaged_model_dir
    from grasp_agent.rerank.listwise import read_manifest

    manifest = read_manifest(folder)
    if manifest.base_model != MINILM:
        raise ConfigError(
            f"reranker {folder} was trained on {manifest.base_model!r}; the listwise reranker runs "
            f"on the packaged {MINILM}"
        )
    return ListwiseReranker(folder, packaged_model_dir(MINILM, settings.models_cache_dir))


def judge_instruction(schema: SkbSchema) -> str:
    """The per-dataset instruction of the LLM judge: what kind of knowledge base the documents come from."""
    types = ", ".join(node_type.label for node_type in schema.node_types)
    return (
        f"Given a question about the '{schema.name}' knowledge base (node types: {types}), judge whether the "
        "Document describes an entity that answers it"
    )


def make_reranker(
    settings: Settings, embedder: GraspEmbedder, llm: GraspLLM | None, schema: SkbSchema | None = None
) -> Reranker | None:
    if settings.reranker == "none":
        return None
    skb_name = schema.name if schema is not None else None
    if settings.reranker in ("auto", "listwise"):
        folder = listwise_reranker_dir(settings, skb_name)
        # auto takes GRASP_RERANKER_PATH only when it is an adapter folder (it may name a cross-encoder).
        if folder is not None and (settings.reranker == "listwise" or (folder / MANIFEST_NAME).is_file()):
            return _listwise(settings, folder)
        if settings.reranker == "listwise":
            raise ConfigError(
                f"reranker 'listwise' found no adapter for SKB {skb_name!r}: train one with `grasp "
                "train reranker` or set GRASP_RERANKER_PATH to an adapter folder"
            )
    if settings.reranker in ("auto", "bi-encoder"):
        return BiEncoderReranker(embedder)
    if settings.reranker == "llm-judge":
        if llm is None:
            raise ConfigError("reranker 'llm-judge' needs an LLM: set GRASP_LLM to llama-cpp or openai")
        instruction = judge_instruction(schema) if schema is not None else DEFAULT_INSTRUCTION
        return LLMJudgeReranker(
            llm, instruction=instruction, count_tokens=embedder.count_tokens, max_document_tokens=JUDGE_DOCUMENT_TOKENS
        )
    if settings.reranker_path is None:
        raise ConfigError("reranker 'cross-encoder' needs GRASP_RERANKER_PATH: a local sentence-transformers model")
    from grasp_agent.rerank.cross_encoder import CrossEncoderReranker  # the [train] extra, only when chosen

    return CrossEncoderReranker(settings.reranker_path)
