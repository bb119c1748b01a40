"""Report figures: Hit@1 per system by hop depth and by surface level (matplotlib, written as PNG)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grasp_agent.evaluation.report import EvaluationReport
from grasp_agent.optional_imports import require


def _pyplot() -> Any:
    need, hint = "plots need matplotlib", "pip install matplotlib"
    require("matplotlib", need=need, hint=hint).use("Agg")  # files only: no display on servers and CI
    return require("matplotlib.pyplot", need=need, hint=hint)


def hit1_bar_chart(report: EvaluationReport, grouping: str, path: Path) -> Path | None:
    """Grouped bars of Hit@1: one group per value of `grouping`, one bar per system; None without data."""
    table = report.breakdowns.get(grouping) or {}
    if not table:
        return None
    plt = _pyplot()
    systems = [score.system for score in report.scores]
    groups = list(table)
    width = 0.8 / max(len(systems), 1)
    figure, axes = plt.subplots(figsize=(max(6.0, 1.4 * len(groups) * max(1, len(systems) / 3)), 4.0))
    for index, system in enumerate(systems):
        values = [table[group].get(system, {}).get("Hit@1", 0.0) for group in groups]
        positions = [number + (index - (len(systems) - 1) / 2) * width for number in range(len(groups))]
        axes.bar(positions, values, width, label=system)
    counts = [int(next(iter(table[group].values()))["queries"]) for group in groups]
    # Long group names (templates) would overlap side by side: tilt them when any is long.
    tilt = 20 if max(len(group) for group in groups) > 12 else 0
    axes.set_xticks(
        range(len(groups)),
        [f"{group}\n(n={count})" for group, count in zip(groups, counts, strict=True)],
        rotation=tilt,
        ha="right" if tilt else "center",
    )
    axes.set_ylabel("Hit@1")
    axes.set_ylim(0, 1)
    axes.set_title(f"Hit@1 by {grouping}")
    axes.legend(fontsize="small", ncols=min(len(systems), 4))
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
