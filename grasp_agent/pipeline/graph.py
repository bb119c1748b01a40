"""The GRASP search as a LangGraph `StateGraph`.

    START ─┬─ graph_branch: extract → link → plan → execute ─┬─ fuse → rerank → END
           └─ text ──────────────────────────────────────────┘

The graph branch is a compiled subgraph, so it runs as ONE node beside `text` in the same step: the two
branches overlap for the whole graph branch, not only for its first stage. Stream with
`pipeline.stream(state, stream_mode="updates", subgraphs=True)` to see each graph stage as it ends.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from grasp_agent.graph_branch.branch import STAGES as GRAPH_BRANCH_STAGES
from grasp_agent.pipeline import nodes
from grasp_agent.pipeline.parts import PipelineParts
from grasp_agent.pipeline.state import GraphBranchState, PipelineState

GRAPH_STAGES = GRAPH_BRANCH_STAGES  # extract, link, plan, execute: the graph branch's own stage names
STAGES = (*GRAPH_STAGES, "text", "fuse", "rerank")


def build_graph_branch(parts: PipelineParts) -> CompiledStateGraph[Any, Any, Any, Any]:
    builder = StateGraph(GraphBranchState)
    works = {"extract": nodes.extract, "link": nodes.link, "plan": nodes.plan, "execute": nodes.execute}
    previous = START
    for name in GRAPH_STAGES:
        builder.add_node(name, nodes.graph_stage(parts, name, works[name]))
        builder.add_edge(previous, name)
        previous = name
    builder.add_edge(previous, END)
    return builder.compile(name="graph_branch")


def build_pipeline(parts: PipelineParts) -> CompiledStateGraph[Any, Any, Any, Any]:
    builder = StateGraph(PipelineState)
    builder.add_node("graph_branch", build_graph_branch(parts))
    builder.add_node("text", nodes.text_node(parts))
    builder.add_node("fuse", nodes.fuse_node(parts))
    builder.add_node("rerank", nodes.rerank_node(parts))
    builder.add_edge(START, "graph_branch")
    builder.add_edge(START, "text")
    builder.add_edge(["graph_branch", "text"], "fuse")
    builder.add_edge("fuse", "rerank")
    builder.add_edge("rerank", END)
    return builder.compile(name="grasp")
