"""The demo UI's pure parts: graphs as offline pyvis pages, tables from stage outputs, the Browser link and the
`:param` lines, the panels a row click fills, and the CLI's host check."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from grasp_agent.cli.ui import check_host
from grasp_agent.errors import GraspError
from grasp_agent.fusion.policies import FusionMode, FusionResult
from grasp_agent.fusion.rrf import FusedItem
from grasp_agent.graph_branch.entity_table import EntityRow, EntityTable
from grasp_agent.graph_branch.mentions import Mention, MentionRole
from grasp_agent.graph_branch.plan import Plan
from grasp_agent.graph_branch.procedure_calls import NodeLink, RankedNode
from grasp_agent.graph_branch.ranking import GraphRanking
from grasp_agent.pipeline.results import SearchHit
from grasp_agent.skb.context import SkbContext
from grasp_agent.skb.hpo import HPO_SCHEMA
from grasp_agent.text_branch.retriever import TextRanking
from grasp_agent.ui import tables
from grasp_agent.ui.cypher_link import browser_link, cypher_literal, param_block
from grasp_agent.ui.graphs import iframe, path_graph_html, plan_graph_html
from grasp_agent.ui.panels import Selection, failure_lines, hit_panels

PLAN = Plan.model_validate(
    {
        "anchors": [
            {"var": "a1", "type": "Phenotype", "text": "epileptic spasms"},
            {"var": "a2", "type": "Gene", "text": "NSF"},
        ],
        "hops": [
            {"source": "a1", "relation": "HAS_PHENOTYPE", "target": "t"},
            {"source": "a2", "relation": "ASSOCIATED_WITH", "target": "t"},
        ],
        "target": {"var": "t", "type": "Disease"},
    }
)
DEE96 = {"var": "t", "id": "OMIM:619340", "name": "DEE 96", "label": "Disease"}
WITNESS = (
    {"var": "a1", "id": "HP:0011097", "name": "Epileptic spasm", "label": "Phenotype"},
    {"type": "HAS_PHENOTYPE", "direction": "<-"},
    DEE96,
    {"var": "a2", "id": "NCBIGene:4905", "name": "NSF", "label": "Gene"},
    {"type": "ASSOCIATED_WITH", "direction": "->"},
    DEE96,
)
REMOTE = re.compile(r"<(?:script|link)\b[^>]*\b(?:src|href)=\"https?://", re.IGNORECASE)


def _dataset(page: str, name: str) -> str:
    match = re.search(rf"{name} = new vis\.DataSet\((\[.*?\])\);", page, re.DOTALL)
    assert match is not None
    return match.group(1)


def test_the_plan_graph_has_one_box_per_variable_and_one_arrow_per_hop() -> None:
    page = plan_graph_html(PLAN)
    nodes, edges = _dataset(page, "nodes"), _dataset(page, "edges")
    assert [m for m in re.findall(r'"id": "(\w+)"', nodes)] == ["a1", "a2", "t"]
    assert '"from": "a1"' in edges and '"label": "HAS_PHENOTYPE"' in edges and '"label": "ASSOCIATED_WITH"' in edges
    assert "new vis.Network" in page and REMOTE.search(page) is None  # vis-network inlined, nothing fetched


def test_the_witness_graph_draws_relationships_in_their_stored_direction() -> None:
    edges = _dataset(path_graph_html(WITNESS), "edges")
    # Epileptic spasm <-[HAS_PHENOTYPE]- DEE 96 and NSF -[ASSOCIATED_WITH]-> DEE 96
    assert '"from": "OMIM:619340", "label": "HAS_PHENOTYPE", "to": "HP:0011097"' in edges
    assert '"from": "NCBIGene:4905", "label": "ASSOCIATED_WITH", "to": "OMIM:619340"' in edges
    nodes = _dataset(path_graph_html(WITNESS), "nodes")
    assert nodes.count('"id": "OMIM:619340"') == 1  # the shared target is drawn once


def test_an_iframe_escapes_the_page_into_srcdoc() -> None:
    frame = iframe('<p class="x">a & b</p>')
    srcdoc = re.search(r'srcdoc="([^"]*)"', frame)
    assert srcdoc is not None and html.unescape(srcdoc.group(1)) == '<p class="x">a & b</p>'
    assert 'sandbox="allow-scripts"' in frame


def test_the_browser_link_carries_the_query_in_the_edit_command() -> None:
    query = "MATCH (a:`Phenotype` {id: $id}) RETURN a.name AS name // 100% & more"
    link = browser_link("http://127.0.0.1:7474/browser/", query)
    parts = urlsplit(link)
    assert parts.path == "/browser/" and parse_qs(parts.query) == {"cmd": ["edit"], "arg": [query]}


def test_parameters_become_param_lines_with_cypher_literals() -> None:
    block = param_block({"bindings_a1": [{"id": "HP:0011097", "score": 0.75}], "limit": 100, "odd key": None})
    assert block.splitlines() == [
        ':param bindings_a1 => [{id: "HP:0011097", score: 0.75}]',
        ":param limit => 100",
        ":param `odd key` => null",
    ]
    assert cypher_literal('say "hi"\n') == '"say \\"hi\\"\\n"' and cypher_literal(True) == "true"
    with pytest.raises(ValueError, match="no Cypher literal"):
        cypher_literal(float("nan"))


def _entity_table() -> EntityTable:
    spasm = NodeLink("HP:0011097", "Epileptic spasm", "Phenotype", 0.93, 40)
    return EntityTable(
        (
            EntityRow(Mention(text="epileptic spasms", types=("Phenotype",)), {"Phenotype": (spasm,)}),
            EntityRow(Mention(text="diseases", types=("Disease",), role=MentionRole.TARGET), {}),
        )
    )


def test_the_entity_frame_lists_each_candidate_and_marks_unmatched_mentions() -> None:
    frame = tables.entity_frame(_entity_table())
    assert frame.values.tolist()[0] == [
        "epileptic spasms",
        "anchor",
        "name",
        "Phenotype",
        "HP:0011097",
        "Epileptic spasm",
        0.93,
        40,
    ]
    assert frame.iloc[1]["name"] == "(no match)" and frame.iloc[1]["role"] == "target"


def test_fused_rows_say_which_branch_ranked_each_node() -> None:
    fusion = FusionResult(
        (FusedItem("OMIM:619340", 0.016, (1, 3)), FusedItem("HP:0011097", 0.008, (None, 1))),
        0.5,
        FusionMode.HYBRID,
        60.0,
    )
    names = tables.node_names(_entity_table(), GraphRanking((RankedNode("OMIM:619340", "DEE 96", 1, 0, 1),)), "Disease")
    frame = tables.fused_frame(fusion, names)
    assert frame[["node id", "name", "type", "from"]].values.tolist() == [
        ["OMIM:619340", "DEE 96", "Disease", "graph+text"],
        ["HP:0011097", "Epileptic spasm", "Phenotype", "text"],
    ]
    text = tables.text_frame(TextRanking("mfar", ("HP:0011097", "HP:0000001"), (2.5, 1.0)), names)
    assert text["name"].tolist() == ["Epileptic spasm", ""] and text["rank"].tolist() == [1, 2]


def test_stage_progress_shows_done_and_waiting_stages_and_the_total() -> None:
    shown = tables.stage_progress(
        ("extract", "execute", "rerank"), {"extract": (12.4, 12.4), "execute": (80, 95)}, running=True
    )
    assert "| extract | done | 12 |" in shown and "| graph (execute) | done | 80 |" in shown
    assert "| rerank | running | |" in shown and shown.endswith("| **total** | running | 95 |")


def test_kb_frames_count_types_and_relations() -> None:
    context = SkbContext(HPO_SCHEMA, {("Gene", "ASSOCIATED_WITH", "Disease"): 12}, {"Disease": 3, "Gene": 2})
    types = tables.types_frame(context)
    assert types.set_index("type")["nodes"].to_dict() == {"Phenotype": 0, "Disease": 3, "Gene": 2}
    assert tables.relations_frame(context).values.tolist() == [["Gene", "ASSOCIATED_WITH", "Disease", 12]]


def test_a_row_click_shows_that_hits_document_and_its_witness_or_why_not() -> None:
    graph_hit = SearchHit(
        rank=1,
        node_id="OMIM:619340",
        name="DEE 96",
        label="Disease",
        score=0.03,
        graph_rank=1,
        document="Disease: DEE 96",
    )
    text_hit = SearchHit(
        rank=2, node_id="HP:0011097", name="Epileptic spasm", label="Phenotype", score=0.01, text_rank=1
    )
    selection = Selection((graph_hit, text_hit), {"OMIM:619340": WITNESS})
    first = hit_panels(selection, 0)
    assert "Disease: DEE 96" in first["document"] and "<iframe" in first["path_graph"]
    second = hit_panels(selection, 1)
    assert "No document was read" in second["document"] and "no witness path" in second["path_graph"]
    assert hit_panels(selection, 5) == {}
    assert tables.final_frame(selection.hits)["from"].tolist() == ["graph", "text"]


def test_failures_and_notes_read_as_lines() -> None:
    assert failure_lines({"graph": "extract failed: DriverError"}, ["text-only fusion"]).splitlines() == [
        "- **graph branch gave nothing:** extract failed: DriverError",
        "- note: text-only fusion",
    ]
    assert failure_lines({}) == ""


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost", "127.0.0.2"])
def test_loopback_hosts_need_no_flag(host: str) -> None:
    check_host(host, expose=False)


def test_other_hosts_need_expose() -> None:
    with pytest.raises(GraspError, match="--host 0.0.0.0 .* Add --expose"):
        check_host("0.0.0.0", expose=False)
    check_host("0.0.0.0", expose=True)
