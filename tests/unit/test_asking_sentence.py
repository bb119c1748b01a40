"""The sentence that asks, and the things named only around it (pure)."""

from __future__ import annotations

import pytest

from grasp_agent.graph_branch.asking_sentence import (
    aside_spans,
    asking_span,
    context_mentions,
    in_asking_slot,
    said_only_around,
    sentence_spans,
    without_asides,
)


def test_sentences_end_at_their_punctuation_and_blank_ones_are_dropped() -> None:
    question = "Leaving X aside for now.  Which genes; and Y?  "
    assert [question[s:e] for s, e in sentence_spans(question)] == [
        "Leaving X aside for now.",
        "Which genes;",
        "and Y?",
    ]
    # a full stop inside a word or a name ("type 1.5", "St.John") breaks nothing
    assert len(sentence_spans("Which genes of type 1.5 and St.John?")) == 1


@pytest.mark.parametrize(
    ("question", "asking"),
    [
        ("Which diseases have X?", None),  # one sentence: nothing around it
        ("I already know about X. Which diseases have Y?", "Which diseases have Y?"),
        ("Which diseases have Y? I ask for a friend.", "Which diseases have Y?"),
        ("Sorry if this is obvious: which genes go with Y?", "which genes go with Y?"),
        ("Leaving X aside for now. List the genes of Y.", "List the genes of Y."),
        ("Is it X? Or rather Y?", "Or rather Y?"),  # the last question mark asks
        ("X is settled. Y too.", None),  # no sentence asks
    ],
)
def test_the_asking_sentence_is_the_last_question_else_the_last_with_a_question_word(
    question: str, asking: str | None
) -> None:
    span = asking_span(question)
    assert (question[span[0] : span[1]] if span else None) == asking


def test_mentions_outside_an_asking_sentence_with_its_own_are_context() -> None:
    question = "Not GRK1, that one is settled. Which diseases share a gene with Retinitis pigmentosa?"
    assert context_mentions(question, ["GRK1", "retinitis pigmentosa"]) == {"GRK1"}
    # named in the asking sentence as well: not only outside it
    assert context_mentions("GRK1 is odd. Which diseases share GRK1?", ["GRK1"]) == frozenset()


def test_a_vignette_whose_asking_sentence_names_nothing_keeps_every_mention() -> None:
    question = "A patient carries a variant in KCNQ2 and shows infantile spasms. Which condition fits?"
    assert context_mentions(question, ["KCNQ2", "infantile spasms"]) == frozenset()
    # a mention the question does not write (an extractor's rewording) neither is context nor makes one
    assert context_mentions(question, ["KCNQ2", "epileptic spasm"]) == frozenset()


def test_words_said_only_around_the_asking_sentence() -> None:
    question = "Background: I read about rare diseases. What subtype of seizure starts in sleep?"
    assert said_only_around(question, ["diseases"]) == {"diseases"}
    assert "seizure" not in said_only_around(question, ["seizure"])  # in the asking sentence
    assert "genes" not in said_only_around(question, ["genes"])  # not in the question at all
    assert not said_only_around("Which diseases have seizure?", ["diseases"])  # one sentence: nothing around it
    # a colon inside a name ends no sentence
    named = "Which genes are linked to EMG: axonal abnormality's child terms?"
    assert said_only_around(named, ["genes"]) == {"genes"}
    assert "genes" not in said_only_around(named, ["genes"], ["EMG: axonal abnormality"])
    assert len(sentence_spans(named, ["emg: axonal abnormality"])) == 1


def test_asides_are_the_sentences_that_neither_ask_nor_name_a_mention() -> None:
    question = (
        "I'm preparing slides for our journal club and got stuck. EHMT1 mutations plus natal tooth: which disease "
        "is it? (Asking for a genetics class.) Thanks a lot!"
    )
    mentions = ["EHMT1", "natal tooth"]
    assert [question[s:e] for s, e in aside_spans(question, mentions)] == [
        "I'm preparing slides for our journal club and got stuck.",
        "(Asking for a genetics class.)",
        "Thanks a lot!",
    ]
    assert without_asides(question, mentions) == "EHMT1 mutations plus natal tooth: which disease is it?"


def test_a_sentence_naming_a_mention_is_no_aside_and_one_sentence_has_none() -> None:
    vignette = "My son has natal tooth and the panel flagged EHMT1. What could this be?"
    assert aside_spans(vignette, ["EHMT1", "natal tooth"]) == []
    assert without_asides(vignette, ["EHMT1", "natal tooth"]) == vignette
    # the sentence that asks stays though it names nothing; a question no sentence of which asks has no asides
    assert without_asides("Thanks. Which disease is it?", ["X"]) == "Which disease is it?"
    assert without_asides("List diseases with X", ["X"]) == "List diseases with X"
    assert without_asides("Hello there. Diseases with X.", ["X"]) == "Hello there. Diseases with X."


def test_a_mention_is_in_the_asking_slot_when_the_asking_words_lead_to_it() -> None:
    assert in_asking_slot("Which kind of seizure starts in sleep?", "seizure")
    assert in_asking_slot("What specific subtype of hypophosphatemia has X in its definition?", "hypophosphatemia")
    assert in_asking_slot("List the seizure subtypes that mention sleep.", "seizure")
    assert in_asking_slot("seizure subtype: sleep", "seizure")  # no question word: the whole is the request
    # a statement the question asks about afterwards, or a mention after a verb, is not what the words ask for
    assert not in_asking_slot("My child shows some form of seizure. What could it be?", "seizure")
    assert not in_asking_slot("My child shows some form of seizure, what could it be?", "seizure")
    assert not in_asking_slot("What does a child with some particular form of seizure usually have?", "seizure")
    assert not in_asking_slot("Which kind of seizure?", "tremor")  # not in the question
