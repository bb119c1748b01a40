"""The scale benchmark's outputs: its results as JSON, and one PNG of log-log curves against the node count."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from grasp_agent.errors import DataFileError
from grasp_agent.evaluation.scale_bench import ScaleResult
from grasp_agent.evaluation.scale_probes import Latency, PlanTimings


def _finite_or_none(value: Any) -> Any:
    """NaN is not JSON: unmeasured numbers become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite_or_none(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite_or_none(item) for item in value]
    return value


def results_json(results: Sequence[ScaleResult]) -> str:
    rows = [{**asdict(result), "load_total_seconds": result.load_total_seconds} for result in results]
    return json.dumps(_finite_or_none(rows), indent=2) + "\n"


def write_results(results: Sequence[ScaleResult], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(results_json(results))
    return path


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


def _latency(row: dict[str, Any] | None) -> Latency | None:
    return None if row is None else Latency(int(row["samples"]), _number(row["p50_ms"]), _number(row["p95_ms"]))


def read_results(path: Path) -> list[ScaleResult]:
    """Results written by `write_results` (nulls back to NaN), so runs of different scales can be merged."""
    try:
        rows = json.loads(path.read_text())
        return [
            ScaleResult(
                scale=float(row["scale"]),
                embedder=row["embedder"],
                nodes=row["nodes"],
                edges=row["edges"],
                nodes_by_label=row["nodes_by_label"],
                edges_by_triple=row["edges_by_triple"],
                generate_seconds=row["generate_seconds"],
                load_seconds=row["load_seconds"],
                store_mib=row["store_mib"],
                tx_log_mib=row["tx_log_mib"],
                plans=[
                    PlanTimings(
                        plan["hops"],
                        _latency(plan["latency"]) or Latency(0, math.nan, math.nan),
                        _latency(plan["first_run"]) or Latency(0, math.nan, math.nan),
                        plan["ranked"],
                        plan["empty"],
                        plan["refused"],
                    )
                    for plan in row["plans"]
                ],
                text_index_seconds=row["text_index_seconds"],
                text=_latency(row["text"]),
                text_note=row["text_note"],
                python_peak_rss_mib=row["python_peak_rss_mib"],
                heap_used_mib_after_load=_number(row["heap_used_mib_after_load"]),
                heap_used_mib_after_queries=_number(row["heap_used_mib_after_queries"]),
            )
            for row in rows
        ]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DataFileError(path, None, f"not a scale benchmark result file ({error})") from error


def markdown_row(result: ScaleResult) -> str:
    """One row of docs/benchmarks.md's scale table (its header is TABLE_HEADER)."""
    stages = [
        result.load_seconds.get(stage, math.nan)
        for stage in ("nodes", "edges", "documents+embeddings", "vector indexes")
    ]
    latency = " / ".join(f"{t.latency.p50_ms:.0f}-{t.latency.p95_ms:.0f}" for t in result.plans)
    first = " / ".join(f"{t.first_run.p50_ms:.0f}" for t in result.plans)
    text = f"{result.text.p50_ms:.1f} / {result.text.p95_ms:.1f}" if result.text is not None else "not built"
    index = f"{result.text_index_seconds:.0f} s" if result.text_index_seconds is not None else "-"
    return (
        f"| {result.scale:g}x | {result.nodes:,} | {result.edges:,} | {result.generate_seconds:.0f} s | "
        + " | ".join(f"{value:.0f} s" for value in stages)
        + f" | {result.load_total_seconds:.0f} s | {result.store_mib:,.0f} / {result.tx_log_mib:,.0f} | {latency} | "
        f"{first} | {index} | {text} | {result.python_peak_rss_mib:,.0f} | "
        f"{_mib(result.heap_used_mib_after_load)} / {_mib(result.heap_used_mib_after_queries)} |"
    )


def _mib(value: float) -> str:
    return f"{value:,.0f}" if math.isfinite(value) else "-"


TABLE_HEADER = (
    "| scale | nodes | edges | generate | load: nodes | edges | documents + embeddings | vector indexes | "
    "load total | store (db / tx logs) MiB | plan p50-p95 ms (1 / 2 / 3 hops) | plan first run p50 ms "
    "(1 / 2 / 3) | text index build | text search p50 / p95 ms | Python peak RSS MiB | JVM heap used after "
    "load / queries MiB |\n|" + "---|" * 16
)


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on servers and CI
    import matplotlib.pyplot as plt

    return plt


Series = dict[str, list[tuple[float, float]]]  # curve name -> (nodes, value) points


def _add(series: Series, name: str, nodes: float, value: float | None) -> None:
    if value is not None and math.isfinite(value) and value > 0:  # a log axis cannot show 0 or gaps
        series.setdefault(name, []).append((nodes, value))


def _panels(results: Sequence[ScaleResult]) -> dict[str, tuple[str, Series]]:
    load: Series = {}
    plans: Series = {}
    text: Series = {}
    store: Series = {}
    memory: Series = {}
    for result in results:
        nodes = float(result.nodes)
        for stage, seconds in result.load_seconds.items():
            _add(load, stage, nodes, seconds)
        _add(load, "total", nodes, result.load_total_seconds)
        _add(load, "generation", nodes, result.generate_seconds)
        _add(load, "text index build", nodes, result.text_index_seconds)
        for timing in result.plans:
            _add(plans, f"{timing.hops}-hop p50", nodes, timing.latency.p50_ms)
            _add(plans, f"{timing.hops}-hop p95", nodes, timing.latency.p95_ms)
            _add(plans, f"{timing.hops}-hop first run p50", nodes, timing.first_run.p50_ms)
        if result.text is not None:
            _add(text, "search p50", nodes, result.text.p50_ms)
            _add(text, "search p95", nodes, result.text.p95_ms)
        _add(store, "database files", nodes, result.store_mib)
        _add(store, "transaction logs", nodes, result.tx_log_mib)
        _add(memory, "Python peak RSS", nodes, result.python_peak_rss_mib)
        _add(memory, "JVM heap used after load", nodes, result.heap_used_mib_after_load)
        _add(memory, "JVM heap used after queries", nodes, result.heap_used_mib_after_queries)
    return {
        "load and build seconds": ("seconds", load),
        "plan execution (grasp.plan.execute)": ("ms", plans),
        "text branch (mFAR search)": ("ms", text),
        "store size": ("MiB", store),
        "memory": ("MiB", memory),
    }


def plot_scale(results: Sequence[ScaleResult], path: Path) -> Path:
    """One PNG: a log-log panel per measured quantity, x = nodes in the store."""
    plt = _pyplot()
    panels = _panels(results)
    figure, grid = plt.subplots(2, 3, figsize=(15.0, 8.5))
    axes_list = list(grid.flat)
    for axes, (title, (unit, series)) in zip(axes_list, panels.items(), strict=False):
        colours: dict[str, str] = {}
        for name, points in series.items():
            xs, ys = zip(*sorted(points), strict=True)
            # One colour per curve family (1-hop, ...): p50 solid, p95 dashed, first runs dotted.
            stem = name.removesuffix(" p50").removesuffix(" p95").removesuffix(" first run")
            colour = colours.setdefault(stem, f"C{len(colours) % 10}")
            style = ":" if "first run" in name else "--" if name.endswith("p95") else "-"
            axes.plot(xs, ys, marker="o", color=colour, linestyle=style, label=name)
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_title(title)
        axes.set_xlabel("nodes")
        axes.set_ylabel(unit)
        axes.grid(True, which="both", alpha=0.3)
        if series:
            axes.legend(fontsize="small")
    embedders = sorted({result.embedder for result in results})
    axes_list[-1].axis("off")
    axes_list[-1].text(
        0.0, 0.9, "embedder: " + "; ".join(embedders), wrap=True, fontsize="small", verticalalignment="top"
    )
    figure.suptitle("grasp scale curve: synthetic SKBs with the measured shape")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
