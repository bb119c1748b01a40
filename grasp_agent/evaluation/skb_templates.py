"""Question templates of any SKB, read from its schema, and their wording (pure; no graph access).

A template is one or two *legs*, each a walk of schema steps from an anchor type to one target type: a chain of
1 or 2 hops ("which diseases have phenotype X", "which genes are reached from X through diseases") or two
one-hop legs meeting at the target (an intersection: "which diseases have phenotype X and are associated with
gene G"). Every step names a stored relation and the direction it is walked in, so answers are exact. A
*lookup* has no hop: the answer is the node a passage of its own text describes ("which phenotype is described
as ...", or for a record "which country has the demonym ..."), the questions a reader must leave to the text and
that teach the text branch its keys.
A *superlative* walks one hop and asks for the target with the largest or smallest quantity (a property whose
values are numbers, `grasp_agent.skb.property_kinds`). A *mentioning* question walks one hop and asks for the one
target whose own text holds a given word ("which phenotype is a X and mentions ossification"): the answer is
picked by its text, not its name, so a reader must rank the walk's targets by what their text says.

Wording uses only what the schema says: type labels split at capitals and their aliases, relation names made
into words ("HAS_PHENOTYPE" -> "has phenotype"), and for described anchors a passage of the node's own text
or a field's value with the field's name in words ("the country whose calling code is +267").
The families vary the structure a reader has to cope with (wh-questions, imperatives, lists, terse arrows,
questions that leave the asked type implied, described anchors, lower case, a preface that says nothing, a
misspelt name, "<anchor>-related" compounds, an aside naming a node the question is not about, steps said by the
schema's role nouns: "the capitals of X's neighbours"); a form
that drops a relation's words, its direction or a type is used only where the schema leaves one reading of the
walk (`wording_form`), so every answer set is the question's answer set. The output is synthetic and says so
(`level` = family, `template` = the walk).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, cast

from grasp_agent.graph_branch.relation_words import plural_verb, spaced_name
from grasp_agent.graph_branch.schema_paths import plural, singular_type_words
from grasp_agent.skb.schema import NodeType, SkbSchema

FAMILIES: tuple[str, ...] = (
    "which",
    "find",
    "list",
    "terse",
    "implied",
    "described",
    "lower",
    "preface",
    "misspelt",
    "compound",
    "aside",
    "nouns",
)
# Families worded as a "which" question with one thing changed: an anchor described, the case, a preface, an
# anchor's name misspelt, an aside naming a node the question is not about.
_WHICH_BASED = frozenset({"described", "lower", "preface", "misspelt", "aside"})
# Families that change how an anchor is named: a lookup, which has no anchor, is worded as "which" instead.
ANCHOR_NAMING = frozenset({"misspelt", "compound", "aside"})
# Prefaces carry no information about the SKB: a reader must skip them, whatever the domain.
_PREFACES = (
    "Quick question. ",
    "I am putting notes together for a colleague. ",
    "Sorry if this is obvious: ",
    "Context: this is for a report due tomorrow. ",
)
# Asides name a node of the SKB the question is not about: a reader must not take it for an anchor.
_ASIDES = (
    "I already know about {name}. ",
    "Leaving {name} aside for now. ",
    "Not {name}, that one is settled. ",
    "My notes also mention {name}, but never mind that. ",
)
_LONG_WORD = re.compile(r"[A-Za-z]{6,}")


@dataclass(frozen=True)
class Step:
    """One walk along a relation: `source` -> `target` types, `outgoing` when the stored edge points that way."""

    relation: str
    outgoing: bool
    source: str
    target: str


@dataclass(frozen=True)
class Template:
    """One or two legs (anchor type -> ... -> target type); all legs end at the same target type."""

    legs: tuple[tuple[Step, ...], ...]

    @property
    def target(self) -> str:
        return self.legs[0][-1].target

    @property
    def hops(self) -> int:
        return max(len(leg) for leg in self.legs)

    @property
    def name(self) -> str:
        """A readable, stable key: 'Phenotype<HAS_PHENOTYPE<Disease', legs joined by '&'."""
        return "&".join(leg[0].source + "".join(_step_key(step) for step in leg) for leg in self.legs)


@dataclass(frozen=True)
class Lookup:
    """A node of `label` identified by a passage of its own text: no anchor, no hop."""

    label: str

    @property
    def target(self) -> str:
        return self.label

    @property
    def hops(self) -> int:
        return 0

    @property
    def name(self) -> str:
        return f"{self.label}=described"


@dataclass(frozen=True)
class OneStepPick:
    """One node picked among the targets of a one-hop walk from an anchor (how: the subclass)."""

    step: Step

    @property
    def target(self) -> str:
        return self.step.target

    @property
    def hops(self) -> int:
        return 1

    @property
    def legs(self) -> tuple[tuple[Step, ...], ...]:
        return ((self.step,),)


@dataclass(frozen=True)
class Superlative(OneStepPick):
    """The one node along a one-hop walk from an anchor with the largest (or smallest) quantity `property`:
    "which city located in Finland has the largest population"."""

    quantity: str  # the property holding the numbers
    descending: bool

    @property
    def name(self) -> str:
        way = "max" if self.descending else "min"
        return f"{self.step.source}{_step_key(self.step)}@{way}:{self.quantity}"


@dataclass(frozen=True)
class Mentioning(OneStepPick):
    """The one node along a one-hop walk from an anchor whose own text holds a word no other node there holds."""

    @property
    def name(self) -> str:
        return f"{self.step.source}{_step_key(self.step)}~text"


def mentioning_templates(patterns: Iterable[tuple[str, str, str]], text_types: Iterable[str]) -> list[Mentioning]:
    """Per one-hop walk onto a type with text fields beyond its name, one mentioning template (sorted by name)."""
    texted = set(text_types)
    return sorted((Mentioning(step) for step in schema_steps(patterns) if step.target in texted), key=lambda t: t.name)


def superlative_templates(
    patterns: Iterable[tuple[str, str, str]], quantities: Mapping[str, Sequence[str]]
) -> list[Superlative]:
    """Per one-hop walk onto a type with quantities, its largest and smallest of each (sorted by name)."""
    return sorted(
        (
            Superlative(step, prop, descending)
            for step in schema_steps(patterns)
            for prop in quantities.get(step.target, ())
            for descending in (True, False)
        ),
        key=lambda t: t.name,
    )


def _step_key(step: Step) -> str:
    arrow = ">" if step.outgoing else "<"
    return f"{arrow}{step.relation}{arrow}{step.target}"


def schema_steps(patterns: Iterable[tuple[str, str, str]]) -> list[Step]:
    """Both walking directions of every stored (source label, relation, target label) pattern."""
    steps: list[Step] = []
    for source, relation, target in sorted(set(patterns)):
        steps.append(Step(relation, True, source, target))
        steps.append(Step(relation, False, target, source))
    return steps


def schema_templates(patterns: Iterable[tuple[str, str, str]], *, two_hop: bool = True) -> list[Template]:
    """Every 1-hop chain, every 2-hop chain (not undoing its first step on the same relation unless it comes
    back to a different node of the same type: "other X sharing a Y"), and every pair of one-hop legs meeting
    at one target type. Sorted by name so a seed means the same sampling everywhere."""
    steps = schema_steps(patterns)
    templates = [Template(((step,),)) for step in steps]
    if two_hop:
        templates += [
            Template(((first, second),)) for first in steps for second in steps if first.target == second.source
        ]
    for i, first in enumerate(steps):
        for second in steps[i + 1 :]:
            if first.target == second.target and (first.source, first.relation) != (second.source, second.relation):
                templates.append(Template(((first,), (second,))))
    return sorted(set(templates), key=lambda t: t.name)


def relation_words(relation: str) -> str:
    """'HAS_PHENOTYPE' -> 'has phenotype', 'actedIn' -> 'acted in'."""
    return spaced_name(relation)


@dataclass(frozen=True)
class AnchorText:
    """How a question refers to one anchor: its name, or (described family) a passage of its text: a sentence
    of prose, or the value of one of its record fields (`passage_field`, "the country whose demonym is ...")."""

    name: str
    type_word: str
    passage: str | None = None
    misspelt: str | None = None
    passage_field: str | None = None  # the field whose whole value `passage` is; None: a sentence of prose

    def reference(self, family: str) -> str:
        if family == "described" and self.passage and self.passage_field:
            return f"the {self.type_word} whose {spaced_name(self.passage_field)} is {self.passage}"
        if family == "described" and self.passage:
            return f'the {self.type_word} described as "{self.passage}"'
        if family == "misspelt" and self.misspelt:
            return self.misspelt
        return self.name


def misspelling(name: str, rng: random.Random) -> str | None:
    """The name with one slip of the keyboard in one of its longer words (two letters swapped, one dropped or
    one doubled; the first letter kept), or None when no word is long enough to stay recognisable."""
    words = list(_LONG_WORD.finditer(name))
    if not words:
        return None
    match = rng.choice(words)
    word = match.group()
    i = rng.randrange(1, len(word) - 1)
    slips = (word[:i] + word[i + 1] + word[i] + word[i + 2 :], word[:i] + word[i + 1 :], word[:i] + word[i] + word[i:])
    slipped = next((slip for slip in rng.sample(slips, len(slips)) if slip.lower() != word.lower()), None)
    return None if slipped is None else name[: match.start()] + slipped + name[match.end() :]


def aside(name: str, rng: random.Random) -> str:
    """A sentence or clause naming a node the question is not about, to put before the question."""
    return rng.choice(_ASIDES).format(name=name)


@dataclass(frozen=True)
class Revealed:
    """What one wording says about one step of a walk: the relation's words, the direction (by its grammar:
    "have phenotype X" against "that X has phenotype") and the type the step reaches."""

    relation: bool
    direction: bool
    target: bool


_ALL = Revealed(True, True, True)
_RELATION_AND_TYPE = Revealed(True, False, True)
_RELATION_AND_DIRECTION = Revealed(True, True, False)
_TYPE = Revealed(False, False, True)
_RELATION = Revealed(True, False, False)
# What each family's form says about each step, in walking order, per shape of walk: the short forms, and the
# explicit ones (relative clauses) used where a short form would leave two readings. A family missing from
# both says nothing a reader could tell the step by; such questions are worded as "which".
_SHORT: dict[str, dict[str, tuple[Revealed, ...]]] = {
    "intersection": {
        "which": (_ALL, _ALL),
        "find": (_TYPE, _TYPE),
        "list": (_TYPE, _TYPE),
        "terse": (_TYPE, _TYPE),
        # "<anchor>-related <targets>" for the first leg: the target type alone tells the step
        "compound": (_TYPE, _ALL),
    },
    "chain": {"which": (_ALL, _ALL), "find": (_TYPE, _TYPE), "list": (_RELATION_AND_TYPE,) * 2, "terse": (_TYPE,) * 2},
    "one step": {
        "which": (_ALL,),
        "find": (_RELATION_AND_TYPE,),
        "list": (_RELATION_AND_TYPE,),
        "terse": (_RELATION_AND_TYPE,),
        "implied": (_RELATION,),
        "compound": (_TYPE,),
    },
}
_EXPLICIT: dict[str, dict[str, tuple[Revealed, ...]]] = {
    "intersection": {
        "find": (_ALL, _ALL),
        "list": (_ALL, _ALL),
        "terse": (_RELATION_AND_TYPE,) * 2,
        "implied": (_RELATION, _RELATION),
    },
    "chain": {"find": (_ALL, _ALL), "list": (_ALL, _ALL), "implied": (_ALL, _RELATION_AND_DIRECTION)},
    "one step": {"find": (_ALL,), "list": (_ALL,), "terse": (_ALL,), "implied": (_RELATION_AND_DIRECTION,)},
}
WordingForm = Literal["short", "explicit"]


def wording_form(template: Template | OneStepPick, family: str, schema: SkbSchema) -> WordingForm | None:
    """The family's form that words `template` with one reading of each step given the schema: the short form
    when no other walk of the schema from a step's type fits what it says, else the explicit one (relation words
    in relative clauses) when that one does; None when neither does (the question is worded as "which").
    "Split hand + Cardiomyopathy -> disorders?" is no question when a disorder may have or lack a phenotype,
    nor "what is connected to X through is a" when the walk may go up or down. Families worded as "which"
    (described, lower, preface, misspelt, aside) say everything; "compound" words only the legs of a Template."""
    if family == "compound" and not isinstance(template, Template):
        return None
    walks = schema_steps(
        (pair.source, relation.type, pair.target) for relation in schema.relation_types for pair in relation.pairs
    )
    if family == "nouns":
        # a role noun says a step's relation and which end it reaches, not the type there (a relation joining
        # several pairs of types leaves it open); a step without nouns is said by a clause, which says it all
        nouns = _noun_steps(template, RelationPhrasing.of(schema)) if isinstance(template, Template) else None
        if nouns is None:
            return None
        told_by_nouns = [_RELATION_AND_DIRECTION if options else _ALL for options in nouns]
        fits = all(_one_reading(step, told, walks) for step, told in zip(template.legs[0], told_by_nouns, strict=True))
        return "short" if fits else None
    base = "which" if family in _WHICH_BASED else family
    steps = [step for leg in template.legs for step in leg]
    shape = "intersection" if len(template.legs) == 2 else "chain" if len(steps) == 2 else "one step"
    for form, table in (("short", _SHORT), ("explicit", _EXPLICIT)):
        said = table[shape].get(base)
        if said is not None and all(_one_reading(step, told, walks) for step, told in zip(steps, said, strict=True)):
            return cast(WordingForm, form)
    return None


def _one_reading(step: Step, said: Revealed, walks: Sequence[Step]) -> bool:
    fitting = [
        walk
        for walk in walks
        if walk.source == step.source
        and (not said.relation or walk.relation == step.relation)
        and (not said.direction or walk.outgoing == step.outgoing)
        and (not said.target or walk.target == step.target)
    ]
    return fitting == [step]


@dataclass(frozen=True)
class RelationPhrasing:
    """The schema's relation phrases (`RelationType.phrases`, `inverse_phrases`) by relation: how a sentence says
    a step, with either of its nodes first. A relation without phrases is worded by its name."""

    forward: Mapping[str, tuple[str, ...]]
    inverse: Mapping[str, tuple[str, ...]]
    source_nouns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    target_nouns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, schema: SkbSchema) -> RelationPhrasing:
        return cls(
            {relation.type: relation.phrases for relation in schema.relation_types},
            {relation.type: relation.inverse_phrases for relation in schema.relation_types},
            {relation.type: relation.source_nouns for relation in schema.relation_types},
            {relation.type: relation.target_nouns for relation in schema.relation_types},
        )

    def reached_nouns(self, step: Step) -> tuple[str, ...]:
        """The schema's role nouns for the node the step reaches ("capital" reaching a city from its country
        against CAPITAL_OF): the stored target's when the step walks the stored direction, else the source's."""
        return (self.target_nouns if step.outgoing else self.source_nouns).get(step.relation, ())

    def reached_first(self, step: Step) -> tuple[str, ...]:
        """Phrases whose subject is the node the step reaches ("Y contains X" walking X -> Y along LOCATED_IN)."""
        return (self.inverse if step.outgoing else self.forward).get(step.relation, ())

    def anchor_first(self, step: Step) -> tuple[str, ...]:
        """Phrases whose subject is the node the step starts from ("X is located in Y")."""
        return (self.forward if step.outgoing else self.inverse).get(step.relation, ())

    def has(self, step: Step) -> bool:
        return bool(self.reached_first(step) or self.anchor_first(step))

    def options(self, step: Step, anchor: str) -> list[tuple[bool, str]]:
        """(reached node first?, phrase) to choose from; a phrase ending in an article ("is a") is left out
        where nothing it could go with follows it, when another phrase is there: at the end of a clause with the
        anchor first ("the features that X is a"), and before a noun phrase ("is a the findings that ...")."""
        options = [(True, p) for p in self.reached_first(step)] + [(False, p) for p in self.anchor_first(step)]
        before_noun_phrase = anchor.lower().startswith("the ")
        fitting = [
            (first, p) for first, p in options if p.split()[-1] not in ("a", "an") or (first and not before_noun_phrase)
        ]
        return fitting or options

    def choose(self, step: Step, anchor: str, rng: random.Random) -> tuple[bool, str] | None:
        """One of `options` (reached node first?, phrase), or None when the relation has no phrases."""
        options = self.options(step, anchor)
        return rng.choice(options) if options else None


def _relative(
    step: Step,
    anchor: str,
    plural_subject: bool,
    phrasing: RelationPhrasing,
    rng: random.Random,
    plural_anchor: bool = False,
) -> str:
    """The walked-to nodes as a relative clause: 'that have phenotype X' or 'that X is associated with'."""
    clause = _step_clause(step, anchor, plural_subject, phrasing, rng, plural_anchor)
    return clause if clause.startswith("that ") else f"that {clause}"


def _what(step: Step, anchor: str, phrasing: RelationPhrasing, rng: random.Random, plural_anchor: bool = False) -> str:
    """The asked nodes as 'what' (their type left unsaid): 'What has phenotype X?' or 'X is a what?'; with the
    schema's phrases 'What is the capital of X?' or 'X is located in what?' (`plural_anchor`: 'the countries
    that ... are located in what?')."""
    chosen = phrasing.choose(step, anchor, rng)
    if chosen is not None:
        first, phrase = chosen
        if first:
            return f"What {phrase} {anchor}?"
        return f"{anchor} {plural_verb(phrase) if plural_anchor else phrase} what?"
    words = relation_words(step.relation)
    return f"{anchor} {words} what?" if step.outgoing else f"What {words} {anchor}?"


def _step_clause(
    step: Step,
    anchor: str,
    plural_subject: bool,
    phrasing: RelationPhrasing,
    rng: random.Random,
    plural_anchor: bool = False,
) -> str:
    """The words joining the walked-to nodes with the anchor: 'have phenotype X' (the edge points at the anchor)
    or 'that X is associated with' (the edge leaves the anchor). With the schema's phrases, one of them with
    either node first, agreeing with its subject: 'are located in X', 'that X contains', 'that the countries
    that ... contain' (`plural_anchor`)."""
    chosen = phrasing.choose(step, anchor, rng)
    if chosen is not None:
        first, phrase = chosen
        if first:
            return f"{plural_verb(phrase) if plural_subject else phrase} {anchor}"
        return f"that {anchor} {plural_verb(phrase) if plural_anchor else phrase}"
    words = relation_words(step.relation)
    if not step.outgoing:
        return f"{plural_verb(words) if plural_subject else words} {anchor}"
    return f"that {anchor} {words}"


def _noun_steps(template: Template, phrasing: RelationPhrasing) -> list[tuple[str, ...]] | None:
    """Each step's role nouns for the node it reaches, for one chain whose last step has some, or two steps whose
    first has some and whose last a phrase with the reached node first ("Which languages are spoken in Ecuador's
    neighbours?"); None for any other template."""
    if len(template.legs) != 1:
        return None
    leg = template.legs[0]
    nouns = [phrasing.reached_nouns(step) for step in leg]
    if nouns[-1] or (len(leg) == 2 and nouns[0] and phrasing.reached_first(leg[1])):
        return nouns
    return None


def _noun_question(
    template: Template, ref: str, middle: str, targets: str, phrasing: RelationPhrasing, rng: random.Random
) -> str:
    """The "nouns" family: the steps said by the schema's role nouns, as people ask along a chain ("What are the
    capitals of Chile's neighbours?", "Name the parent terms of X."); a step without nouns by a phrase or clause
    ("Which languages are spoken in Ecuador's neighbours?", "What are the capitals of the countries that use the
    euro?")."""
    nouns = _noun_steps(template, phrasing)
    assert nouns is not None
    said = [plural(rng.choice(options)) if options else "" for options in nouns]
    if len(said) == 1:
        return rng.choice((f"What are the {said[0]} of {ref}?", f"Name {ref}'s {said[0]}."))
    first, second = said
    leg = template.legs[0]
    if first and second:
        return rng.choice((f"What are the {second} of {ref}'s {first}?", f"Name the {second} of the {first} of {ref}."))
    if first:  # the last step by a phrase whose object is the first step's noun phrase
        phrase = plural_verb(rng.choice(phrasing.reached_first(leg[1])))
        return f"Which {targets} {phrase} {ref}'s {first}?"
    inner = f"the {middle} {_relative(leg[0], ref, True, phrasing, rng)}"
    return f"What are the {second} of {inner}?"


def word_question(
    template: Template,
    anchors: Sequence[AnchorText],
    family: str,
    schema: SkbSchema,
    rng: random.Random,
) -> str:
    """One wording of a template in a family (see FAMILIES), in the family's short form where it leaves one
    reading, else its explicit form, else as "which" (`wording_form`). `anchors` follow `template.legs`."""
    types: Mapping[str, NodeType] = {t.label: t for t in schema.node_types}
    phrasing = RelationPhrasing.of(schema)
    target_word = rng.choice(singular_type_words(types[template.target]))
    targets = plural(target_word)
    refs = [anchor.reference(family) for anchor in anchors]
    explicit: dict[str, str] = {}
    if family == "nouns" and wording_form(template, family, schema) == "short":
        middle_type = types[template.legs[0][0].target]
        middle = plural(rng.choice(singular_type_words(middle_type)))
        return _noun_question(template, refs[0], middle, targets, phrasing, rng)

    def relative(step: Step, anchor: str, plural_subject: bool, plural_anchor: bool = False) -> str:
        return _relative(step, anchor, plural_subject, phrasing, rng, plural_anchor)

    if len(template.legs) == 2:
        first, second = template.legs[0][0], template.legs[1][0]
        clause_a = _step_clause(first, refs[0], True, phrasing, rng)
        clause_b = _step_clause(second, refs[1], True, phrasing, rng)
        forms = {
            "which": f"Which {targets} {clause_a} and also {clause_b}?",
            "find": f"Find the {target_word} that is linked to both {refs[0]} and {refs[1]}.",
            "list": f"List {targets} connected to {refs[0]} as well as to {refs[1]}.",
            "terse": f"{refs[0]} + {refs[1]} -> {targets}?",
            "implied": f"{refs[0]} and {refs[1]} together: what fits both?",
            "compound": f"Which {refs[0]}-related {targets} {clause_b}?",
        }
        relation_a, relation_b = relation_words(first.relation), relation_words(second.relation)
        explicit = {
            "find": f"Find the {target_word} {relative(first, refs[0], False)} and {relative(second, refs[1], False)}.",
            "list": f"List {targets} {relative(first, refs[0], True)} as well as {relative(second, refs[1], True)}.",
            "terse": f"{refs[0]} ({relation_a}) + {refs[1]} ({relation_b}) -> {targets}?",
            "implied": f"What is connected to {refs[0]} by {relation_a} and to {refs[1]} by {relation_b}?",
        }
    else:
        leg = template.legs[0]
        if len(leg) == 1:
            clause = _step_clause(leg[0], refs[0], True, phrasing, rng)
            relation = relation_words(leg[0].relation)
            what = _what(leg[0], refs[0], phrasing, rng)
            forms = {
                "which": f"Which {targets} {clause}?",
                "find": f"Find every {target_word} linked to {refs[0]} by {relation}.",
                "list": f"List the {targets} for {refs[0]} ({relation}).",
                "terse": f"{refs[0]} {relation} -> {targets}?",
                # with the schema's phrases the question says the relation as people do ("What is spoken in X?")
                "implied": what if phrasing.has(leg[0]) else f"What is connected to {refs[0]} through {relation}?",
                "compound": f"Which {refs[0]}-related {targets} are there?",
            }
            explicit = {
                "find": f"Find every {target_word} {relative(leg[0], refs[0], False)}.",
                "list": f"List the {targets} {relative(leg[0], refs[0], True)}.",
                "terse": f"{targets} {relative(leg[0], refs[0], True)}?",
                "implied": what,
            }
        else:
            middle = plural(rng.choice(singular_type_words(types[leg[0].target])))
            path_words = f"{relation_words(leg[0].relation)}, then {relation_words(leg[1].relation)}"
            # nested clauses keep each step's relation and direction: "which genes are associated with the
            # diseases that have phenotype X"
            middle_phrase = f"the {middle} {relative(leg[0], refs[0], True)}"
            reached = relative(leg[1], middle_phrase, True, plural_anchor=True)
            forms = {
                "which": f"Which {targets} {_step_clause(leg[1], middle_phrase, True, phrasing, rng, True)}?",
                "find": f"Find the {targets} linked to {refs[0]} by way of {middle}.",
                "list": f"List {targets} that share {middle} with {refs[0]}, via {path_words}.",
                "terse": f"{refs[0]} -> {middle} -> {targets}?",
                "implied": f"Starting from {refs[0]} and going through its {middle}, what do we reach?",
            }
            # the asked type unsaid two steps away: "What borders the nations that Cantal is located in?"
            implied = _what(leg[1], middle_phrase, phrasing, rng, plural_anchor=True)
            explicit = {
                "find": f"Find the {targets} {reached}.",
                "list": f"List {targets} {reached}.",
                "implied": implied[0].upper() + implied[1:],
            }
    return _worded_as(wording_form(template, family, schema), forms, explicit, family, rng)


def word_lookup(
    lookup: Lookup, passage: str, family: str, schema: SkbSchema, rng: random.Random, field: str | None = None
) -> str:
    """One wording of a lookup in a family (see FAMILIES); the passage is the node's own text, quoted or not, or
    with `field` the value of that field of its record ("Which country has the demonym Motswana?")."""
    node_type = next(t for t in schema.node_types if t.label == lookup.label)
    type_word = rng.choice(singular_type_words(node_type))
    if field is not None:
        words = spaced_name(field)
        return _in_family(
            {
                "which": f"Which {type_word} has the {words} {passage}?",
                "find": f"Find the {type_word} whose {words} is {passage}.",
                "list": f"List the {plural(type_word)} with the {words} {passage}.",
                "terse": f"{words} {passage} -> {type_word}?",
                "implied": f"What has the {words} {passage}?",
            },
            family,
            rng,
        )
    forms = {
        "which": f'Which {type_word} is described as "{passage}"?',
        "find": f"Find the {type_word} whose description reads: {passage}.",
        "list": f'List the {plural(type_word)} matching the description "{passage}".',
        "terse": f"{passage} -> {type_word}?",
        "implied": f'What is described as "{passage}"?',
    }
    return _in_family(forms, family, rng)


_MOST = ("largest", "highest", "greatest")
_LEAST = ("smallest", "lowest")


def word_superlative(
    template: Superlative, anchor: AnchorText, family: str, schema: SkbSchema, rng: random.Random
) -> str:
    """One wording of a superlative in a family (see FAMILIES), with a superlative adjective and the property's
    name made into words ("area_km2" -> "area km2")."""
    node_type = next(t for t in schema.node_types if t.label == template.target)
    target_word = rng.choice(singular_type_words(node_type))
    ref = anchor.reference(family)
    most = rng.choice(_MOST if template.descending else _LEAST)
    quantity = spaced_name(template.quantity)
    phrasing = RelationPhrasing.of(schema)
    clause = _relative(template.step, ref, False, phrasing, rng)  # "which country that borders X has ..."
    relation = relation_words(template.step.relation)
    forms = {
        "which": f"Which {target_word} {clause} has the {most} {quantity}?",
        "find": f"Find the {target_word} with the {most} {quantity} among those linked to {ref} by {relation}.",
        "list": f"Name the {target_word} of {ref} ({relation}) with the {most} {quantity}.",
        "terse": f"{ref} {relation} -> {most} {quantity} {target_word}?",
        "implied": f"What linked to {ref} through {relation} has the {most} {quantity}?",
    }
    that = _relative(template.step, ref, False, phrasing, rng)
    explicit = {
        "find": f"Find the {target_word} {that} with the {most} {quantity}.",
        "list": f"Name the {target_word} {that} with the {most} {quantity}.",
        "terse": f"{target_word} {that} -> {most} {quantity}?",
        "implied": f"{_what(template.step, ref, phrasing, rng)[:-1]}, with the {most} {quantity}?",
    }
    if phrasing.has(template.step):  # the phrase says the relation as people do, so "implied" keeps it
        forms = {**forms, "implied": explicit["implied"]}
    return _worded_as(wording_form(template, family, schema), forms, explicit, family, rng)


def word_mentioning(
    template: Mentioning, anchor: AnchorText, word: str, family: str, schema: SkbSchema, rng: random.Random
) -> str:
    """One wording of a mentioning question in a family (see FAMILIES): the walk, and the word the one target's
    text holds."""
    node_type = next(t for t in schema.node_types if t.label == template.target)
    target_word = rng.choice(singular_type_words(node_type))
    ref = anchor.reference(family)
    phrasing = RelationPhrasing.of(schema)
    clause = _step_clause(template.step, ref, False, phrasing, rng)
    relation = relation_words(template.step.relation)
    forms = {
        "which": f"Which {target_word} {clause}, with a description that mentions {word}?",
        "find": f"Find the {target_word} linked to {ref} by {relation} whose text mentions {word}.",
        "list": f"Name the {target_word} of {ref} ({relation}) described with the word {word}.",
        "terse": f"{ref} {relation} -> {target_word} mentioning {word}?",
        "implied": f"What linked to {ref} through {relation} mentions {word}?",
    }
    that = _relative(template.step, ref, False, phrasing, rng)
    explicit = {
        "find": f"Find the {target_word} {that} whose text mentions {word}.",
        "list": f"Name the {target_word} {that} described with the word {word}.",
        "terse": f"{target_word} {that} mentioning {word}?",
        "implied": f"{_what(template.step, ref, phrasing, rng)[:-1]}, mentioning {word}?",
    }
    if phrasing.has(template.step):
        forms = {**forms, "implied": explicit["implied"]}
    return _worded_as(wording_form(template, family, schema), forms, explicit, family, rng)


def _worded_as(
    form: WordingForm | None,
    forms: Mapping[str, str],
    explicit: Mapping[str, str],
    family: str,
    rng: random.Random,
) -> str:
    """The family's short form, its explicit form, or (None: neither leaves one reading) the "which" form."""
    if form == "explicit":
        return _in_family({**forms, **explicit}, family, rng)
    return _in_family(forms, family if form else "which", rng)


def _in_family(forms: Mapping[str, str], family: str, rng: random.Random) -> str:
    base = "which" if family in _WHICH_BASED or family not in forms else family
    text = forms[base]
    if family == "lower":
        return text.lower()
    if family == "preface":
        return rng.choice(_PREFACES) + text
    return text


__all__ = [
    "ANCHOR_NAMING",
    "FAMILIES",
    "AnchorText",
    "Lookup",
    "Mentioning",
    "RelationPhrasing",
    "Step",
    "Superlative",
    "Template",
    "aside",
    "mentioning_templates",
    "misspelling",
    "plural_verb",
    "relation_words",
    "schema_steps",
    "schema_templates",
    "superlative_templates",
    "word_lookup",
    "wording_form",
    "word_mentioning",
    "word_question",
    "word_superlative",
]
