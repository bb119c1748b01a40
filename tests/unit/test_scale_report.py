"""The scale benchmark's result files: written results read back equal (so runs of different scales merge), a
bad file is refused with its name, and the Markdown row shows what was measured."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from grasp_agent.errors import DataFileError
from grasp_agent.evaluation.scale_bench import ScaleResult
from grasp_agent.evaluation.scale_probes import Latency, PlanTimings
from grasp_agent.evaluation.scale_report import markdown_row, read_results, results_json, write_results


def _result(scale: float, text: Latency | None) -> ScaleResult:
    plans = [
        PlanTimings(hops, Latency(30, 10.0 * hops, 40.0 * hops), Latency(30, 50.0, 90.0), 28, 2, 0)
        for hops in (1, 2, 3)
    ]
    return ScaleResult(
        scale,
        "hashing:384",
        nodes=36_853,
        edges=547_280,
        nodes_by_label={"Gene": 5},
        edges_by_triple={"(:Gene)-[:R]->(:Gene)": 3},
        generate_seconds=2.0,
        load_seconds={"nodes": 7.0, "edges": 37.0, "documents+embeddings": 79.0, "vector indexes": 16.0},
        store_mib=303.0,
        tx_log_mib=514.0,
        plans=plans,
        text_index_seconds=104.0 if text else None,
        text=text,
        text_note="" if text else "not built: needs 13.0 GiB",
        python_peak_rss_mib=743.0,
        heap_used_mib_after_load=302.0,
    )


def test_results_read_back_equal_with_unmeasured_values_as_nan(tmp_path: Path) -> None:
    results = [_result(1.0, Latency(30, 8.4, 10.7)), _result(30.0, None)]
    path = write_results(results, tmp_path / "scale.json")
    again = read_results(path)
    assert results_json(again) == results_json(results)
    assert again[1].text is None and math.isnan(again[0].heap_used_mib_after_queries)


def test_a_file_that_is_not_a_result_file_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('[{"scale": 1}]')
    with pytest.raises(DataFileError, match="other.json: not a scale benchmark result file"):
        read_results(path)


def test_the_markdown_row_shows_load_stages_plans_and_why_text_was_not_built() -> None:
    row = markdown_row(_result(30, None))
    assert row.startswith("| 30x | 36,853 | 547,280 | 2 s | 7 s | 37 s | 79 s | 16 s | 139 s | 303 / 514 |")
    assert "| 10-40 / 20-80 / 30-120 | 50 / 50 / 50 | - | not built | 743 | 302 / - |" in row
