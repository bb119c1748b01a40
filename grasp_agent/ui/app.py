"""The Gradio Blocks demo over one `Grasp`: layout, and handlers that turn pipeline events into panel updates.

with Grasp.from_config() as grasp:
    build_app(grasp, Settings()).launch()      # or: grasp ui
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import gradio as gr
from pydantic import ValidationError
from starlette.middleware import Middleware

from grasp_agent.api import Grasp, StageEvent
from grasp_agent.config import Settings
from grasp_agent.errors import QuestionError, describe
from grasp_agent.pipeline.graph import STAGES
from grasp_agent.pipeline.options import SearchOptions
from grasp_agent.pipeline.results import SearchResult
from grasp_agent.question_text import checked_question
from grasp_agent.ui import graphs, panels, paths_view, tables
from grasp_agent.ui.guard import RequestGuard, RequestRules

logger = logging.getLogger(__name__)

PATH_EXAMPLES = [
    "Which genes are associated with diseases that present epileptic spasm?",
    "What genes are linked to Developmental and epileptic encephalopathy 96?",
]
EXAMPLES = [
    "Which diseases present with epileptic spasms and are associated with the gene NSF?",
    "Which diseases present with epileptic spasms?",
    "Which genes are associated with Developmental and epileptic encephalopathy 96?",
    "What phenotypes are seen in Developmental and epileptic encephalopathy 96?",
    "epileptic spasm",
]
# System fonts only: the default theme loads Google Fonts, which an offline machine cannot reach.
THEME = gr.themes.Default(
    font=["ui-sans-serif", "system-ui", "sans-serif"], font_mono=["ui-monospace", "SFMono-Regular", "monospace"]
)
Components = dict[str, Any]


def build_app(grasp: Grasp, settings: Settings) -> gr.Blocks:
    """The demo page; `launch()` it (the CLI binds 127.0.0.1 unless told to expose it)."""
    app = gr.Blocks(title="GRASP demo", analytics_enabled=False)
    with app:
        gr.Markdown(
            "# GRASP: hybrid graph + text retrieval\nAsk a question about the loaded knowledge base; "
            "each stage of the pipeline shows here as it ends."
        )
        with gr.Tab("Search", elem_id="search-tab"):
            question, run, options = _query_row(grasp, settings)
            ui = _result_panels(grasp)
        with gr.Tab("Paths (AdaPath)", elem_id="paths-tab"):
            _paths_tab(grasp, settings.ui_concurrency)
        outputs = [ui[name] for name in panels.PANELS]

        def search(text: str, fusion: str, rerank: bool, rerank_k: float, planner: str) -> Iterator[dict[Any, Any]]:
            for update in search_updates(grasp, settings, text, fusion, rerank, rerank_k, planner):
                yield {ui[name]: value for name, value in update.items()}

        def select(selection: panels.Selection, event: gr.SelectData) -> dict[Any, Any]:
            row = event.index[0] if isinstance(event.index, list | tuple) else int(event.index)
            return {ui[name]: value for name, value in panels.hit_panels(selection, row).items()}

        for trigger in (run.click, question.submit):
            trigger(
                search,
                inputs=[question, *options],
                outputs=outputs,
                concurrency_id="search",
                concurrency_limit=settings.ui_concurrency,
            )
        ui["final_rank"].select(select, inputs=[ui["selection"]], outputs=[ui["document"], ui["path_graph"]])
    # Gradio runs one event of a kind at a time unless told otherwise: one slow search made every other
    # visitor wait. Now `ui_concurrency` searches (and as many path searches) run at once, the rest queue.
    app.queue(default_concurrency_limit=settings.ui_concurrency, max_size=settings.ui_queue_size)
    return app


def launch_options(host: str, port: int, *, loopback: bool) -> dict[str, Any]:
    """What `launch()` needs besides host and port: the offline theme, no share link, no API page, and the
    request guard (`guard`: uploads refused; on a `loopback` bind, requests for other host names too)."""
    rules = RequestRules.for_bind(host, port, loopback)
    return {
        "theme": THEME,
        "share": False,
        "footer_links": ["gradio"],
        "show_error": False,
        "ssr_mode": False,  # the Node front server would answer before the guard
        "max_file_size": "1kb",  # a backstop: the guard refuses the routes that store files
        "app_kwargs": {"middleware": [Middleware(RequestGuard, rules=rules)]},
    }


def _query_row(grasp: Grasp, settings: Settings) -> tuple[gr.Textbox, gr.Button, list[Any]]:
    with gr.Row():
        with gr.Column(scale=3):
            question = gr.Textbox(
                label="Question",
                placeholder=EXAMPLES[0],
                lines=2,
                elem_id="question",
                max_length=settings.max_question_chars,
            )
            run = gr.Button("Search", variant="primary", elem_id="search")
            gr.Examples(examples=[[text] for text in EXAMPLES], inputs=[question], label="Examples")
        with gr.Column(scale=2), gr.Accordion("Settings", open=True):
            planners = [name for name in ("llm", "heuristic", "pathbank") if name in grasp.parts.graph_branches]
            missing = [
                why
                for name, why in (
                    ("llm", "llm: no LLM is configured (GRASP_LLM)"),
                    ("pathbank", "pathbank: no Path-Bank (grasp adapath build-bank)"),
                )
                if name not in planners
            ]
            configuration = grasp.configuration
            fusion = gr.Radio(["static", "dynamic"], value=configuration.fusion_policy.value, label="Fusion")
            has_reranker = grasp.parts.reranker is not None
            # Starts ticked only when the reranker measured a gain on valid; the info line says why.
            rerank = gr.Checkbox(
                value=configuration.rerank_by_default.value,
                interactive=has_reranker,
                label="Rerank" + ("" if has_reranker else " (no reranker configured)"),
                info=f"{'On' if configuration.rerank_by_default.value else 'Off'} by default: "
                f"{configuration.rerank_by_default.source}",
                elem_id="rerank",
            )
            rerank_k = gr.Slider(1, 200, value=settings.rerank_k, step=1, label="Rerank K (fused candidates read)")
            planner = gr.Radio(
                planners, value=grasp.parts.default_planner, label="Planner", info="; ".join(missing) or None
            )
            with gr.Accordion("Configuration in force", open=False):
                gr.Markdown("\n".join(f"- {line}" for line in configuration.lines()), elem_id="configuration")
    return question, run, [fusion, rerank, rerank_k, planner]


def _result_panels(grasp: Grasp) -> Components:
    ui: Components = {"selection": gr.State(panels.Selection())}
    with gr.Row():
        with gr.Column(scale=1):
            ui["progress"] = gr.Markdown(tables.stage_progress(STAGES, {}, running=False), elem_id="progress")
        with gr.Column(scale=2):
            ui["status"] = gr.Markdown("", elem_id="status")
            ui["entities"] = gr.Dataframe(label="Entity table (mentions linked to nodes)", interactive=False)
    with gr.Row():
        ui["plan_json"] = gr.JSON(label="Plan")
        with gr.Column():
            gr.Markdown("**Plan graph** (anchors → hops → target)")
            ui["plan_graph"] = gr.HTML(graphs.placeholder("no search yet"), elem_id="plan-graph")
    ui["cypher"] = gr.Code(
        language="sql-gql", label="Compiled Cypher", buttons=["copy"], interactive=False, elem_id="cypher"
    )
    ui["browser"] = gr.Markdown("", elem_id="browser-link")
    ui["params"] = gr.Code(label=":param lines for Neo4j Browser", buttons=["copy"], interactive=False, lines=2)
    with gr.Row():
        ui["graph_rank"] = gr.Dataframe(label="Graph branch", interactive=False, wrap=True)
        ui["text_rank"] = gr.Dataframe(label="Text branch", interactive=False)
    with gr.Row():
        ui["fused_rank"] = gr.Dataframe(label="Fused (RRF)", interactive=False)
        ui["final_rank"] = gr.Dataframe(
            label="Final ranking (click a row for its document)", interactive=False, elem_id="final-ranking"
        )
    with gr.Row():
        with gr.Column():
            gr.Markdown("**Witness path** of the selected answer (the top one first)")
            ui["path_graph"] = gr.HTML(graphs.placeholder("no search yet"), elem_id="path-graph")
        ui["document"] = gr.Markdown("", elem_id="document")
    _about_panel(grasp)
    return ui


def _paths_tab(grasp: Grasp, concurrency: int) -> None:
    gr.Markdown(
        "Paths from the entity the question names that follow the kinds of path similar training questions "
        "needed (the Path-Bank: `grasp adapath build-bank`); the answer is read off the paths."
    )
    with gr.Row():
        with gr.Column(scale=3):
            question = gr.Textbox(
                label="Question",
                placeholder=PATH_EXAMPLES[0],
                lines=2,
                elem_id="path-question",
                max_length=grasp.parts.settings.max_question_chars,
            )
            run = gr.Button("Find paths", variant="primary", elem_id="find-paths")
            gr.Examples(examples=[[text] for text in PATH_EXAMPLES], inputs=[question], label="Examples")
        with gr.Column(scale=2):
            meta_paths = gr.Radio(
                ["bank", "planner", "none"],
                value="bank",
                label="Meta-paths from",
                info="bank: similar training questions; planner: the GRASP plan; none: unguided",
            )
            has_llm = grasp.path_parts.llm is not None
            scorer = gr.Radio(
                ["embedding", "llm"] if has_llm else ["embedding"],
                value="embedding",
                label="Frontier scorer",
                info=None if has_llm else "llm: no LLM is configured",
            )
    ui: Components = {"path_answer": gr.Markdown("", elem_id="path-answer")}
    ui["path_meta"] = gr.Dataframe(label="Meta-paths offered", interactive=False)
    with gr.Row():
        with gr.Column(scale=3):
            gr.Markdown("**Paths found** (topics blue, answers orange)")
            ui["path_graph_all"] = gr.HTML(graphs.placeholder("no search yet"), elem_id="paths-graph")
        ui["path_table"] = gr.Dataframe(label="Paths", interactive=False, wrap=True, elem_id="paths-table")
    ui["path_notes"] = gr.Markdown("", elem_id="path-notes")

    def find(text: str, source: str, chosen: str) -> dict[Any, Any]:
        return {ui[name]: value for name, value in paths_view.path_updates(grasp, text, source, chosen).items()}

    for trigger in (run.click, question.submit):
        trigger(
            find,
            inputs=[question, meta_paths, scorer],
            outputs=[ui[name] for name in paths_view.PANELS],
            concurrency_id="paths",
            concurrency_limit=concurrency,
        )


def _about_panel(grasp: Grasp) -> None:
    context = grasp.parts.graph_branch(None).context
    with gr.Accordion(f"About this KB: {context.schema.name}", open=False):
        gr.Markdown(context.schema.description or "")
        gr.Dataframe(tables.types_frame(context), label="Node types", interactive=False)
        gr.Dataframe(tables.relations_frame(context), label="Relations", interactive=False)


def search_updates(
    grasp: Grasp, settings: Settings, text: str, fusion: str, rerank: bool, rerank_k: float, planner: str
) -> Iterator[dict[str, Any]]:
    """Panel updates for one search, as its stages end. Never raises: errors become a message on the page."""
    if not (text or "").strip():
        gr.Warning("Type a question first.")
        yield {"status": "**Type a question first** (or pick one of the examples)."}
        return
    try:
        question = checked_question(text, settings.max_question_chars)
    except QuestionError as error:
        gr.Warning(str(error))
        yield {"status": f"**Question not accepted:** {error}"}
        return
    try:
        options = SearchOptions(
            fusion=fusion,  # type: ignore[arg-type]
            rerank=rerank,
            rerank_k=int(rerank_k),
            planner=planner,  # type: ignore[arg-type]
        )
    except ValidationError as error:
        yield {"status": f"**Invalid settings:** {error.errors()[0]['loc']}: {error.errors()[0]['msg']}"}
        return
    yield panels.cleared(STAGES)
    state: dict[str, Any] = {}
    done: dict[str, tuple[float, float]] = {}
    try:
        for event in grasp.stream(question, options):
            if isinstance(event, StageEvent):
                state.update(event.update)
                done[event.stage] = (event.ms, event.elapsed_ms)
                update = panels.stage_panels(event.stage, state, settings.browser_url)
                yield {**update, "progress": tables.stage_progress(STAGES, done, running=True)}
            elif isinstance(event, SearchResult):
                if event.failures:
                    gr.Warning("; ".join(f"{name} branch: {reason}" for name, reason in event.failures.items()))
                yield {
                    **panels.result_panels(event, state),
                    "progress": tables.stage_progress(STAGES, done, running=False),
                }
    except Exception as error:  # the page's boundary: a message, never a stack trace
        logger.warning("search failed", exc_info=True)
        gr.Warning(f"Search failed: {describe(error)}")
        yield {
            "status": f"**Search failed:** {describe(error)}",
            "progress": tables.stage_progress(STAGES, done, running=False),
        }
