"""The text branch of a loaded SKB: indexes opened (or built once) from what Neo4j holds, weights from disk.

The indexes are keyed by the SKB's load fingerprint, so a reload of other content rebuilds them and a restart
only loads them. Dense fields are the name, the type's text fields and the whole document (a key of its own,
and the VSS baseline); relation fields are lexical only: a list of neighbour names is matched by words, and
embedding one per node per relation would cost more than the whole load for little gain.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from neo4j import Driver

from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.embed.cache import CachedEmbedder
from grasp_agent.skb.checkpoint import LoadState, read_state
from grasp_agent.skb.documents import DocumentBudget
from grasp_agent.skb.embedding_stage import NAME_MAX_TOKENS
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.text_branch.bm25_index import default_index_root, legacy_index_root, open_lexical_index
from grasp_agent.text_branch.dense_fields import default_dense_root, legacy_dense_root, model_folder, open_dense_index
from grasp_agent.text_branch.field_reader import read_node_fields
from grasp_agent.text_branch.field_weights import MANIFEST, FieldWeightModel, open_field_weights
from grasp_agent.text_branch.fields import DOC_FIELD, NAME_FIELD, FieldCorpus, NodeFields, TextBranchError
from grasp_agent.text_branch.multifield import FieldKey
from grasp_agent.text_branch.retriever import TextBranch

logger = logging.getLogger(__name__)


def dense_field_names(schema: SkbSchema) -> list[str]:
    """Name plus every type's text fields, in schema order, each once."""
    names = [NAME_FIELD]
    for node_type in schema.node_types:
        names.extend(name for name in node_type.text_fields if name not in names)
    return names


PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"


def field_weights_directory(settings: Settings, skb_name: str, model_id: str) -> Path:
    return settings.field_weights_dir or settings.grasp_dir / "field_weights" / skb_name / model_folder(model_id)


def pretrained_weights_directory(skb_name: str, model_id: str) -> Path:
    """Weights shipped with the package for a demo SKB and the default embedder (see pretrained/README.md)."""
    return PRETRAINED_DIR / skb_name / model_folder(model_id)


def open_weights(
    settings: Settings, skb_name: str, keys: Sequence[FieldKey], embedder: GraspEmbedder
) -> FieldWeightModel:
    """Trained weights in `field_weights_directory` (an error if stale); else, unless GRASP_FIELD_WEIGHTS_DIR
    names a folder (then exactly what it holds counts), the packaged ones for this SKB and embedder when they
    fit these keys; else the zero-shot weights (whole-document BM25 leads)."""
    trained = field_weights_directory(settings, skb_name, embedder.model_id)
    packaged = pretrained_weights_directory(skb_name, embedder.model_id)
    use_packaged = settings.field_weights_dir is None and (packaged / MANIFEST).is_file()
    if not (trained / MANIFEST).is_file() and use_packaged:
        try:
            return FieldWeightModel.load(packaged, keys, embedder.model_id)
        except TextBranchError as error:  # a different schema under the same name: not ours to refuse
            logger.warning("packaged field weights do not fit this SKB (%s); using zero-shot weights", error)
    return open_field_weights(trained, keys, embedder.dimension, embedder.model_id)


def completed_load(driver: Driver, database: str, skb_name: str) -> LoadState:
    """The SKB's completed load (fingerprint, embedder); an error when it is missing or unfinished."""
    with driver.session(database=database) as session:
        state = read_state(session, skb_name)
    if state is None or not state.complete:
        raise TextBranchError(f"SKB {skb_name!r} is not completely loaded (state: {state}); run `grasp load` first")
    return state


def remember_stored_vectors(embedder: GraspEmbedder, nodes: Sequence[NodeFields], load_embedder: str) -> int:
    """Puts the embeddings the load stored in Neo4j into the embedding cache when they come from this very
    model, so the dense document and name fields are lookups instead of embedding every text again. Returns
    how many vectors were remembered.

    Documents: the loader embedded them exactly as this embedder would. Names: the loader cut them at 64
    tokens; a name no longer than that is the same input, so its vector is this embedder's vector too.
    """
    # What the loader embedded documents with (see load_skb's budget).
    loader_documents = embedder.with_max_tokens(DocumentBudget.for_model(embedder.max_tokens).max_tokens).model_id
    same_model = embedder.model_id == load_embedder == loader_documents
    if not isinstance(embedder, CachedEmbedder) or not same_model:
        return 0
    texts, vectors = [], []
    for node in nodes:
        if node.doc_vector is not None and node.doc:
            texts.append(node.doc)
            vectors.append(node.doc_vector)
        name = node.texts.get(NAME_FIELD, "")
        if node.name_vector is not None and name and embedder.count_tokens(name) <= NAME_MAX_TOKENS:
            texts.append(name)
            vectors.append(node.name_vector)
    if texts:
        embedder.remember(texts, np.asarray(vectors, dtype=np.float32))
    return len(texts)


def dense_field_texts(driver: Driver, database: str, schema: SkbSchema, *, progress: bool = False) -> list[str]:
    """Each distinct text the dense index embeds besides names and documents (whose vectors the load stored and
    `remember_stored_vectors` reuses): what a vector pack must add for `grasp index` to embed nothing."""
    with driver.session(database=database) as session:
        corpus = FieldCorpus.from_schema_nodes(schema, read_node_fields(session, schema, progress=progress))
    fields = [name for name in dense_field_names(schema) if name != NAME_FIELD]
    return list(dict.fromkeys(text for name in fields for text in corpus.fields[name] if text))


def open_text_branch(
    driver: Driver, settings: Settings, embedder: GraspEmbedder, schema: SkbSchema, *, progress: bool = False
) -> TextBranch:
    """The mFAR text branch of the loaded SKB `schema`: BM25 over every field, dense over `dense_field_names`,
    trained field weights when saved in `field_weights_directory`, else the zero-shot ones."""
    load = completed_load(driver, settings.neo4j_database, schema.name)
    fingerprint = load.fingerprint
    corpus_cache: list[FieldCorpus] = []

    def corpus() -> FieldCorpus:  # read once, only if some index has to be built
        if not corpus_cache:
            with driver.session(database=settings.neo4j_database) as session:
                nodes = list(read_node_fields(session, schema, progress=progress))
            remember_stored_vectors(embedder, nodes, load.embedder)
            corpus_cache.append(FieldCorpus.from_schema_nodes(schema, nodes))
        return corpus_cache[0]

    lexical = open_lexical_index(
        default_index_root(settings),
        schema.name,
        fingerprint,
        corpus,
        progress=progress,
        legacy_root=legacy_index_root(settings),
    )
    dense = open_dense_index(
        default_dense_root(settings),
        schema.name,
        fingerprint,
        corpus,
        embedder,
        fields=dense_field_names(schema),
        include_document=True,
        progress=progress,
        legacy_root=legacy_dense_root(settings),
    )
    # The whole document is one more key for each scorer: general evidence that carries over to kinds and
    # wordings of question the weights never saw (leave-template-out and re-worded questions, docs/benchmarks.md)
    keys: list[FieldKey] = [(name, "bm25") for name in (*lexical.fields, DOC_FIELD)] + [
        (name, "dense") for name in (*dense.fields, DOC_FIELD)
    ]
    return TextBranch(lexical, dense, open_weights(settings, schema.name, keys, embedder), embedder)
