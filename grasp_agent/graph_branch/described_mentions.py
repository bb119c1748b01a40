"""Entities described instead of named: clauses of the question linked through the document index (GRASP's
second anchor mode, `match_mode: doc`).

"Which diseases present with a generalized decrease in bone mineral density?" names no phenotype; its clause
"a generalized decrease in bone mineral density" is close to the *document* (name + definition) of
"Osteopenia", not to any name. The question is cut into clauses at punctuation, quotes, coordinating words and
relative pronouns; each clause loses the words that frame it ("the abnormality described as", "present with");
a clause that an anchor mention already covers is named, not described, and is skipped. The rest are embedded
with the document encoder and linked against every type's doc index in one round trip, and against the nodes'
own text fields (a definition, synonyms) when an own-text index is given; a clause whose best document cosine
reaches `min_score`, or whose best own-text cosine reaches `min_own_text_score`, becomes an anchor mention in doc
mode, typed by that node's label, and the name mentions inside it are dropped (they are words of the
description, not entities of the question).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.graph_branch.asking_sentence import aside_spans
from grasp_agent.graph_branch.function_words import FUNCTION_WORDS
from grasp_agent.graph_branch.mentions import Mention, MentionRole
from grasp_agent.graph_branch.name_dictionary import is_symbol
from grasp_agent.graph_branch.name_frames import framed_keywords, schema_name_words
from grasp_agent.graph_branch.phrases import phrase_key
from grasp_agent.graph_branch.plan import MatchMode
from grasp_agent.graph_branch.procedure_calls import GraphProcedures
from grasp_agent.graph_branch.quantity_order import HIGHER, LOWER
from grasp_agent.graph_branch.quotes import quoted_ranges
from grasp_agent.graph_branch.relation_words import spaced_name
from grasp_agent.graph_branch.schema_paths import hierarchy_cue
from grasp_agent.graph_branch.type_words import type_word_tokens
from grasp_agent.skb.schema import SkbSchema

# Calibrated on the train split only (docs/benchmarks.md, "Entities described, not named").
DEFAULT_MIN_SCORE = 0.5
# The same for the cosine with a node's own text (a definition, a synonym): a description is said in the words
# of a definition, which the document's name and neighbour lists dilute (chosen on train, docs/benchmarks.md).
DEFAULT_MIN_OWN_TEXT_SCORE = 0.7
# A clause made of names links as a description only this closely: quoted definitions read 0.99; two names
# joined read up to 0.85 on the benchmark's train split and 0.87 on generated sets (docs/benchmarks.md).
QUOTED_DEFINITION_SCORE = 0.9
MIN_CONTENT_WORDS = 3  # names are short; a description of one or two words is a name the span finder tries
NAMED_SHARE = 0.6  # a clause whose content words are mostly an anchor mention's is named, not described
FOREIGN_SHARE = 0.4  # ... or largely named, when some of those names are of another type than the description's
MAX_CLAUSES = 12  # bounds the embedding work per question
CUE_WORDS = 3  # the words right before a name that can ask for its hierarchy ("some kind of", "a form of")

# English words that introduce a description ("the one described as ...", "the term defined as ..."); with the
# SKB's own type words (`description_words`: "the abnormality described as") they are skipped, too, when the
# planner reads the words before a described entity for a hierarchy cue or a negation. No SKB term.
DESCRIPTION_WORDS = frozenset(
    """
the a an any as of described defined characterised characterized called termed named known marked denoted
referred meaning term terms concept entity classified categorised categorized listed filed
definition definitions description descriptions mention mentions mentioning mentioned word words text
""".split()
)  # noqa: SIM905 (a word list reads best as text)
# Everything that frames a clause rather than belongs to it: function words, the description's introduction,
# the verbs that tie it to the question, and hierarchy words ("a direct subtype of X" names X).
FRAME_WORDS = (
    FUNCTION_WORDS
    | DESCRIPTION_WORDS
    | frozenset(
        """
involving involve involves display displays displaying exhibit exhibits exhibiting manifest manifests
manifesting showing show shows presenting present presents having has have with by in which that
directly under one implicated annotated sharing shares shared subtype subtypes subclass subclasses
form forms variant variants direct descendant descendants child children parent parents ancestor ancestors
narrower broader general besides except apart itself themselves
""".split()
    )
)  # noqa: SIM905

# What may trail a clause ("... as a term"); a finder adds the SKB's type words (`description_words`: "... as a symptom").
TRAILING_WORDS = FUNCTION_WORDS | DESCRIPTION_WORDS
# Where a clause ends: punctuation, and the words that join clauses or open a relative clause.
_BREAK = re.compile(r"[;,:()?!]|->|\s(?:while|whereas|although|which|that|who|whose|where|when)\s", re.IGNORECASE)
# A full stop ends a sentence before a capital, or after a word of three letters or more (lower-case wording:
# "... for a novel I'm writing. hypoplastic ..."); not "e.g. a".
_SENTENCE = re.compile(r"\.\s+(?=[A-Z])|(?<=[a-z]{3})\.\s+")
# Coordination, and "with" joining two things a question lists ("a clouded lens with reduced gonad function"):
# the fine pieces; the coarse piece keeps them together for a description that holds one ("Syndactyly with
# fusion of toes"), and the better-linked reading wins.
_COORDINATION = re.compile(r"\s(?:and|or|but|yet|plus|as well as|(?:along |together )?with)\s", re.IGNORECASE)
# every break between the fine pieces of a question: the clause breaks, sentences and coordinations
_FINE_BREAKS = (_BREAK, _SENTENCE, _COORDINATION)
# Words that count or measure: a coordination between two of them ("one or more", "two or three") joins numbers
# inside one phrase, not two clauses. English, no SKB's words.
QUANTIFIERS = frozenset(
    """
one two three four five six seven eight nine ten several many few more less fewer most least all some any both
each either
""".split()
)  # noqa: SIM905
_QUANTIFIER_BEFORE = re.compile(r"(\w+)\s*$")
_QUANTIFIER_AFTER = re.compile(r"\s*(\w+)")
_WORD = re.compile(r"[\w][\w'+/.:-]*\w|\w")
# Coordinators that end a list of short items ("the fingers, hand, and/or forearm"). English, no SKB's words.
_COORDINATORS = frozenset({"and", "or", "and/or", "nor"})
SERIAL_ITEM_WORDS = 2  # the most words of an item inside such a list
# A relative clause opening right after a piece: "failure to name people and objects *that* are correctly perceived"
# A relative clause, restrictive or set off by a comma ("the pinna, which is also referred to as the auricle"), or
# an appositive naming it again ("the hindbrain, also known as the rhombencephalon").
_RELATIVE = re.compile(r"(?:,?\s+(?:that|which|who|whose|where|when)|,\s+also)\s", re.IGNORECASE)


@dataclass(frozen=True)
class Clause:
    start: int  # character offsets into the question
    end: int
    text: str
    # A coordination inside joins a named mention ("X and a child term of Y"), or the clause is mostly the words
    # of two or more ("paralysis of one or more extraocular muscles that ..."): two entities, or a definition made
    # of names. Only a reading as close as a quoted definition's makes it one (`QUOTED_DEFINITION_SCORE`).
    joins_a_name: bool = False
    mostly_names: bool = False

    @property
    def made_of_names(self) -> bool:
        """Whether only a reading as close as a quoted definition's makes the clause a description."""
        return self.joins_a_name or self.mostly_names


def description_words(schema: SkbSchema) -> frozenset[str]:
    """DESCRIPTION_WORDS plus every word of the schema's type words: what introduces a description in this SKB's
    words ("the *symptom* described as", "a *phenotypic abnormality* defined as")."""
    return DESCRIPTION_WORDS | type_word_tokens(schema)


def _trim(
    question: str, start: int, end: int, frame: frozenset[str], trailing: frozenset[str] = TRAILING_WORDS
) -> Clause | None:
    """The clause between `start` and `end` without its leading frame words and the `trailing` (function and
    description) words after it."""
    words = [m for m in _WORD.finditer(question, start, end)]
    while words and words[0].group().lower() in frame:
        words.pop(0)
    while words and words[-1].group().lower() in trailing:  # "... as a symptom"
        words.pop()
    if not words:
        return None
    return Clause(words[0].start(), words[-1].end(), question[words[0].start() : words[-1].end()])


def _breaks(
    question: str, patterns: Sequence[re.Pattern[str]], start: int = 0, joined: frozenset[int] = frozenset()
) -> list[re.Match[str]]:
    """The matches of `patterns` in the question from `start`, except a coordination between two quantifiers
    ("paralysis of one or more extraocular muscles") and the commas at the `joined` positions."""
    found = []
    for pattern in patterns:
        for match in pattern.finditer(question, start):
            if pattern is _COORDINATION and _between_quantifiers(question, match):
                continue
            if match.group() == "," and match.start() in joined:
                continue
            found.append(match)
    return found


def serial_commas(question: str) -> frozenset[int]:
    """The positions of the commas that join the short items of one list ("a focal dystonia of the fingers,
    hand, and/or forearm"; "red, green or blue"): a comma before an item of one or two words that another comma
    or a coordination follows, and a comma right before the coordination that ends such a list (pure)."""
    commas = [match.start() for match in re.finditer(",", question)]
    joined: set[int] = set()
    for i, at in enumerate(commas):
        end = commas[i + 1] if i + 1 < len(commas) else len(question)
        words = [word.group().lower() for word in _WORD.finditer(question, at + 1, end)]
        if words and words[0] in _COORDINATORS:
            if i > 0 and commas[i - 1] in joined:
                joined.add(at)
            continue
        coordination = next((j for j, word in enumerate(words) if word in _COORDINATORS), None)
        item = words if coordination is None else words[:coordination]
        if 1 <= len(item) <= SERIAL_ITEM_WORDS and (coordination is not None or i + 1 < len(commas)):
            joined.add(at)
    return frozenset(joined)


def _between_quantifiers(question: str, match: re.Match[str]) -> bool:
    before = _QUANTIFIER_BEFORE.search(question, 0, match.start())
    after = _QUANTIFIER_AFTER.match(question, match.end())
    return (
        before is not None and after is not None and _is_quantifier(before.group(1)) and _is_quantifier(after.group(1))
    )


def _is_quantifier(word: str) -> bool:
    return word.isdigit() or word.lower() in QUANTIFIERS


def _pieces(
    question: str,
    quoted: Sequence[tuple[int, int]],
    breaks: Sequence[re.Pattern[str]],
    frame: frozenset[str],
    trailing: frozenset[str],
    joined: frozenset[int] = frozenset(),
) -> list[Clause]:
    """The trimmed pieces of the question between `breaks` (but the commas at `joined`) and quoted passages,
    outside those passages."""
    bounds = [0, len(question)] + [edge for passage in quoted for edge in passage]
    bounds += [edge for m in _breaks(question, breaks, joined=joined) for edge in (m.start(), m.end())]
    edges = sorted(set(bounds))
    pieces = []
    for start, end in zip(edges, edges[1:], strict=False):
        if any(q_start <= start and end <= q_end for q_start, q_end in quoted):
            continue
        clause = _trim(question, start, end, frame, trailing)
        if clause is not None:
            pieces.append(clause)
    return pieces


def candidate_clauses(
    question: str,
    frame: frozenset[str] = FRAME_WORDS,
    named: Sequence[str] = (),
    min_content_words: int = MIN_CONTENT_WORDS,
    trailing: frozenset[str] = TRAILING_WORDS,
    keywords: Sequence[tuple[int, int]] = (),
    vocabulary: frozenset[str] | None = None,
) -> list[Clause]:
    """Quoted passages whole; the pieces between clause breaks outside quotes, each trimmed of its frame and of
    the `trailing` words after it; and the longer pieces that keep their coordinations ("flexion or extension of
    the trunk"), marked `joins_a_name` when one of the conjuncts is a `named` mention (then "and" may join two
    entities, not the parts of one description), and across the commas of a list of short items ("of the
    fingers, hand, and/or forearm": `serial_commas`); each of these with the relative clause right after it
    (`_with_relative_clause`). Only clauses with at least `min_content_words` words outside `frame`; those the
    `named` mentions mostly cover (of the words the SKB's name `vocabulary` holds, when given: `named_share`) only
    when two or more mentions lie inside, marked `mostly_names` (a definition made of names). The `keywords` ranges
    (name keywords: "with X in its name") end a clause and belong to none, as a quoted passage's words belong to
    no other clause."""
    clauses: list[Clause] = []
    quoted: list[tuple[int, int]] = []
    for opening, closing in quoted_ranges(question):
        quoted.append((opening, closing + 1))
        clause = _trim(question, opening + 1, closing, frozenset(), trailing)
        if clause is not None:
            clauses.append(clause)
    outside = [*quoted, *keywords]
    fine = _pieces(question, outside, _FINE_BREAKS, frame, trailing)
    clauses += fine
    coarse_pieces = _pieces(question, outside, (_BREAK, _SENTENCE), frame, trailing)
    lists: list[Clause] = []
    if serial := serial_commas(question):  # a further reading: across the commas of a list of short items
        spans = {(piece.start, piece.end) for piece in coarse_pieces}
        across = _pieces(question, outside, (_BREAK, _SENTENCE), frame, trailing, serial)
        lists = [piece for piece in across if (piece.start, piece.end) not in spans]
    for coarse in coarse_pieces + lists:
        conjuncts = [c for c in fine if coarse.start <= c.start and c.end <= coarse.end]
        # in a list of short items the first conjunct holds the phrase's head too ("focal dystonia of the
        # *fingers*, hand, and/or forearm"): whether the list joins names is told by its other items
        items = conjuncts[1:] if coarse in lists else conjuncts
        joins = len(conjuncts) > 1 and any(named_share(c, named, frame, vocabulary) >= NAMED_SHARE for c in items)
        clauses.append(replace(coarse, joins_a_name=joins))
    clauses += [
        replace(joined, joins_a_name=c.joins_a_name)
        for c in clauses
        if (joined := _with_relative_clause(question, c, outside, trailing)) is not None
    ]
    clauses += [
        replace(lead, joins_a_name=c.joins_a_name)
        for c in clauses
        if (lead := _without_subject(question, c, frame, trailing)) is not None
    ]
    unique: dict[tuple[int, int], Clause] = {}
    for clause in clauses:
        if len(_content_words(clause.text, frame)) < min_content_words:
            continue
        if named_share(clause, named, frame, vocabulary) >= NAMED_SHARE:
            if _names_inside(clause, named, frame) < 2:
                continue  # one name and its frame: named, not described
            clause = replace(clause, mostly_names=True)
        # one reading per span, the one a plain reading links if there is one
        if (clause.start, clause.end) not in unique or not clause.made_of_names:
            unique[(clause.start, clause.end)] = clause
    return list(unique.values())


# Words after which a noun phrase starts: determiners, and the verbs a question ties a description by. A
# preposition is not among them: "decrease *in* bone mineral density" is one description.
_PHRASE_OPENERS = frozenset(
    """
a an the some any his her their its my our your has have had is are was were shows show presents present
displays display exhibits exhibit involves involve manifests manifest features feature
""".split()
)  # noqa: SIM905


def _with_relative_clause(
    question: str, clause: Clause, outside: Sequence[tuple[int, int]], trailing: frozenset[str]
) -> Clause | None:
    """The clause with the relative clause that opens right after it, up to the next break or coordination
    ("failure to name people and objects that are correctly perceived"; "a tremor that is triggered by holding a
    limb"; "an anomaly of the pinna, which is also referred to as the auricle"; "an anomaly of the hindbrain, also
    known as the rhombencephalon"): a definition often says what a thing is in one, which the pieces cut off. Not
    past a coordination: "... where underdevelopment of the organs together with broad philtrum and hydrocephalus"
    goes on to list named things. None when no relative clause follows. A further reading, not a replacement: the
    better-linked one wins."""
    opened = _RELATIVE.match(question, clause.end)
    if opened is None:
        return None
    ends = [m.start() for m in _breaks(question, _FINE_BREAKS, opened.end())]
    ends += [start for start, _ in outside if start >= opened.end()]
    return _trim(question, clause.start, min(ends, default=len(question)), frozenset(), trailing)


def _without_subject(question: str, clause: Clause, frame: frozenset[str], trailing: frozenset[str]) -> Clause | None:
    """The clause after what may be its subject and verb ("boy *has* reduced function of the testes", "combines
    *a* clouded eye lens"): when its first word is a content word and its second or third opens a noun phrase,
    the words after that one, trimmed; None otherwise. A second reading, not a replacement: the better-linked
    one wins."""
    words = list(_WORD.finditer(question, clause.start, clause.end))
    if len(words) < 3 or words[0].group().lower() in frame:
        return None
    for word in words[1:3]:
        if word.group().lower() in _PHRASE_OPENERS:
            return _trim(question, word.end(), clause.end, frame, trailing)
    return None


def clause_frame(schema: SkbSchema, quantities: Iterable[str] = (), keys: Iterable[str] = ()) -> frozenset[str]:
    """FRAME_WORDS plus the words naming the SKB's types ("diseases", "gene"): the target, never a description;
    the words of its relation names with or without a final s ("border", "located"): they tie named things
    together ("countries that border Spain and are located in Africa" names two, it describes none); the words
    of its text fields' names ("whose *definition* mentions Y" says where a keyword is, it describes nothing). With
    quantity properties, also their words and the superlatives: "... has the highest population" says how
    to rank, not what a thing is. With key properties, their words: "the FIPS code 06037" names a node by a key
    (the name dictionary's), it does not describe one."""
    words = set(type_word_tokens(schema))
    relation_words = {w for r in schema.relation_types for w in spaced_name(r.type).split()}
    words |= relation_words | {w + "s" for w in relation_words} | {w[:-1] for w in relation_words if w.endswith("s")}
    words |= {w for t in schema.node_types for prop in t.text_fields for w in spaced_name(prop).split()}
    quantity_words = {w for prop in quantities for w in spaced_name(prop).split()}
    key_words = {w for prop in keys for w in spaced_name(prop).split()}
    return FRAME_WORDS | words | key_words | (quantity_words | HIGHER | LOWER if quantity_words else frozenset())


def _names_inside(clause: Clause, named: Sequence[str], frame: frozenset[str]) -> int:
    """How many of the `named` mentions (by their content words) lie whole inside the clause."""
    words = set(_content_words(clause.text, frame))
    return sum(1 for mention in named if (inside := _content_words(mention, frame)) and set(inside) <= words)


def _content_words(text: str, frame: frozenset[str] = FRAME_WORDS) -> list[str]:
    return [w.lower() for w in _WORD.findall(text) if w.lower() not in frame]


def _parts(word: str, frame: frozenset[str]) -> list[str]:
    """A hyphen compound's parts outside `frame`."""
    return [part for part in word.split("-") if part and part not in frame]


def named_share(
    clause: Clause,
    mentions: Sequence[str],
    frame: frozenset[str] = FRAME_WORDS,
    vocabulary: frozenset[str] | None = None,
) -> float:
    """The share of the clause's content words that the anchor mentions' texts account for. A compound that
    joins a name's word to another ("Loeys-Dietz syndrome 2-type") counts part by part, so the name is not hidden;
    one that holds no name's word ("Larsen-like") stays one word. With the SKB's name `vocabulary`
    (`phrases.phrase_key` words), a word no name uses is left out of the count: "The doctor mentioned something
    called ... for my son's abnormality of the immune system" is a sentence around a name, and its "doctor" and
    "something" are no words of a description either, which is said in the words the SKB's names are made of."""
    named_words = {w for mention in mentions for w in _content_words(mention, frame)}
    named = named_words | {part for word in named_words for part in _parts(word, frame)}
    words = []
    for word in _content_words(clause.text, frame):
        parts = _parts(word, frame)
        words += parts if word not in named and any(part in named for part in parts) else [word]
    if vocabulary is not None:
        words = [w for w in words if w in named or phrase_key(w) in vocabulary]
    if not words:
        return 0.0
    return sum(w in named for w in words) / len(words)


def _inside(question: str, mention: Mention, clause: Clause) -> bool:
    """Whether an anchor mention's text occurs (first, case-insensitively) within the clause."""
    if mention.role is not MentionRole.ANCHOR:
        return False
    found = question.lower().find(mention.text.lower())
    return found >= 0 and clause.start <= found and found + len(mention.text) <= clause.end


def _cuts(question: str, mention: Mention, clause: Clause) -> bool:
    """Whether the clause cuts an anchor mention's text in two (a name with a comma, "Hypophosphatemic rickets,
    autosomal recessive", split at its comma): such a clause is a piece of a name, not a description."""
    if mention.role is not MentionRole.ANCHOR:
        return False
    found = question.lower().find(mention.text.lower())
    end = found + len(mention.text)
    return (
        found >= 0 and found < clause.end and end > clause.start and not (clause.start <= found and end <= clause.end)
    )


def describes_one(
    question: str, clause: Clause, label: str, mentions: Sequence[Mention], frame: frozenset[str] = FRAME_WORDS
) -> bool:
    """False when named anchors of other types than the entity it would describe (`label`) make up much of the
    clause: "SCN8A have Bilateral tonic-clonic seizure" names a gene and a phenotype, it does not describe a
    disease; a gene symbol inside a long definition ("the MB isoform of creatine kinase") does not stop it. Nor
    does a clause that cuts a named anchor in two describe anything (see `_cuts`)."""
    if any(_cuts(question, mention, clause) for mention in mentions):
        return False
    foreign = [
        mention.text
        for mention in mentions
        if _inside(question, mention, clause) and mention.types and label not in mention.types
    ]
    return named_share(clause, foreign, frame) < FOREIGN_SHARE


def names_another_type(question: str, clause: Clause, label: str, mentions: Sequence[Mention]) -> bool:
    """Whether an anchor mention of another type than `label` lies inside the clause ("carries a pathogenic GLS
    variant" holds a gene's name)."""
    return any(
        _inside(question, mention, clause) and mention.types and label not in mention.types for mention in mentions
    )


def names_a_symbol(question: str, clause: Clause, mentions: Sequence[Mention]) -> bool:
    """Whether an anchor mention inside the clause is written as a symbol (letters and digits, no lower case:
    "SLC37A4", "MELAS"): a name that distinctive is the entity the sentence is about, even of the type the clause
    links to; an ordinary word that is also a name ("affected") may be a word of a description."""
    return any(
        _inside(question, mention, clause) and len(mention.text) > 1 and is_symbol(mention.text) for mention in mentions
    )


def names_a_kind_of(question: str, clause: Clause, mentions: Sequence[Mention]) -> bool:
    """Whether an anchor mention inside the clause follows words that ask for its hierarchy inside the clause
    ("has *a form of* hypophosphatemia involving ..."): that name is the genus a question narrows, an entity of
    the question rather than a word of a description."""
    for mention in mentions:
        if not _inside(question, mention, clause):
            continue
        found = question.lower().find(mention.text.lower())
        if hierarchy_cue(" ".join(_WORD.findall(question[clause.start : found])[-CUE_WORDS:])) is not None:
            return True
    return False


def _within(clause: Clause, spans: Sequence[tuple[int, int]]) -> bool:
    return any(start <= clause.start and clause.end <= end for start, end in spans)


def names_its_link(question: str, clause: Clause, linked_name: str, mentions: Sequence[Mention]) -> bool:
    """Whether an anchor mention inside the clause is the very name of the node the clause links to."""
    return bool(linked_name) and any(
        _inside(question, mention, clause) and mention.text.casefold() == linked_name.casefold() for mention in mentions
    )


class OwnTextSearch(Protocol):
    """The nodes whose own text fields (a definition, synonyms; not the name or the whole document) read closest
    to each query: (id, type, score), best first. The score is the best cosine with the query's vector, or
    given the query's text too (not None), the better of that and the share of its words the node's text holds
    (`text_branch.own_text`)."""

    def own_text_matches(
        self,
        query_vectors: np.ndarray,
        k: int,
        node_types: Sequence[str | None] | None = None,
        texts: Sequence[str | None] | None = None,
    ) -> list[list[tuple[Any, str, float]]]: ...


class DescribedMentionFinder:
    """Adds doc-mode anchor mentions for the clauses of a question that describe an entity without naming it.

    A clause is linked by the best of two readings: its cosine with whole documents (Neo4j's doc indexes) and,
    with an `own_text` index, its cosine with the nodes' own text fields, each against its own threshold."""

    name = "described"

    def __init__(
        self,
        procedures: GraphProcedures,
        doc_embedder: GraspEmbedder,
        schema: SkbSchema,
        min_score: float = DEFAULT_MIN_SCORE,
        quantities: Iterable[str] = (),
        keys: Iterable[str] = (),
        own_text: OwnTextSearch | None = None,
        min_own_text_score: float = DEFAULT_MIN_OWN_TEXT_SCORE,
        name_vocabulary: frozenset[str] | None = None,
    ) -> None:
        self._procedures = procedures
        self._embedder = doc_embedder
        self._labels = [t.label for t in schema.node_types]
        self._frame = clause_frame(schema, quantities, keys)
        self._trailing = FUNCTION_WORDS | description_words(schema)
        self._name_words = schema_name_words(schema)
        self._min_score = min_score
        self._own_text = own_text
        self._min_own_text_score = min_own_text_score
        self._name_vocabulary = name_vocabulary  # the SKB's name words: what a clause is counted in (`named_share`)

    @property
    def own_text(self) -> OwnTextSearch | None:
        """The own-text index the finder reads, which the entity table links its clauses by too."""
        return self._own_text

    def with_own_text(self, own_text: OwnTextSearch | None) -> DescribedMentionFinder:
        """The same finder, reading the nodes' own text fields too (None: documents only)."""
        finder = copy.copy(self)
        finder._own_text = own_text
        return finder

    def _best_links(self, clauses: Sequence[Clause]) -> list[tuple[float, str, str] | None]:
        """Per clause, (score, type, name) of its best link over the threshold of its reading, or None. The
        own-text index returns ids, not names: its link's name is the document reading's when both read the
        same node, else ""."""
        vectors = self._embedder.embed_texts([c.text for c in clauses])
        links = self._procedures.link_many({str(i): v for i, v in enumerate(vectors)}, self._labels, "doc", 1, 0.0)
        own = (
            self._own_text.own_text_matches(
                np.asarray(vectors, dtype=np.float32),
                1,
                # a definition that holds the words of two names is no reading of one entity made of them
                texts=[None if clause.made_of_names else clause.text for clause in clauses],
            )
            if self._own_text is not None
            else [[] for _ in clauses]
        )
        best: list[tuple[float, str, str] | None] = []
        for i in range(len(clauses)):
            names = {link.node_id: link.name for link in links[str(i)]}
            readings = [
                (link.score, link.label, link.name) for link in links[str(i)] if link.score >= self._min_score
            ] + [
                (score, label, names.get(node_id, ""))
                for node_id, label, score in own[i]
                if score >= self._min_own_text_score
            ]
            best.append(max(readings, default=None))
        return best

    def clauses(self, question: str, mentions: Sequence[Mention]) -> list[Clause]:
        """The candidate clauses no anchor mention already names."""
        anchors = [m.text for m in mentions if m.role is MentionRole.ANCHOR]
        keywords = framed_keywords(question, self._name_words)
        return candidate_clauses(
            question, self._frame, anchors, trailing=self._trailing, keywords=keywords, vocabulary=self._name_vocabulary
        )[:MAX_CLAUSES]

    def add(self, question: str, mentions: Sequence[Mention]) -> list[Mention]:
        """`mentions` plus one doc-mode anchor per described entity, minus the name mentions inside those."""
        clauses = self.clauses(question, mentions)
        if not clauses:
            return list(mentions)
        asides = aside_spans(question, [m.text for m in mentions if m.role is MentionRole.ANCHOR])
        scored = [
            (best[0], clause, best[1])
            for clause, best in zip(clauses, self._best_links(clauses), strict=True)
            if best is not None
            and describes_one(question, clause, best[1], mentions, self._frame)
            # a clause around a name of another type, or around a symbol ("a pathogenic SLC37A4 variant"), is first
            # a sentence about that name: it describes an entity only when it reads as closely as a definition does
            # (the own-text bar), and the name is kept otherwise
            and (
                best[0] >= self._min_own_text_score
                or not names_another_type(question, clause, best[1], mentions)
                and not names_a_symbol(question, clause, mentions)
            )
            # a clause made of names ("paralysis of one or more extraocular muscles that are responsible for eye
            # movements"; "ventricular septal defect and lateral ventricle dilatation") is one description only
            # when it reads as closely as a quoted definition
            and (not clause.made_of_names or best[0] >= QUOTED_DEFINITION_SCORE)
            # nor is a clause around a name it asks a kind of ("my son has a form of X involving Y"), unless it
            # reads as a quoted definition does: X is the genus, the words after it the difference
            and (best[0] >= QUOTED_DEFINITION_SCORE or not names_a_kind_of(question, clause, mentions))
            # a sentence around the question that names nothing ("(Asking for a genetics class.)") is first an
            # aside: it describes an entity only as closely as a definition does
            and (best[0] >= self._min_own_text_score or not _within(clause, asides))
            # nor is a clause whose best document is the node a name inside it names ("people speak in Kenya" read
            # as Kenya): the name says that already, and the clause would take the words that ask ("speak")
            and not names_its_link(question, clause, best[2], mentions)
        ]
        chosen: list[tuple[Clause, str]] = []
        # readings as close as a quoted definition's are all sure: among overlapping ones the longest, which
        # accounts for more of the question, is the description ("paralysis of one or more extraocular muscles
        # that are responsible for eye movements", not its first half and a leftover "responsible for ...")
        for _, clause, label in sorted(
            scored,
            key=lambda item: (-min(item[0], QUOTED_DEFINITION_SCORE), item[1].start - item[1].end, item[1].start),
        ):
            if all(clause.end <= other.start or clause.start >= other.end for other, _ in chosen):
                chosen.append((clause, label))
        if not chosen:
            return list(mentions)
        kept = [mention for mention in mentions if not any(_inside(question, mention, c) for c, _ in chosen)]
        described = [
            Mention(text=c.text, types=(label,), match_mode=MatchMode.DOC)
            for c, label in sorted(chosen, key=lambda item: item[0].start)
        ]
        return kept + described
