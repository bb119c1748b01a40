"""Reading a described clause by the nodes' own text: the share of its words a text holds, next to the cosine."""

from __future__ import annotations

import numpy as np
import pytest

from grasp_agent.text_branch.bm25_index import LexicalIndex, held_shares
from grasp_agent.text_branch.dense_fields import DenseFieldIndex
from grasp_agent.text_branch.fields import FieldCorpus
from grasp_agent.text_branch.own_text import OwnTextReader, better_readings, sole_best
from tests.unit.test_text_branch_dense import TableEmbedder, unit_rows

SHORT = "A height below that which is expected according to age and gender norms."
TALL = "A height above that which is expected according to age and gender norms."
CLAUSE = "a height below that which is expected according to age"


SEIZURE = "A seizure is an intermittent abnormality of nervous system physiology."
# a child term whose definition holds every word of the clause too
PROPORTIONATE = "A height below that which is expected according to age and gender norms, in proportion."


def _corpus(with_child: bool = False) -> FieldCorpus:
    child = ("HP:0003508",) if with_child else ()
    return FieldCorpus(
        ("HP:0004322", "HP:0000098", "HP:0001250", "OMIM:1", *child),
        ("Phenotype", "Phenotype", "Phenotype", "Disease", *("Phenotype",) * len(child)),
        {
            "name": (
                "Short stature",
                "Tall stature",
                "Seizure",
                "Dwarfism, short stature type",
                *("Prop",) * len(child),
            ),
            "definition": (SHORT, TALL, SEIZURE, "", *(PROPORTIONATE,) * len(child)),
        },
        ("Short stature doc", "Tall stature doc", "Seizure doc", "Dwarfism doc", *("Prop doc",) * len(child)),
    )


def _reader(with_child: bool = False) -> tuple[OwnTextReader, np.ndarray]:
    """The clause's vector lies closer to Tall stature's definition than to Short stature's, as a sentence
    encoder that reads 'below' and 'above' alike puts it."""
    corpus = _corpus(with_child)
    rng = np.random.default_rng(3)
    tall, short, seizure, other = unit_rows(rng, 4)
    clause = tall * 0.9 + short * 0.1
    clause = (clause / np.linalg.norm(clause)).astype(np.float32)
    table = {TALL: tall, SHORT: short, SEIZURE: seizure, CLAUSE: clause, PROPORTIONATE: other}
    table |= {text: other for text in (*corpus.fields["name"], *corpus.documents)}
    dense = DenseFieldIndex.build(corpus, TableEmbedder(table))
    return OwnTextReader(dense, LexicalIndex.build(corpus)), clause


def test_held_shares_weigh_each_term_by_its_idf_and_count_an_unheld_term_against_every_text() -> None:
    # 4 documents; term a in documents 0 and 1, term b in document 0 only, term c in none
    shares = held_shares([np.array([0, 1]), np.array([0]), np.array([], dtype=np.int64)], 4)
    idf = [np.log1p((4 - df + 0.5) / (df + 0.5)) for df in (2, 1, 0)]
    assert shares[0] == pytest.approx((idf[0] + idf[1]) / sum(idf))
    assert shares[1] == pytest.approx(idf[0] / sum(idf))
    assert list(shares[2:]) == [0.0, 0.0]
    assert shares[0] < 1.0  # the word no text holds lowers even the best share
    assert list(held_shares([], 3)) == [0.0, 0.0, 0.0]


def test_the_text_that_holds_every_word_of_a_clause_leads_by_words() -> None:
    lexical = LexicalIndex.build(_corpus())
    found = lexical.held_word_shares(CLAUSE, ["definition"], 3, "Phenotype", min_words=5)
    assert [node for node, _, _ in found[:2]] == ["HP:0004322", "HP:0000098"]
    assert found[0] == ("HP:0004322", "Phenotype", pytest.approx(1.0))
    assert 0.5 < found[1][2] < 1.0  # one word, "below", is not in Tall stature's definition
    assert all(node != "HP:0001250" for node, _, _ in found)  # no word in common: not read at all
    # too few words to tell a description from common words; another type has no such definition
    assert lexical.held_word_shares("height below", ["definition"], 3, "Phenotype", min_words=5) == []
    assert lexical.held_word_shares(CLAUSE, ["definition"], 3, "Disease", min_words=5) == []
    with pytest.raises(Exception, match="unknown text field"):
        lexical.held_word_shares(CLAUSE, ["nope"], 3)


def test_the_reader_takes_the_better_of_cosine_and_word_share() -> None:
    reader, clause = _reader()
    assert reader.fields == ("definition",)
    by_cosine = reader.own_text_matches(clause[None, :], 2, ["Phenotype"])[0]
    assert by_cosine[0][0] == "HP:0000098"  # the encoder alone reads it as Tall stature
    both = reader.own_text_matches(clause[None, :], 2, ["Phenotype"], texts=[CLAUSE])[0]
    assert both[0] == ("HP:0004322", "Phenotype", pytest.approx(1.0))
    tall = dict((node, score) for node, _, score in both)["HP:0000098"]
    assert tall == pytest.approx(by_cosine[0][2])  # the words chose another node: Tall stature keeps its cosine
    with pytest.raises(ValueError, match="2 texts for 1 query vectors"):
        reader.own_text_matches(clause[None, :], 2, texts=[CLAUSE, CLAUSE])
    # a row without text (a clause made of names) is read by its vector only
    assert reader.own_text_matches(clause[None, :], 2, ["Phenotype"], texts=[None]) == [by_cosine]
    # without a lexical index the reader is the dense index
    dense_only = OwnTextReader(reader.dense)
    assert dense_only.own_text_matches(clause[None, :], 2, ["Phenotype"], texts=[CLAUSE]) == [by_cosine]


def test_words_held_as_fully_by_two_texts_choose_neither() -> None:
    reader, clause = _reader(with_child=True)
    by_cosine = reader.own_text_matches(clause[None, :], 3, ["Phenotype"])
    # Short stature and its child hold every word: the words tell them not apart, the cosines order all
    assert reader.own_text_matches(clause[None, :], 3, ["Phenotype"], texts=[CLAUSE]) == by_cosine
    assert by_cosine[0][0][0] == "HP:0000098"


def test_better_readings_keep_each_nodes_best_score_best_first() -> None:
    first = [("a", "T", 0.8), ("b", "T", 0.7)]
    second = [("b", "T", 0.95), ("c", "U", 0.8)]
    assert better_readings(first, second, 3) == [("b", "T", 0.95), ("a", "T", 0.8), ("c", "U", 0.8)]
    assert better_readings(first, second, 1) == [("b", "T", 0.95)]
    assert better_readings([], [], 2) == []


def test_sole_best_is_the_first_reading_only_when_it_leads() -> None:
    assert sole_best([("a", "T", 1.0), ("b", "T", 0.9)]) == [("a", "T", 1.0)]
    assert sole_best([("a", "T", 1.0)]) == [("a", "T", 1.0)]
    assert sole_best([("a", "T", 1.0), ("b", "T", 1.0)]) == []
    assert sole_best([]) == []
