"""What a search runs on: the branches, the reranker and the fusion tables of one loaded SKB."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from neo4j import Driver

from grasp_agent.adapath.bank_planner import PathBankPlanner
from grasp_agent.adapath.bank_store import BankStore
from grasp_agent.config import Settings
from grasp_agent.db.availability import DatabaseAvailability
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import GraspError
from grasp_agent.fusion.tables import DynamicFusionTables
from grasp_agent.graph_branch.branch import GraphBranch
from grasp_agent.llm.base import GraspLLM
from grasp_agent.pipeline.configuration import SearchConfiguration, choose_fusion_tables, resolve_configuration
from grasp_agent.pipeline.options import PlannerName
from grasp_agent.rerank.base import Reranker
from grasp_agent.rerank.budget import RerankGate
from grasp_agent.rerank.factory import make_reranker
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.text_branch.fields import TextBranchError
from grasp_agent.text_branch.from_database import open_text_branch
from grasp_agent.text_branch.own_text import OwnTextReader
from grasp_agent.text_branch.retriever import TextBranch

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PipelineParts:
    settings: Settings
    driver: Driver
    embedder: GraspEmbedder
    graph_branches: Mapping[PlannerName, GraphBranch]  # "heuristic" always; "llm" when an LLM is configured
    text_branch: TextBranch | None
    text_unavailable: str | None  # why there is no text branch (searches then run on the graph branch alone)
    reranker: Reranker | None
    fusion_tables: DynamicFusionTables
    configuration: SearchConfiguration  # the fusion/rerank values in force and where each came from
    rerank_gate: RerankGate  # bounds what reranking may cost each search under load
    availability: DatabaseAvailability = field(default_factory=DatabaseAvailability)  # skips a database that is down

    def __post_init__(self) -> None:
        if self.availability.probe is None:  # the probe is this driver's connectivity check
            self.availability.probe = self.driver.verify_connectivity

    @property
    def schema(self) -> SkbSchema:
        return self.graph_branches["heuristic"].context.schema

    @property
    def static_graph_weight(self) -> float:
        return self.configuration.static_graph_weight.value

    @property
    def rerank_weight(self) -> float:
        return self.configuration.rerank_weight.value

    @property
    def default_planner(self) -> PlannerName:
        """GRASP_PLANNER; auto: the LLM planner when an LLM is configured, else the heuristic."""
        chosen = self.settings.planner
        if chosen != "auto":
            return chosen
        return "llm" if "llm" in self.graph_branches else "heuristic"

    def graph_branch(self, planner: PlannerName | None) -> GraphBranch:
        """The branch of the asked planner (default: `default_planner`); a clear error for one not assembled."""
        chosen = planner or self.default_planner
        if chosen not in self.graph_branches:
            needs = {
                "llm": "GRASP_LLM (an LLM backend)",
                "pathbank": "a Path-Bank in the database (`grasp adapath build-bank --queries F`)",
            }
            raise GraspError(f"planner '{chosen}' is not available: it needs {needs.get(chosen, chosen)}")
        return self.graph_branches[chosen]


def with_text_evidence(branch: GraphBranch, text_branch: TextBranch | None, settings: Settings) -> GraphBranch:
    """The graph branch reading the text branch's indexes too: described entities found and bound by the nodes'
    own text fields (their cosines and the share of a clause's words they hold: `OwnTextReader`;
    `GRASP_DOC_ANCHOR_FIELDS`), targets rescored by the relevance text's words (BM25)."""
    similarity = (
        OwnTextReader(text_branch.dense, text_branch.lexical)
        if settings.doc_anchor_fields and text_branch is not None and text_branch.dense is not None
        else None
    )
    lexical = text_branch.lexical if text_branch is not None else None
    return branch.with_field_similarity(similarity).with_lexical(lexical)


def assemble_parts(
    driver: Driver,
    settings: Settings,
    embedder: GraspEmbedder,
    llm: GraspLLM | None = None,
    *,
    skb_name: str | None = None,
    progress: bool = False,
) -> PipelineParts:
    """Every part of the loaded SKB (`skb_name`, or the only one). The text indexes are built on first use;
    a text branch that cannot open is recorded, not raised, so the graph branch still serves."""
    heuristic = GraphBranch.build(driver, settings, embedder, skb_name=skb_name)
    schema = heuristic.context.schema
    text_branch, unavailable = None, None
    try:
        text_branch = open_text_branch(driver, settings, embedder, schema, progress=progress)
    except TextBranchError as error:
        unavailable = f"text branch unavailable: {error}"
        logger.warning(unavailable)
    heuristic = with_text_evidence(heuristic, text_branch, settings)
    branches: dict[PlannerName, GraphBranch] = {"heuristic": heuristic}
    if llm is not None:
        branches["llm"] = with_text_evidence(
            GraphBranch.build(driver, settings, embedder, llm, skb_name=skb_name, dictionary=heuristic.dictionary),
            text_branch,
            settings,
        )
    if BankStore(driver, settings.neo4j_database).identity() is not None:
        branches["pathbank"] = heuristic.with_planner(
            PathBankPlanner(
                driver, settings.neo4j_database, embedder, heuristic.context, bank_queries=settings.adapath_bank_queries
            )
        )
    elif settings.planner == "pathbank":
        raise GraspError(
            "GRASP_PLANNER=pathbank needs a Path-Bank in the database: run "
            "`grasp adapath build-bank --queries F` first (or choose another planner)"
        )
    tables = choose_fusion_tables(settings, schema.name, embedder.model_id)
    reranker = make_reranker(settings, embedder, llm, schema)
    configuration = resolve_configuration(settings, tables, reranker.model_id if reranker is not None else None)
    return PipelineParts(
        settings,
        driver,
        embedder,
        branches,
        text_branch,
        unavailable,
        reranker,
        tables.tables,
        configuration,
        RerankGate(settings.rerank_budget_s, settings.rerank_slots),
    )
