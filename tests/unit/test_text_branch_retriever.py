"""The text branch retriever on the real HPO slice (records, not Neo4j) with the offline MiniLM."""

from __future__ import annotations

import pytest

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.skb.hpo import HpoSource
from grasp_agent.text_branch.bm25_index import LexicalIndex
from grasp_agent.text_branch.dense_fields import DenseFieldIndex
from grasp_agent.text_branch.field_weights import FieldWeightModel
from grasp_agent.text_branch.fields import FieldCorpus, TextBranchError, fields_from_records
from grasp_agent.text_branch.retriever import TextBranch

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def branch(embedder: GraspEmbedder) -> TextBranch:
    source = HpoSource(subset_roots=("HP:0011097",))
    schema = source.schema()
    corpus = FieldCorpus.from_schema_nodes(schema, fields_from_records(schema, source.nodes(), source.edges()))
    dense = DenseFieldIndex.build(corpus, embedder, fields=["name", "definition", "synonyms"], include_document=True)
    lexical = LexicalIndex.build(corpus)
    keys = [(name, "bm25") for name in lexical.fields] + [(name, "dense") for name in dense.fields]
    uniform = FieldWeightModel.uniform_for(keys, embedder.dimension, embedder.model_id)
    return TextBranch(lexical, dense, uniform, embedder)


def test_mfar_finds_a_gene_through_its_relation_field(branch: TextBranch) -> None:
    # genes_to_phenotype.txt: NSF is the gene of DEE 96 (OMIM:619340); its ASSOCIATED_WITH field names it
    ranking = branch.search(
        "Which genes are associated with Developmental and epileptic encephalopathy 96?", k=10, node_type="Gene"
    )
    assert "NCBIGene:4905" in ranking.ids[:5]
    assert abs(sum(ranking.weights.values()) - 1.0) < 1e-9 and len(set(ranking.weights.values())) == 1
    assert set(ranking.timings_ms) == {"embedding", "fields", "combine"}


def test_baselines_find_a_gene_by_its_symbol(branch: TextBranch) -> None:
    for method in (branch.bm25, branch.vss, branch.bm25_vss):
        ranking = method("NSF", 5, "Gene")
        assert ranking.ids[0] == "NCBIGene:4905", (ranking.method, ranking.ids)
        assert len(ranking.ids) == len(ranking.scores) <= 5


def test_weights_for_another_embedder_are_refused(branch: TextBranch, embedder: GraspEmbedder) -> None:
    other = FieldWeightModel.uniform(["name"], ["bm25"], embedder.dimension, "another-model")
    with pytest.raises(TextBranchError, match="another-model"):
        TextBranch(branch._lexical, None, other, embedder)  # reuses the built index


def test_relative_document_scores_are_the_documents_bm25_over_the_best_in_the_index(branch: TextBranch) -> None:
    # what the graph branch rescores its targets by: 1 for the best document, 0 without any word of the text
    top = branch.bm25("NSF", 3)
    scores = branch.lexical.relative_document_scores("NSF", [*top.ids, "no-such-node"])
    assert list(scores[: len(top.ids)]) == pytest.approx([score / top.scores[0] for score in top.scores])
    assert scores[0] == pytest.approx(1.0) and scores[-1] == 0.0
    assert not branch.lexical.relative_document_scores("zzzqqq", list(top.ids)).any()
