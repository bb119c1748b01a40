"""Out of the box (no GRASP_* fusion or rerank settings, nothing fitted locally): the packaged fitted values for
the HPO SKB are in force, and the default search is not worse than the same search reranked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from grasp_agent.api import Grasp
from grasp_agent.fusion.tables import DynamicFusionTables
from grasp_agent.pipeline.configuration import packaged_fusion_tables_path
from grasp_agent.ui.app import EXAMPLES
from tests.conftest import TEST_INSTANCE_ENV, settings_for

pytestmark = pytest.mark.neo4j

DEE96 = "OMIM:619340"  # the answer to the demo's first example question on the Epileptic-spasm slice


@pytest.fixture(scope="module")
def default_grasp(hpo_slice: object, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Grasp]:
    """`Grasp.from_config` with only the test instance's connection settings (its instance folder, for the
    password) and its own empty project folder: nothing fitted, trained or indexed there."""
    root: Path = tmp_path_factory.mktemp("fresh-checkout")
    connection = settings_for(TEST_INSTANCE_ENV)
    settings = connection.model_copy(update={"project_root": root, "instances_dir": connection.instance_dir.parent})
    with Grasp.from_config(settings) as grasp:
        yield grasp


def test_from_config_uses_the_packaged_fitted_values(default_grasp: Grasp) -> None:
    config = default_grasp.configuration
    packaged = packaged_fusion_tables_path("hpo", default_grasp.parts.embedder.model_id)
    tables = DynamicFusionTables.load(packaged)
    assert config.static_graph_weight.value == tables.static_graph_weight
    assert config.static_graph_weight.source == f"packaged: {packaged}"
    assert config.rerank_weight.value == tables.rerank_weight
    assert config.fusion_policy.value == (tables.policy or "static")
    assert default_grasp.parts.fusion_tables == tables
    assert tables.rerank is not None
    assert config.rerank_by_default.value is tables.rerank.helps


def _rank(result_ids: list[object], answer: str) -> int:
    return result_ids.index(answer) + 1 if answer in result_ids else 10**6


def test_the_default_search_is_at_least_as_good_as_reranking(default_grasp: Grasp) -> None:
    question = EXAMPLES[0]
    default = default_grasp.search(question, k=20)
    reranked = default_grasp.search(question, k=20, rerank=True)
    assert reranked.reranker is not None  # the comparison is real: reranking did run
    assert default.reranker is None or default_grasp.configuration.rerank_by_default.value
    assert _rank(default.node_ids, DEE96) <= _rank(reranked.node_ids, DEE96)
    assert default.node_ids[0] == DEE96
    assert default.configuration["static_graph_weight"]["source"].startswith("packaged")
