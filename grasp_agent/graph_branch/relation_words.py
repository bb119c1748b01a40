"""Which of several relations joining the same two types a question means, from the schema's own words.

"Who directed X?" with Person-DIRECTED->Film and Person-ACTED_IN->Film: the larger relation used to win
whatever the question said. Each relation's words are read from the loaded schema: its name made into words
("ACTED_IN" -> acted, in) and its description ("the person acted in the film"). A question word matches one
of them when their crude stems agree ("directed", "director", "direction" -> "direct"), so any SKB's relation
names work without a word list; name words count twice a description's. The schema's phrases for a relation
(`RelationType.phrases`, "is spoken in") and its role nouns (`RelationType.source_nouns`, "capital") count as its
name, and said right around a mention they tell which way the relation is walked (`phrase_direction`,
`noun_direction`). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from grasp_agent.skb.schema import SkbSchema

_WORD = re.compile(r"[a-z][a-z0-9]+")
_CAPITALS = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# English words that say nothing about which relation is meant (every description has them)
_FUNCTION = frozenset(
    "a an the and or of in on at to for from by with as is are was were be been has have had do does did which what "
    "who whom whose that this these those it its their one two node nodes".split()
)
# The forms of the verbs relation names are built on ("HAS_PHENOTYPE", "IS_A"), each read as its base form.
_VERB_FORMS = {
    form: base
    for base, forms in (("has", "has have had having"), ("is", "is are was were be been being"))
    for form in forms.split()
}
_SUFFIXES = ("ations", "ation", "ings", "ing", "ions", "ion", "ers", "ors", "er", "or", "ed", "es", "s")
STEM_CHARS = 6  # stems compared on their first characters: "produced" / "production" -> "produc"
NAME_WEIGHT = 2.0


def _strip(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def stem(word: str) -> str:
    """A crude stem: one common suffix off (keeping 3 letters), then the first STEM_CHARS characters."""
    return _strip(word)[:STEM_CHARS]


def spaced_name(name: str) -> str:
    """A schema name as lower-case words: 'HAS_PHENOTYPE' -> 'has phenotype', 'actedIn' -> 'acted in'."""
    return " ".join(_CAPITALS.sub(" ", name).replace("_", " ").lower().split())


def plural_verb(phrase: str) -> str:
    """The relation words with a plural subject: 'has x' -> 'have x', 'is a' -> 'are a', 'lacks x' -> 'lack x',
    'does not x' -> 'do not x', 'was x' -> 'were x'."""
    words = phrase.split()
    if not words:
        return phrase
    head = words[0]
    if head == "has":
        head = "have"
    elif head == "is":
        head = "are"
    elif head == "does":
        head = "do"
    elif head == "was":
        head = "were"
    elif head.endswith("s") and not head.endswith("ss") and len(head) > 3:
        head = head[:-1]
    return " ".join([head, *words[1:]])


def phrase_forms(phrase: str) -> tuple[tuple[str, ...], ...]:
    """A relation phrase's words with a singular and a plural subject ("is part of", "are part of")."""
    return tuple(dict.fromkeys((tuple(phrase.split()), tuple(plural_verb(phrase).split()))))


def stem_forms(word: str) -> frozenset[str]:
    """The word's stem, and the stem with a second suffix off: one suffix off cuts "borders" to "bord" but
    "bordering" to "border"; the second cut joins them."""
    once = _strip(word)
    return frozenset({once[:STEM_CHARS], _strip(once)[:STEM_CHARS]})


def stems(text: str) -> frozenset[str]:
    """The stems of a text's words, function words left out ("actedIn", "ACTED_IN" and "acted in" alike)."""
    return frozenset(
        form for word in _WORD.findall(spaced_name(text)) if word not in _FUNCTION for form in stem_forms(word)
    )


@dataclass(frozen=True)
class RelationWords:
    """Per relation type, the stems of its name, of its schema description and of its schema phrases."""

    names: Mapping[str, frozenset[str]]
    descriptions: Mapping[str, frozenset[str]]

    # the stems of the schema's phrases for the relation, both directions ("is spoken in": the author's own words
    # for it, weighed as its name; word order is read from the name alone, see `direction`)
    phrases: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # the phrases' words as said with the stored source first (forward) and with the stored target first
    forward: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    inverse: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    # the stems of the schema's role nouns, word by word: what the stored source (target) is called as seen from
    # the other end ("capital", "parent term"); they name the relation too, and "the Ns of X" / "X's Ns" says
    # which end the answer is (`noun_direction`)
    source_nouns: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    target_nouns: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    # the stems of the schema's type words: a noun's type word ("neighbouring *country*") names no relation
    type_stems: frozenset[str] = frozenset()

    @classmethod
    def of(cls, schema: SkbSchema) -> RelationWords:
        return cls(
            {relation.type: stems(relation.type) for relation in schema.relation_types},
            {relation.type: stems(relation.description) for relation in schema.relation_types},
            {
                relation.type: stems(" ".join((*relation.phrases, *relation.inverse_phrases)))
                for relation in schema.relation_types
            },
            {r.type: tuple(f for p in r.phrases for f in phrase_forms(p)) for r in schema.relation_types},
            {r.type: tuple(f for p in r.inverse_phrases for f in phrase_forms(p)) for r in schema.relation_types},
            {r.type: tuple(_noun_stems(n) for n in r.source_nouns) for r in schema.relation_types},
            {r.type: tuple(_noun_stems(n) for n in r.target_nouns) for r in schema.relation_types},
            stems(" ".join(word for t in schema.node_types for word in (t.label, *t.aliases))),
        )

    def named_by(self, relation: str, said: frozenset[str] = frozenset()) -> frozenset[str]:
        """The stems of the relation's name, of its schema phrases and of its role nouns (but their type words).
        A role noun of several words names it only where all of them are `said` (stems): "child term" does, a
        child in "a child presents with X" does not."""
        nouns = (*self.source_nouns.get(relation, ()), *self.target_nouns.get(relation, ()))
        content = [frozenset(word for word in noun if word not in _FUNCTION | self.type_stems) for noun in nouns]
        return (
            self.names.get(relation, frozenset())
            | self.phrases.get(relation, frozenset())
            | frozenset(word for words in content if len(words) == 1 or words <= said for word in words)
        )

    def score(self, relation: str, question_stems: frozenset[str]) -> float:
        name = self.named_by(relation, question_stems)
        description = self.descriptions.get(relation, frozenset()) - name
        return NAME_WEIGHT * len(name & question_stems) + len(description & question_stems)

    def named(self, relation: str, text: str) -> bool:
        """Whether `text` uses a word of the relation's name or description."""
        return self.score(relation, stems(text)) > 0

    def meant(self, relations: list[str], question: str) -> list[str]:
        """The relations among `relations` the question's words point to most (all of them when none or a tie
        leaves nothing to tell apart)."""
        words = stems(question)
        scores = {relation: self.score(relation, words) for relation in relations}
        best = max(scores.values(), default=0.0)
        if best <= 0:
            return relations
        return [relation for relation in relations if scores[relation] == best]

    def written(self, relation: str, words: Sequence[str]) -> bool:
        """Whether `words` write a word of the relation's name: a content word by its stem, its verb "has" or "is"
        in any form ("the diseases that *have* X": HAS_PHENOTYPE); other function words ("with", "a") say nothing."""
        name = spaced_name(relation).split()
        forms = {_VERB_FORMS[part] for part in name if part in _VERB_FORMS}
        content = self.named_by(relation, frozenset(stem(word.lower()) for word in words))
        return any(
            _VERB_FORMS.get(word.lower(), word.lower()) in forms or stem(word.lower()) in content for word in words
        )

    def direction(self, relation: str, before: Sequence[str], after: Sequence[str]) -> bool | None:
        """Whether an anchor walks `relation` (between two nodes of one type) in its stored direction, read off
        the word order around the anchor, the relation's name read as a verb whose subject is the stored source:
        "what does X import" (the verb after X: X is the subject) and "what is imported by X" (the agent) walk
        out of X; "what imports X" (the verb before X) walks into X. None when the name's words are not there."""
        name = self.names.get(relation, frozenset())
        if not name:
            return None
        words = [word.lower() for word in before]
        for index in range(len(words) - 1, -1, -1):
            if stem(words[index]) in name:
                return index + 1 < len(words) and words[index + 1] == "by"
        if any(stem(word.lower()) in name for word in after):
            return True
        return None

    def phrase_ways(self, relation: str, before: Sequence[str], after: Sequence[str]) -> frozenset[bool]:
        """The ways one of the schema's phrases right around an anchor says it walks `relation`: True (in its
        stored direction) when a forward phrase starts just after it ("X is a subtype of what": X is the stored
        source) or an inverse phrase ends just before it; False the other way round ("what is a subtype of X").
        Both for a relation worded alike both ways ("borders", "is linked to"); empty when no phrase is there."""
        lead = tuple(word.lower() for word in before)
        trail = tuple(word.lower() for word in after)
        ways = set()
        for phrases, stored_source_first in ((self.forward, True), (self.inverse, False)):
            for words in phrases.get(relation, ()):
                if lead[-len(words) :] == words:  # the phrase's subject is the other node: the anchor is its object
                    ways.add(not stored_source_first)
                if trail[: len(words)] == words:  # the anchor is the phrase's subject
                    ways.add(stored_source_first)
        return frozenset(ways)

    def phrase_direction(self, relation: str, before: Sequence[str], after: Sequence[str]) -> bool | None:
        """Whether an anchor walks `relation` in its stored direction, read off one of the schema's phrases right
        around it (`phrase_ways`); None when no phrase is there, or phrases say both ways."""
        ways = self.phrase_ways(relation, before, after)
        return next(iter(ways)) if len(ways) == 1 else None

    def nouns_said(self, relation: str, text: str) -> int:
        """How many times `text` says one of the relation's role nouns, in any number ("the neighbours of ...")."""
        said = [stem(word) for word in _WORD.findall(text.lower())]
        count, at = 0, 0
        while at < len(said):  # the longest noun at each word, none overlapping ("neighbouring country" once)
            taken = max((length for rel, _, length in self.nouns_at(said, at) if rel == relation), default=0)
            count, at = count + bool(taken), at + max(taken, 1)
        return count

    def nouns_at(self, said: Sequence[str], start: int) -> list[tuple[str, bool, int]]:
        """The role nouns whose stems start `said` (word stems) at `start`: (relation, names the stored source?,
        words taken)."""
        found: list[tuple[str, bool, int]] = []
        for nouns, source_end in ((self.source_nouns, True), (self.target_nouns, False)):
            for relation, options in nouns.items():
                found.extend(
                    (relation, source_end, len(noun))
                    for noun in options
                    if tuple(said[start : start + len(noun)]) == noun
                )
        return found

    def noun_ends(self, relation: str, before: Sequence[str], after: Sequence[str]) -> frozenset[bool]:
        """Which ends of `relation` the schema's role nouns owned by an anchor name: True for the stored source
        ("the capitals of X", "X's capital": a source noun), False for the stored target ("the parent terms of
        X"); empty when no noun is there."""
        lead = [stem(word.lower()) for word in before]
        if lead and lead[-1] == "the":
            lead.pop()
        owner_lead = lead[:-1] if lead and lead[-1] == "of" else []  # "the Ns of X"
        trail = [stem(word.lower()) for word in after]
        owner_trail = trail[1:] if trail[:1] == ["s"] else trail  # "X's Ns" (its s a word of its own), "Xs' Ns"
        ends = set()
        for nouns, source_end in ((self.source_nouns, True), (self.target_nouns, False)):
            for noun in nouns.get(relation, ()):
                if (owner_lead and tuple(owner_lead[-len(noun) :]) == noun) or tuple(owner_trail[: len(noun)]) == noun:
                    ends.add(source_end)
        return frozenset(ends)

    def noun_direction(self, relation: str, before: Sequence[str], after: Sequence[str]) -> bool | None:
        """Whether an anchor walks `relation` in its stored direction, read off a role noun it owns (`noun_ends`):
        a source noun's answer is the stored source, so the walk goes into the anchor; a target noun's out of it.
        None when no noun is there, or nouns say both ways (a neighbour is either end of BORDERS)."""
        ends = self.noun_ends(relation, before, after)
        return (not next(iter(ends))) if len(ends) == 1 else None


def _noun_stems(noun: str) -> tuple[str, ...]:
    """A role noun as the stems of its words, compared word by word ("parent terms" and "parent term" alike)."""
    return tuple(stem(word) for word in noun.split())


__all__ = ["RelationWords", "phrase_forms", "plural_verb", "spaced_name", "stem", "stems"]
