"""Reranker training end to end on the HPO slice: data from the live fused pool, a few listwise steps on the
packaged MiniLM, and the written adapter reranking real searches. Small enough for CI: seconds."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from grasp_agent.api import Grasp
from grasp_agent.embed.packaged_models import MINILM, minilm_model_dir

pytestmark = pytest.mark.neo4j
pytest.importorskip("peft", reason="reranker training needs the [train] extra")


def _with_splits(queries: list[Any]) -> list[Any]:
    """Every third query is valid, the rest train; templates from the benchmark's ids."""
    return [
        query.model_copy(update={"split": "valid" if index % 3 == 2 else "train", "template": query.id.split("-")[1]})
        for index, query in enumerate(queries)
    ]


def test_data_training_and_reranking_on_the_live_pipeline(grasp: Grasp, tmp_path: Path) -> None:
    from grasp_agent.rerank.listwise import ListwiseReranker, read_adapter
    from grasp_agent.training.reranker_data import build_rerank_data
    from grasp_agent.training.reranker_train import RerankTrainConfig, train_reranker
    from tests.neo4j.test_adapath_bank import slice_queries

    queries = _with_splits(slice_queries(15))
    data, summary = build_rerank_data(grasp, queries, pool=40, negatives=10)
    assert summary.questions == 15 and summary.kept == len(data) >= 6
    assert summary.kept + summary.no_positive + summary.no_negative + summary.failed == 15
    gold = {query.text: set(query.answer_ids) for query in queries}
    for item in data:
        assert item.positives and {c.node_id for c in item.positives} <= gold[item.question]
        assert not {c.node_id for c in item.negatives} & gold[item.question]
        ranks = [c.fused_rank for c in item.negatives]
        assert ranks == sorted(ranks) and all(c.text for c in item.negatives)  # best-ranked wrong ones, in order

    train = [item for item in data if item.split == "train"]
    valid = [item for item in data if item.split == "valid"]
    out = tmp_path / "adapter"
    config = RerankTrainConfig(
        epochs=2, rank=4, alpha=8.0, group_size=6, max_tokens=96, max_query_tokens=24, learning_rate=1e-3, max_groups=4
    )
    report = train_reranker(train, valid, minilm_model_dir(), out, "hpo", MINILM, config)
    assert [epoch.groups for epoch in report.epochs] == [4, 4]
    assert all(np.isfinite(epoch.mean_loss) for epoch in report.epochs)
    assert report.best_epoch in (1, 2) and 0.0 <= report.fused_valid_hit1 <= 1.0
    adapter = read_adapter(out)
    assert adapter.manifest.training["best_epoch"] == report.best_epoch
    assert any(np.abs(factors.b).sum() > 0 for factors in adapter.factors.values())  # the updates are trained

    reranker = ListwiseReranker(out, minilm_model_dir())
    reranking = Grasp(replace(grasp.parts, reranker=reranker))
    result = reranking.search(queries[0].text, k=10, rerank=True)
    assert result.reranker == reranker.model_id and result.failures == {}
    assert set(result.node_ids) <= set(grasp.search(queries[0].text, k=100).node_ids)
