"""Fields of identifiers (codes, numbers, coordinates, URLs) are left to BM25; fields of words are embedded."""

from __future__ import annotations

import pytest

from grasp_agent.text_branch.identifier_fields import identifier_field, identifier_value


@pytest.mark.parametrize(
    "value",
    ["US-CA", "+33", "1999", "48.85, 2.35", "0000-0002-1825-0097", "https://example.org/a/b", "10.1000/xy1", " .fr "],
)
def test_identifiers(value: str) -> None:
    assert identifier_value(value)


@pytest.mark.parametrize("value", ["OMIM", "Europe/Paris", "EUR", "Seizures", "Straße", "Zürich", "東京都"])
def test_words(value: str) -> None:
    assert not identifier_value(value)


def test_a_field_is_of_identifiers_when_nine_in_ten_values_are() -> None:
    assert identifier_field(["1", "2", "3", "4", "5", "6", "7", "8", "9", "ten"])
    assert not identifier_field(["1", "2", "3", "4", "5", "6", "7", "8", "nine", "ten"])
    assert not identifier_field(["", "  ", ""])  # nothing to judge: embedded as before
    assert identifier_field(["", "12", "", "13"])  # empty values do not count


def test_the_dense_index_leaves_identifier_fields_to_bm25() -> None:
    from grasp_agent.evaluation.hashing_embedder import HashingEmbedder
    from grasp_agent.text_branch.dense_fields import DenseFieldIndex
    from grasp_agent.text_branch.fields import FieldCorpus

    corpus = FieldCorpus(
        ids=("c1", "c2"),
        labels=("City", "City"),
        fields={
            "name": ("Lyon", "Graz"),
            "coordinates": ("45.76, 4.83", "47.07, 15.44"),
            "timezone": ("Europe/Paris", "Europe/Vienna"),
        },
        documents=("City: Lyon", "City: Graz"),
    )
    index = DenseFieldIndex.build(corpus, HashingEmbedder(), fields=["name", "coordinates", "timezone"])
    assert index.fields == ("name", "timezone")
    assert index.selection == ("name", "coordinates", "timezone")  # the request, so it loads again as asked
