"""`grasp bench build-hpo`: write a STaRK-style HPO benchmark (JSONL) and print what it holds."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import typer
from rich.table import Table

from grasp_agent.cli._common import console, friendly_errors, progress_lines

_ANSWER_BINS = ((1, 1), (2, 3), (4, 5), (6, 10), (11, 20))
_SPLIT_NAMES = ("train", "valid", "test")


OUT = typer.Option(..., "--out", help="The JSONL file to write (grasp eval / read_queries format).")
COUNT = typer.Option(600, "--count", min=0, help="Queries to build (fewer if the graph runs out).")
SEED = typer.Option(0, "--seed", help="Seed for anchors, levels and wording.")
SUBSET = typer.Option(None, "--subset", help="Build on this HPO slice (as loaded), e.g. HP:0011097.")
ANCHORS_OUT = typer.Option(None, "--anchors-out", help="Also write each query's anchors and keyword (JSONL) here.")


@friendly_errors
def build_hpo(
    out: Path = OUT, count: int = COUNT, seed: int = SEED, subset: list[str] = SUBSET, anchors_out: Path = ANCHORS_OUT
) -> None:
    """STaRK-style HPO queries: 1-3 hop templates at explicit/implicit/bare levels, exact answer sets (1..20)."""
    from grasp_agent.evaluation.hpo_benchmark import build_hpo_benchmark, write_benchmark
    from grasp_agent.skb.hpo import HpoSource

    started = time.perf_counter()
    queries = build_hpo_benchmark(HpoSource(subset_roots=tuple(subset) if subset else None), count, seed)
    write_benchmark(out, queries, anchors_out)
    elapsed = time.perf_counter() - started
    console.print(f"{len(queries)} queries written to {out} in {elapsed:.1f} s", highlight=False)
    _show_counts([(q.template, q.hops, q.level, q.split) for q in queries])
    _show_answers([(q.hops, len(q.answer_ids)) for q in queries])


def _show_counts(rows: list[tuple[str, int, str, str]]) -> None:
    """Queries per template, level and split."""
    from grasp_agent.evaluation.hpo_benchmark import LEVELS, TEMPLATES

    cells = Counter((template, level, split) for template, _, level, split in rows)
    table = Table("template", "hops", "level", *_SPLIT_NAMES, "total", title="queries per template x level x split")
    for template, spec in TEMPLATES.items():
        for level in spec.levels():
            counts = [cells[template, level, split] for split in _SPLIT_NAMES]
            table.add_row(template, str(spec.hops), level, *map(str, counts), str(sum(counts)))
    for level in LEVELS:
        counts = [sum(cells[template, level, split] for template in TEMPLATES) for split in _SPLIT_NAMES]
        table.add_row("all", "", level, *map(str, counts), str(sum(counts)), style="bold")
    splits = Counter(split for *_, split in rows)
    table.add_row("all", "", "all", *[str(splits[split]) for split in _SPLIT_NAMES], str(len(rows)), style="bold")
    console.print(table)


def _show_cells(
    header: str, rows: Iterable[str], columns: Sequence[str], pairs: Sequence[tuple[str | None, str | None]], title: str
) -> None:
    """How many questions fall in each (row, column) cell, e.g. kind x wording family."""
    cells = Counter(pairs)
    table = Table(header, *columns, title=title)
    for row in rows:
        table.add_row(row, *[str(cells[row, column]) for column in columns])
    console.print(table)


def _show_answers(rows: list[tuple[int, int]]) -> None:
    """How many queries have 1, 2-3, 4-5, 6-10 and 11-20 answers, per hop count."""
    table = Table(
        "hops",
        *[str(low) if low == high else f"{low}-{high}" for low, high in _ANSWER_BINS],
        "mean",
        title="answers per query",
    )
    for hops in sorted({hops for hops, _ in rows}):
        sizes = [size for of, size in rows if of == hops]
        table.add_row(
            str(hops),
            *[str(sum(low <= size <= high for size in sizes)) for low, high in _ANSWER_BINS],
            f"{sum(sizes) / len(sizes):.1f}",
        )
    console.print(table)


@friendly_errors
def build_novel(
    out: Path = typer.Option(..., "--out", help="The novel-wording set to write (JSONL)."),
    groups_out: Path = typer.Option(..., "--groups-out", help="The perturbation groups to write (JSONL)."),
    seed: int = SEED,
    per_cell: int = typer.Option(4, "--per-cell", min=1, help="Questions per kind and wording family."),
    exclude: Path | None = typer.Option(
        None, "--exclude", help="A benchmark file whose requirements are left out (e.g. docs/eval/hpo_bench.jsonl)."
    ),
) -> None:
    """HPO questions in wording families the benchmark never uses (vignettes, X-related, terse, lists, lower
    case, typos, abbreviations, paraphrased definitions, irrelevant context), answers from the graph."""
    from grasp_agent.evaluation.novel_wording import FAMILIES, KINDS, build_novel_wording, write_queries
    from grasp_agent.evaluation.query_sets import read_queries
    from grasp_agent.skb.hpo import HpoSource

    started = time.perf_counter()
    excluded = frozenset(query.id for query in read_queries(exclude)) if exclude is not None else frozenset()
    queries, groups = build_novel_wording(HpoSource(), seed, per_cell, excluded)
    write_queries(out, queries)
    write_queries(groups_out, groups)
    console.print(
        f"{len(queries)} questions to {out}, {len(groups)} in perturbation groups to {groups_out} "
        f"in {time.perf_counter() - started:.1f} s",
        highlight=False,
    )
    cells = [(query.template, query.family) for query in queries]
    _show_cells("kind", KINDS, FAMILIES, cells, "questions per kind x wording family")


@friendly_errors
def build_skb(
    out: Path = OUT,
    skb: str = typer.Option(None, "--skb", help="The loaded SKB to build on (default: the only one loaded)."),
    count: int = COUNT,
    seed: int = SEED,
    max_answers: int = typer.Option(20, "--max-answers", min=1, help="Most answers a question may have."),
) -> None:
    """Synthetic questions for any loaded SKB: templates from its schema (1-2 hop chains, two-anchor
    conjunctions, lookups by a node's own text, superlatives, the one node of a walk whose text holds a word),
    exact answers from the graph, wording families from its type and relation names, train/valid/test split by
    requirement."""
    from grasp_agent.cli._common import load_settings
    from grasp_agent.db.connection import open_driver
    from grasp_agent.evaluation.query_sets import write_queries
    from grasp_agent.evaluation.skb_questions import FAMILIES, SkbGraph, generate_skb_questions
    from grasp_agent.skb.context import read_skb_context

    settings = load_settings()
    started = time.perf_counter()
    with open_driver(settings) as driver, progress_lines("Building questions") as show:
        context = read_skb_context(driver, settings.neo4j_database, skb)
        queries = generate_skb_questions(
            SkbGraph(driver, settings.neo4j_database),
            context,
            count,
            seed,
            max_answers,
            progress=lambda done, total: show(f"template {done} of {total}"),
        )
    write_queries(out, queries)
    console.print(
        f"{len(queries)} synthetic questions about {context.schema.name} written to {out} "
        f"in {time.perf_counter() - started:.1f} s",
        highlight=False,
    )
    cells = [(query.level, query.split) for query in queries]
    _show_cells("family", FAMILIES, _SPLIT_NAMES, cells, "questions per wording family x split")
    _show_answers([(q.hops or 0, len(q.answer_ids)) for q in queries])
