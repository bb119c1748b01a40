import pytest

from grasp_agent.cypher_queries import load_statements, parse_named_statements
from grasp_agent.errors import CypherFileError


def test_blocks_are_split_by_name_with_comments_and_semicolons_dropped() -> None:
    text = "// file comment\n\n// name: first\n// what it does\nMATCH (n)\nRETURN n;\n\n// name: second\nRETURN 1;\n"
    assert parse_named_statements(text, "x.cypher") == {"first": "MATCH (n)\nRETURN n", "second": "RETURN 1"}


@pytest.mark.parametrize(
    "text,message",
    [
        ("RETURN 1;", "x.cypher:1: Cypher before the first"),
        ("// name: a\nRETURN 1;\n// name: a\nRETURN 2;", "x.cypher:3: statement name 'a' is used twice"),
        ("// name: a\n// only a comment\n", "statement 'a' is empty"),
    ],
)
def test_malformed_files_name_the_file_and_line(text: str, message: str) -> None:
    with pytest.raises(CypherFileError, match=message):
        parse_named_statements(text, "x.cypher")


def test_shipped_files_parse_and_take_values_as_parameters() -> None:
    smoke = load_statements("smoke.cypher")
    assert {"vector_index", "merge_items", "gds_personalized_pagerank", "apoc_version"} <= smoke.keys()
    assert "$rows" in smoke["merge_items"]
    assert "constraint_meta_key" in load_statements("schema.cypher")


def test_missing_file_is_a_clear_error() -> None:
    with pytest.raises(CypherFileError, match="missing Cypher file .*nope.cypher"):
        load_statements("nope.cypher")


def test_identifiers_are_checked_and_backticked() -> None:
    from grasp_agent.cypher_queries import fill_identifiers

    assert fill_identifiers("MATCH (n:{{label}})-[:{{type}}]->()", label="Disease", type="HAS_PHENOTYPE") == (
        "MATCH (n:`Disease`)-[:`HAS_PHENOTYPE`]->()"
    )
    for hostile in ("Disease`) DETACH DELETE n //", "a b", "1abc", ""):
        with pytest.raises(CypherFileError, match="not a safe Cypher identifier"):
            fill_identifiers("MATCH (n:{{label}})", label=hostile)
    with pytest.raises(CypherFileError, match="no value for identifier placeholder"):
        fill_identifiers("MATCH (n:{{label}})")
