"""The any-SKB path on a small SKB of another domain, generated here (a library: authors, books, genres,
publishers, cities), loaded through the generic loader: `grasp bench build`'s questions have exact answers
(checked against the edge list in Python), lookups among them; `grasp train all` runs its stages on them; and
the route reader picks the asked type of a question that names none from this schema's own words."""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from pathlib import Path

import pytest
from neo4j import Driver

from grasp_agent.api import Grasp
from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.evaluation.skb_questions import SkbGraph, generate_skb_questions
from grasp_agent.graph_branch.branch import GraphBranch
from grasp_agent.pipeline.parts import assemble_parts
from grasp_agent.skb.context import read_skb_context
from grasp_agent.skb.generic import GenericSource
from grasp_agent.skb.loader import LoadOptions, load_skb
from grasp_agent.training.train_all import train_everything
from tests.conftest import reset_database
from tests.neo4j.test_skb_questions import _legs, _reached
from tests.neo4j.test_train_all import _private

SCHEMA = {
    "name": "library",
    "description": "A small generated library: who wrote which book, its genre, publisher and the authors' birthplaces.",
    "node_types": [
        {"label": "Author", "text_fields": ["bio"], "aliases": ["writer", "novelist"], "description": "A writer"},
        {"label": "Book", "text_fields": ["summary", "pages"], "aliases": ["novel", "title"], "description": "A book"},
        {"label": "Genre", "aliases": ["category"], "description": "A literary genre"},
        {"label": "Publisher", "aliases": ["press", "imprint"], "description": "A publishing house"},
        {"label": "City", "text_fields": ["population", "code"], "aliases": ["town"], "description": "A city"},
    ],
    "relation_types": [
        {
            "type": "WROTE",
            "pairs": [{"source": "Author", "target": "Book"}],
            "description": "the author wrote the book",
        },
        {"type": "IN_GENRE", "pairs": [{"source": "Book", "target": "Genre"}], "description": "the book's genre"},
        {
            "type": "PUBLISHED_BY",
            "pairs": [{"source": "Book", "target": "Publisher"}],
            "description": "the publisher printed and sold the book",
        },
        {
            "type": "BORN_IN",
            "pairs": [{"source": "Author", "target": "City"}],
            "description": "the author was born in the city",
        },
    ],
}
FIRST = "Ada Bram Cleo Dario Elin Farid Greta Hugo Ines Jonas".split()
LAST = "Quill Marsh Okafor Lindqvist Tanaka Ferreira".split()
ADJECTIVES = "Silent Amber Hollow Distant Broken Velvet Northern Hidden".split()
NOUNS = "Harbour Orchard Lantern Meridian Archive Garden Tide Compass".split()
THEMES = "a lighthouse keeper, two rival chefs, a lost violin, an old ferry, a mapmaker's daughter".split(", ")
CITIES = "Lisbon Tromso Kyoto Lagos Quito Tallinn".split()
POPULATIONS = "545,923|77,544|1,464,890|15,388,000|2,011,388|437,811".split("|")
GENRES = "Mystery Romance Fantasy Memoir".split()
PUBLISHERS = "Kestrel Press|Blue Heron Books|Marlowe House".split("|")


def _library(seed: int = 7) -> tuple[list[dict[str, object]], list[dict[str, str]]]:
    rng = random.Random(seed)
    nodes: list[dict[str, object]] = [
        {"id": f"c{i}", "type": "City", "name": name, "population": POPULATIONS[i], "code": name[:3].upper()}
        for i, name in enumerate(CITIES)
    ]
    nodes += [{"id": f"g{i}", "type": "Genre", "name": name} for i, name in enumerate(GENRES)]
    nodes += [{"id": f"p{i}", "type": "Publisher", "name": name} for i, name in enumerate(PUBLISHERS)]
    edges: list[dict[str, str]] = []
    authors = [f"{first} {last}" for first in FIRST for last in LAST][:30]
    for i, name in enumerate(authors):
        nodes.append(
            {"id": f"a{i}", "type": "Author", "name": name, "bio": f"A writer of {rng.choice(GENRES).lower()}"}
        )
        edges.append({"source": f"a{i}", "type": "BORN_IN", "target": f"c{rng.randrange(len(CITIES))}"})
    titles = [f"The {adjective} {noun}" for adjective in ADJECTIVES for noun in NOUNS]
    rng.shuffle(titles)
    for i, title in enumerate(titles[:60]):
        theme, city = rng.choice(THEMES), rng.choice(CITIES)
        summary = f"A story of {theme} in {city}, told over {i + 2} winters. It was a success."
        pages = 120 + (i * 37) % 800  # distinct for the 60 books: a quantity to rank by
        nodes.append({"id": f"b{i}", "type": "Book", "name": title, "summary": summary, "pages": f"{pages:,}"})
        edges.append({"source": f"a{rng.randrange(len(authors))}", "type": "WROTE", "target": f"b{i}"})
        edges.append({"source": f"b{i}", "type": "IN_GENRE", "target": f"g{rng.randrange(len(GENRES))}"})
        edges.append({"source": f"b{i}", "type": "PUBLISHED_BY", "target": f"p{rng.randrange(len(PUBLISHERS))}"})
    return nodes, edges


def _pages(nodes: list[dict[str, object]]) -> dict[str, int]:
    """Each book's page count, as the numbers its "1,024"-style text writes."""
    return {str(n["id"]): int(str(n["pages"]).replace(",", "")) for n in nodes if "pages" in n}


@pytest.fixture(scope="module")
def library(
    driver: Driver, test_settings: Settings, embedder: GraspEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[dict[str, object]], list[dict[str, str]]]:
    folder = tmp_path_factory.mktemp("library")
    nodes, edges = _library()
    (folder / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    (folder / "nodes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in nodes), encoding="utf-8")
    (folder / "edges.jsonl").write_text("".join(json.dumps(e) + "\n" for e in edges), encoding="utf-8")
    reset_database(driver)
    source = GenericSource(folder / "schema.json", folder / "nodes.jsonl", folder / "edges.jsonl")
    load_skb(driver, test_settings.neo4j_database, source, embedder, LoadOptions(progress=False))
    return nodes, edges


@pytest.fixture(scope="module")
def questions(library: object, driver: Driver, test_settings: Settings) -> list[EvalQuery]:
    context = read_skb_context(driver, test_settings.neo4j_database)
    return generate_skb_questions(SkbGraph(driver, test_settings.neo4j_database), context, 80, seed=2)


def test_generated_questions_of_another_domain_have_exact_answers(
    library: tuple[list[dict[str, object]], list[dict[str, str]]], questions: list[EvalQuery]
) -> None:
    nodes, edges = library
    labels = {str(n["id"]): str(n["type"]) for n in nodes}
    walk: dict[tuple[str, str, bool], set[str]] = defaultdict(set)
    for edge in edges:
        walk[edge["source"], edge["type"], True].add(edge["target"])
        walk[edge["target"], edge["type"], False].add(edge["source"])
    assert len(questions) >= 30 and {q.split for q in questions} == {"train", "valid", "test"}
    chains = [q for q in questions if q.hops and not any(mark in (q.template or "") for mark in "@~")]
    for query in chains:
        assert query.template is not None
        legs = _legs(query.template)
        reached = [_reached(walk, labels, a, leg) for a, leg in zip(query.topic_ids, legs, strict=True)]
        assert set(query.answer_ids) == set.intersection(*reached), query.text
    pages = _pages(nodes)
    superlatives = [q for q in questions if "@" in (q.template or "")]
    assert superlatives and all(q.target_type == "Book" for q in superlatives)
    for query in superlatives:
        assert query.template is not None
        walked, _, order = query.template.partition("@")
        (anchor,) = query.topic_ids
        reached = _reached(walk, labels, anchor, _legs(walked)[0])
        pick = max if order == "max:pages" else min
        assert query.answer_ids == (pick(reached, key=pages.__getitem__),), query.text
        assert len(reached) >= 2
    # a mentioning question's answer is the one node of the walk whose text (a book's summary, an author's bio;
    # a city's fields hold no word of 5 letters) holds the asked word
    texts = {str(n["id"]): set(_asked(str(n.get("summary") or n.get("bio") or ""))) for n in nodes}
    mentioning = [q for q in questions if (q.template or "").endswith("~text")]
    assert mentioning and {q.target_type for q in mentioning} <= {"Book", "Author"}
    for query in mentioning:
        assert query.template is not None
        (anchor,) = query.topic_ids
        reached = _reached(walk, labels, anchor, _legs(query.template.removesuffix("~text"))[0])
        word = _asked(query.text)[-1]  # every wording ends with the word asked for
        holders = [node for node in sorted(reached) if word in texts[node]]
        assert len(reached) >= 2 and list(query.answer_ids) == holders, query.text
    # a lookup names its answer by the first sentence of its prose (a book's summary, an author's bio) or, for
    # a type whose texts are records, by a field value no other node of its type holds (a city's code "KYO")
    lookups = [q for q in questions if q.hops == 0]
    templates = {q.template for q in lookups}
    assert {"Book=described", "City=described"} <= templates <= {"Author=described", "Book=described", "City=described"}
    summaries = {str(n["id"]): str(n.get("summary") or n.get("bio") or "") for n in nodes}
    codes = {str(n["id"]): str(n["code"]) for n in nodes if "code" in n}
    for query in lookups:
        (answer,) = query.answer_ids
        if query.template == "City=described":
            assert re.search(rf"\bcode {codes[answer]}\b", query.text, re.IGNORECASE), query.text
            assert list(codes.values()).count(codes[answer]) == 1
            assert str(next(n["name"] for n in nodes if n["id"] == answer)).lower() not in query.text.lower()
        else:
            assert summaries[answer].split(". ")[0].lower() in query.text.lower()


def _asked(text: str) -> list[str]:
    """The words of 5 letters or more (those a mentioning question may ask a text for), lower-cased."""
    return [word for word in re.findall(r"[^\W\d_]+", text.lower()) if len(word) >= 5]


def test_train_all_runs_every_stage_on_the_generated_skb(
    library: object, test_settings: Settings, tmp_path: Path
) -> None:
    settings = _private(test_settings, tmp_path)
    outcome = train_everything(settings, None, count=60, seed=3, budget_s=600, skip=["path bank"])
    assert outcome.generated and outcome.skb == "library"
    by_name = {stage.stage: stage for stage in outcome.stages}
    assert by_name["path bank"].note == "skipped: --skip"
    for name in ("field weights", "answer types", "asked type", "fusion"):
        stage = by_name[name]
        assert not stage.note.startswith("skipped") and stage.before is not None and stage.after is not None, stage
    assert (tmp_path / ".grasp" / "fusion" / "library.json").is_file() == by_name["fusion"].kept


def test_the_route_reader_reads_this_schemas_words(
    library: object, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    branch = GraphBranch.build(driver, test_settings, embedder)
    born = branch.run("Where was Ada Quill born?")
    assert born.planning.plan is not None and born.planning.plan.target.type == "City"
    assert [hop.relation for hop in born.planning.plan.hops] == ["BORN_IN"]
    assert any("asked type read from the words" in note for note in born.planning.notes)
    off = GraphBranch.build(driver, test_settings.model_copy(update={"route_reading": False}), embedder)
    plan = off.run("Where was Ada Quill born?").planning.plan
    assert plan is not None and plan.target.type == "Book"  # without the reader: the most populous type


def test_superlatives_rank_by_a_quantity_read_from_the_values(
    library: tuple[list[dict[str, object]], list[dict[str, str]]],
    driver: Driver,
    test_settings: Settings,
    embedder: GraspEmbedder,
) -> None:
    nodes, edges = library
    context = read_skb_context(driver, test_settings.neo4j_database)
    assert context.quantity_properties == {"Book": ("pages",), "City": ("population",)}
    assert context.key_properties == {"City": ("code",)}  # "LIS", "KYO": a city named by its code
    names = {str(n["id"]): str(n["name"]) for n in nodes}
    pages = _pages(nodes)
    books: dict[str, list[str]] = defaultdict(list)
    for edge in edges:
        if edge["type"] == "WROTE":
            books[edge["source"]].append(edge["target"])
    author = max(sorted(books), key=lambda a: len(books[a]))
    assert len(books[author]) >= 3
    branch = GraphBranch.build(driver, test_settings, embedder)
    longest = branch.run(f"Which book written by {names[author]} has the most pages?")
    plan = longest.planning.plan
    assert plan is not None and plan.order is not None and plan.order.property == "pages"
    ranked = longest.ranking.node_ids
    assert ranked == sorted(books[author], key=lambda b: -pages[b])
    assert any("ranked by pages, largest first" in note for note in longest.planning.notes)
    shortest = branch.run(f"What is the shortest book by {names[author]}, in pages?")
    assert shortest.ranking.node_ids[:1] == [min(books[author], key=pages.__getitem__)]
    everywhere = branch.run("Which town has the largest population?")
    assert everywhere.ranking.node_ids[:1] == ["c3"]  # no anchor: every city, by its population
    # fused, the graph's order stands: the text branch cannot rank by a quantity
    with Grasp(assemble_parts(driver, test_settings, embedder)) as grasp:
        result = grasp.search(f"Which book written by {names[author]} has the most pages?", k=3, rerank=False)
    assert result.node_ids == ranked[:3]
    assert any("the graph's order kept" in note for note in result.notes)


def test_a_node_named_by_a_key_property_is_an_anchor(
    library: tuple[list[dict[str, object]], list[dict[str, str]]],
    driver: Driver,
    test_settings: Settings,
    embedder: GraspEmbedder,
) -> None:
    nodes, edges = library
    born = {edge["source"] for edge in edges if edge["type"] == "BORN_IN" and edge["target"] == "c2"}  # Kyoto
    assert born
    branch = GraphBranch.build(driver, test_settings, embedder)
    result = branch.run("Which authors were born in KYO?")
    plan = result.planning.plan
    assert plan is not None and [(a.type, a.text) for a in plan.anchors] == [("City", "KYO")]
    assert set(result.ranking.node_ids) == born
