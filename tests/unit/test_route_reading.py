"""The asked type read from the schema's routes when a question names no type (issue #31, item 4c).

The pure parts (cards, per-type sums, the margin) on hand-made numbers; the reader itself with the real offline
embedder on a schema of another domain than the HPO or the geo SKB, so nothing here can pass by word lists.
"""

from __future__ import annotations

import pytest

from grasp_agent.graph_branch.answer_types import fit_answer_type_prior
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner
from grasp_agent.graph_branch.route_reading import (
    RouteCard,
    RouteReader,
    leading_type,
    route_cards,
    type_scores,
    with_wh_sense,
)
from grasp_agent.skb.context import SkbContext
from grasp_agent.skb.schema import NodeType, RelationPair, RelationType, SkbSchema
from tests.unit.test_graph_branch_units import _row


def _node(label: str, description: str, *aliases: str) -> NodeType:
    return NodeType(label=label, text_fields=(), description=description, aliases=aliases)


MUSIC = SkbSchema(
    name="music",
    node_types=(
        _node("Artist", "A singer or band", "singer", "band"),
        _node("Song", "A recorded song", "track"),
        _node("Album", "A released album", "record"),
        _node("Label", "A record label", "record company"),
        _node("City", "A city", "town"),
    ),
    relation_types=(
        RelationType(
            type="PERFORMED",
            pairs=(RelationPair(source="Artist", target="Song"),),
            description="the artist sang or played the song",
        ),
        RelationType(
            type="ON_ALBUM",
            pairs=(RelationPair(source="Song", target="Album"),),
            description="the song is a track of the album",
        ),
        RelationType(
            type="RELEASED_BY",
            pairs=(RelationPair(source="Album", target="Label"),),
            description="the label published the album",
        ),
        RelationType(type="BORN_IN", pairs=(RelationPair(source="Artist", target="City"),)),
    ),
)
PATTERNS = [(pair.source, rel.type, pair.target) for rel in MUSIC.relation_types for pair in rel.pairs]


def test_a_card_per_pattern_and_direction_with_the_schema_description() -> None:
    cards = route_cards(MUSIC, PATTERNS)
    assert len(cards) == 2 * len(PATTERNS)
    performed = [card for card in cards if card.relation == "PERFORMED"]
    assert {(card.anchor_type, card.target_type, card.outgoing) for card in performed} == {
        ("Artist", "Song", True),
        ("Song", "Artist", False),
    }
    from_song = next(card for card in performed if card.anchor_type == "Song")
    assert from_song.name_text == "performed artist"
    assert from_song.description == "the artist sang or played the song"
    born = next(card for card in cards if card.relation == "BORN_IN" and card.anchor_type == "Artist")
    assert born.description == born.name_text == "born in city"  # no description: the name words stand in


def test_each_phrase_of_a_relation_is_one_more_card_worded_in_the_walks_word_order() -> None:
    phrased = MUSIC.model_copy(
        update={
            "relation_types": (
                RelationType(
                    type="PERFORMED",
                    pairs=(RelationPair(source="Artist", target="Song"),),
                    phrases=("sang", "performed"),
                    inverse_phrases=("was sung by",),
                ),
            )
        }
    )
    cards = route_cards(phrased, [("Artist", "PERFORMED", "Song")])
    from_song = {card.name_text for card in cards if card.anchor_type == "Song"}
    from_artist = {card.name_text for card in cards if card.anchor_type == "Artist"}
    # the stored source is the subject of a forward phrase whichever end the walk starts from
    assert from_song == from_artist - {"performed song"} | {"performed artist"}
    assert from_song == {"performed artist", "artist sang song", "artist performed song", "song was sung by artist"}
    assert all(card.description == "performed song" for card in cards if card.anchor_type == "Artist")


def _card(anchor: str, target: str, relation: str = "R") -> RouteCard:
    return RouteCard(anchor, relation, True, target, "", "")


def test_type_scores_take_the_best_card_per_type_and_sum_over_anchors() -> None:
    cards = [_card("A", "T"), _card("A", "T", "S"), _card("A", "U"), _card("B", "T"), _card("B", "V")]
    scores = type_scores(cards, [0.2, 0.5, 0.4, 0.3, 0.9], ["A", "B"])
    assert scores == pytest.approx({"T": 0.5 + 0.3, "U": 0.4, "V": 0.9})
    assert type_scores(cards, [0.2, 0.5, 0.4, 0.3, 0.9], ["C"]) == {}


def test_a_type_must_lead_by_the_margin() -> None:
    assert leading_type({"T": 0.8, "U": 0.7}, margin=0.05) == "T"
    assert leading_type({"T": 0.8, "U": 0.78}, margin=0.05) is None
    assert leading_type({"U": 0.1}, margin=0.05) == "U"  # the only type reachable
    assert leading_type({}, margin=0.05) is None


@pytest.mark.parametrize(
    ("question", "anchor", "anchor_type", "asked"),
    [
        ("Where was Adele born?", "Adele", "Artist", "City"),
        ("Who sang Yesterday?", "Yesterday", "Song", "Artist"),
        ("What did Adele sing?", "Adele", "Artist", "Song"),
        ("Who published Thriller?", "Thriller", "Album", "Label"),
        ("What is Hey Jude on?", "Hey Jude", "Song", "Album"),
    ],
)
def test_the_question_words_pick_the_route(
    embedder: object, question: str, anchor: str, anchor_type: str, asked: str
) -> None:
    reader = RouteReader(MUSIC, PATTERNS, embedder)  # type: ignore[arg-type]
    frame = question.replace(anchor, " ")
    assert reader.target(frame, [anchor_type]) == asked


def test_nothing_to_read_gives_no_type(embedder: object) -> None:
    reader = RouteReader(MUSIC, PATTERNS, embedder)  # type: ignore[arg-type]
    assert reader.target("  ", ["Artist"]) is None
    assert reader.target("Where was it born?", []) is None
    assert reader.scores("Where was it born?", ["Nothing"]) == {}


MUSIC_CONTEXT = SkbContext(
    schema=MUSIC,
    pattern_counts=dict.fromkeys(PATTERNS, 100),
    label_counts={"Artist": 300, "Song": 5000, "Album": 400, "Label": 30, "City": 200},
)


def test_the_planner_reads_the_route_when_the_question_names_no_type(embedder: object) -> None:
    table = EntityTable((_row("Adele", "Artist", 1.0),))
    reader = RouteReader(MUSIC, PATTERNS, embedder)  # type: ignore[arg-type]
    # without the reader: the most populous type, songs
    assert HeuristicPlanner(MUSIC_CONTEXT).build("Where was Adele born?", table).target.type == "Song"
    plan = HeuristicPlanner(MUSIC_CONTEXT, route_reader=reader).build("Where was Adele born?", table)
    assert plan.target.type == "City"
    assert [hop.relation for hop in plan.hops] == ["BORN_IN"]
    # a type word still decides
    named = HeuristicPlanner(MUSIC_CONTEXT, route_reader=reader).build("Which songs did Adele record?", table)
    assert named.target.type == "Song"
    # what most training questions with the anchor's type asked for comes first; the reading serves the types
    # they did not cover, and anchors whose questions asked for many types alike
    labels = {"artist:1": "Artist", "album:1": "Album", "song:1": "Song", "city:1": "City"}
    mostly_albums = fit_answer_type_prior("music", [(("artist:1",), ("album:1",))] * 6, labels)
    learned = HeuristicPlanner(MUSIC_CONTEXT, answer_types=mostly_albums, route_reader=reader)
    assert learned.build("Where was Adele born?", table).target.type == "Album"
    song = EntityTable((_row("Yesterday", "Song", 1.0),))
    assert learned.build("Who sang Yesterday?", song).target.type == "Artist"  # no Song anchor in training
    spread = [(("artist:1",), (answer,)) for answer in ("album:1", "song:1", "city:1", "album:1", "song:1")]
    unsure = fit_answer_type_prior("music", spread, labels)
    assert HeuristicPlanner(MUSIC_CONTEXT, answer_types=unsure).build("Where was Adele born?", table).target.type in (
        "Album",
        "Song",
    )  # without the reader: the prior's best guess
    reading = HeuristicPlanner(MUSIC_CONTEXT, answer_types=unsure, route_reader=reader)
    assert reading.build("Where was Adele born?", table).target.type == "City"


def test_the_plan_notes_say_how_the_routes_read_the_words(embedder: object) -> None:
    table = EntityTable((_row("Adele", "Artist", 1.0),))
    reader = RouteReader(MUSIC, PATTERNS, embedder)  # type: ignore[arg-type]
    planner = HeuristicPlanner(MUSIC_CONTEXT, route_reader=reader)
    notes = planner.route_notes("Where was Adele born?", table)
    assert len(notes) == 1 and "City" in notes[0] and "City leads by 0.15 or more" in notes[0]
    assert planner.route_notes("Which songs did Adele record?", table) == []  # the type is named: nothing read
    assert HeuristicPlanner(MUSIC_CONTEXT).route_notes("Where was Adele born?", table) == []
    prior = fit_answer_type_prior(
        "music", [(("artist:1",), ("album:1",))] * 6, {"artist:1": "Artist", "album:1": "Album"}
    )
    learned = HeuristicPlanner(MUSIC_CONTEXT, answer_types=prior, route_reader=reader)
    assert (
        "not used: training questions with such anchors decide"
        in learned.route_notes("Where was Adele born?", table)[0]
    )


def test_an_unnamed_target_is_sure_when_training_questions_and_the_words_agree(embedder: object) -> None:
    table = EntityTable((_row("Adele", "Artist", 1.0),))
    reader = RouteReader(MUSIC, PATTERNS, embedder)  # type: ignore[arg-type]
    labels = {"artist:1": "Artist", "city:1": "City", "album:1": "Album"}
    mostly_cities = fit_answer_type_prior("music", [(("artist:1",), ("city:1",))] * 6, labels)
    agreeing = HeuristicPlanner(MUSIC_CONTEXT, answer_types=mostly_cities, route_reader=reader)
    plan = agreeing.build("Where was Adele born?", table)
    assert (plan.target.type, plan.risk.value) == ("City", "low")  # the prior and the route reading both say City
    mostly_albums = fit_answer_type_prior("music", [(("artist:1",), ("album:1",))] * 6, labels)
    disagreeing = HeuristicPlanner(MUSIC_CONTEXT, answer_types=mostly_albums, route_reader=reader)
    plan = disagreeing.build("Where was Adele born?", table)
    assert (plan.target.type, plan.risk.value) == ("Album", "medium")  # the words lead elsewhere: unsure
    alone = HeuristicPlanner(MUSIC_CONTEXT, route_reader=reader).build("Where was Adele born?", table)
    assert (alone.target.type, alone.risk.value) == ("City", "medium")  # one reading alone is not enough


def test_a_leading_where_is_read_with_its_sense() -> None:
    assert with_wh_sense("Where is?") == "Where is? located in"
    assert with_wh_sense("  where does lie?") == "  where does lie? located in"
    assert with_wh_sense("Which songs?") == "Which songs?"
    assert with_wh_sense("I am looking for conditions where is seen") == "I am looking for conditions where is seen"
    assert with_wh_sense("Whereabouts?") == "Whereabouts?"


class _NarrowReader(RouteReader):
    """A reader whose words lead to City, but by less than the margin."""

    def scores(self, frame: str, anchor_labels: object) -> dict[str, float]:  # type: ignore[override]
        return {"City": 0.80, "Album": 0.75} if frame.strip() else {}


def test_a_narrow_reading_beats_the_most_populous_type_when_nothing_was_trained(embedder: object) -> None:
    reader = _NarrowReader(MUSIC, PATTERNS, embedder)  # type: ignore[arg-type]
    assert reader.target("What about?", ["Artist"]) is None  # no clear lead
    assert reader.best_guess("What about?", ["Artist"]) == "City"
    assert reader.best_guess(" ", ["Artist"]) is None
    table = EntityTable((_row("Adele", "Artist", 1.0),))
    # the reader's best guess, a type one step from the anchor, over the SKB's most populous type (songs)
    assert HeuristicPlanner(MUSIC_CONTEXT, route_reader=reader).build("What about Adele?", table).target.type == "City"
    # a trained prior's guess still comes first
    labels = {"artist:1": "Artist", "album:1": "Album", "song:1": "Song", "city:1": "City"}
    spread = [(("artist:1",), (answer,)) for answer in ("album:1", "song:1", "city:1", "album:1", "song:1")]
    prior = fit_answer_type_prior("music", spread, labels)
    guessed = HeuristicPlanner(MUSIC_CONTEXT, answer_types=prior, route_reader=reader).build("What about Adele?", table)
    assert guessed.target.type in ("Album", "Song")
