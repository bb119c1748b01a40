"""`grasp bench build --skb NAME`: synthetic questions with exact answers for any loaded SKB.

Templates come from the stored schema patterns (`skb_templates`); anchors are nodes whose name identifies them
(unique across the SKB, case-insensitive, 2-60 characters); each requirement keeps 1..`max_answers` answers
read from the graph along the template's walk (the anchor itself never counts). A two-anchor template keeps
only pairs where each anchor narrows the other (the intersection is smaller than either leg's answers), the
hard conjunctions a reader must not drop. Per type with text fields, lookups: a node described by the first
sentence of its own text, kept only when no other node of its type has that sentence (so the answer is exact)
and the sentence does not give its name away; where the type's texts are records rather than prose (codes,
demonyms), by the value of a field that no other node of its type holds (`_Describer`). Per one-hop walk onto
a type with quantities, superlatives: the one target with the largest (smallest) value, kept only without a
tie. Per one-hop walk onto a type with text fields, mentioning questions: the one target whose text (names and
synonyms left out) holds a word that no other target of that anchor's walk holds, nor the anchor's or the
target's names. Splits are by requirement, so every wording of one requirement lands in one split.
Deterministic by seed for a given graph.
"""

from __future__ import annotations

import hashlib
import logging
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from neo4j import Driver

from grasp_agent.cypher_queries import fill_identifiers
from grasp_agent.evaluation.query_sets import EvalQuery, GoldAnchor
from grasp_agent.evaluation.questions import check_generation
from grasp_agent.evaluation.skb_templates import (
    ANCHOR_NAMING,
    FAMILIES,
    AnchorText,
    Lookup,
    Mentioning,
    Step,
    Superlative,
    Template,
    aside,
    mentioning_templates,
    misspelling,
    schema_templates,
    superlative_templates,
    word_lookup,
    word_mentioning,
    word_question,
    word_superlative,
    wording_form,
)
from grasp_agent.skb.context import SkbContext
from grasp_agent.skb.property_kinds import quantity

logger = logging.getLogger(__name__)

MAX_NAME = 60
PASSAGE_WORDS = 20
MAX_VALUE_WORDS = 6  # a field value that describes a node is a record's value, not prose
MIN_MENTIONED = 5  # letters of a word a mentioning question asks for: shorter ones are mostly function words
MAX_WALK = 50  # targets of one anchor a mentioning question picks among
_LETTERS = re.compile(r"[^\W\d_]+")
_SPLITS = ((60, "train"), (80, "valid"), (100, "test"))  # cumulative percent
_TRIES_PER_QUESTION = 12  # anchors examined per question wanted, before a template gives up


@dataclass(frozen=True)
class Requirement:
    """What one question asks: a template, its anchors (one per leg) and the exact answers."""

    template: Template | Superlative | Mentioning
    anchor_ids: tuple[str, ...]
    answers: tuple[str, ...]
    word: str = ""  # the word a mentioning question asks the answer's text for


class SkbGraph:
    """The reads the generator makes, every value a parameter, every identifier checked by `fill_identifiers`."""

    def __init__(self, driver: Driver, database: str) -> None:
        self._driver = driver
        self._database = database

    def _rows(self, statement: str, **parameters: object) -> list[dict[str, object]]:
        records, _, _ = self._driver.execute_query(statement, parameters, database_=self._database)
        return [record.data() for record in records]

    def names(self, label: str) -> dict[str, str]:
        statement = fill_identifiers(
            "MATCH (n:{{label}}) WHERE n.id IS NOT NULL AND n.name IS NOT NULL RETURN n.id AS id, n.name AS name",
            label=label,
        )
        return {str(row["id"]): str(row["name"]) for row in self._rows(statement)}

    def _field_values(self, label: str, fields: Sequence[str], ids: Sequence[str]) -> dict[str, list[str]]:
        """Each node's `fields` as text, in field order (lists joined; a missing field reads as "")."""
        if not fields or not ids:
            return {}
        for field in fields:
            fill_identifiers("{{field}}", field=field)  # checked, though it travels as a parameter below
        statement = fill_identifiers(
            "UNWIND $ids AS node_id MATCH (n:{{label}} {id: node_id}) "
            "RETURN node_id AS id, [field IN $fields | n[field]] AS values",
            label=label,
        )
        return {
            str(row["id"]): [
                " ".join(map(str, v)) if isinstance(v, list) else str(v or "") for v in _items(row["values"])
            ]
            for row in self._rows(statement, ids=list(ids), fields=list(fields))
        }

    def texts(self, label: str, fields: Sequence[str], ids: Sequence[str]) -> dict[str, str]:
        """The first non-empty text field of each node (lists joined), for described anchors."""
        firsts = {
            node: next((text.strip() for text in values if text.strip()), "")
            for node, values in self._field_values(label, fields, ids).items()
        }
        return {node: text for node, text in firsts.items() if text}

    def unique_values(self, label: str, field: str) -> dict[str, str]:
        """Node id -> its `field` as text, for the nodes of `label` whose value no other node of `label` holds
        (lists and empty values left out): a value that picks out one node, as a name does."""
        fill_identifiers("{{field}}", field=field)  # checked, though it travels as a parameter below
        statement = fill_identifiers(
            "MATCH (n:{{label}}) WHERE n.id IS NOT NULL AND n[$field] IS NOT NULL "
            "WITH n[$field] AS value, collect(n.id) AS ids WHERE size(ids) = 1 "
            "RETURN ids[0] AS id, value",
            label=label,
        )
        return {
            str(row["id"]): str(row["value"]).strip()
            for row in self._rows(statement, field=field)
            if not isinstance(row["value"], list) and str(row["value"]).strip()
        }

    def field_texts(self, label: str, fields: Sequence[str], ids: Sequence[str]) -> dict[str, str]:
        """All of `fields` of each node joined (lists too): what a mentioning question reads a word from."""
        return {
            node: " ".join(text for text in values if text.strip())
            for node, values in self._field_values(label, fields, ids).items()
        }

    def leg_answers(self, leg: tuple[Step, ...], ids: Sequence[str], cap: int) -> dict[str, list[str]]:
        """Up to `cap` distinct answers of each anchor along the leg (the anchor excluded)."""
        pattern, identifiers = _walk(leg)
        statement = fill_identifiers(
            "UNWIND $ids AS node_id MATCH (a:{{anchor}} {id: node_id}) "
            f"RETURN node_id AS id, COLLECT {{ MATCH (a){pattern} WHERE t <> a "
            "RETURN DISTINCT t.id AS answer ORDER BY answer LIMIT $cap } AS answers",
            anchor=leg[0].source,
            **identifiers,
        )
        return {
            str(row["id"]): [str(a) for a in _items(row["answers"])]
            for row in self._rows(statement, ids=list(ids), cap=cap)
        }

    def leg_quantities(
        self, step: Step, ids: Sequence[str], prop: str, cap: int
    ) -> dict[str, list[tuple[str, object]]]:
        """Up to `cap` distinct (answer, value of `prop`) of each anchor one step away (the anchor excluded)."""
        fill_identifiers("{{property}}", property=prop)  # checked, though it travels as a parameter below
        pattern, identifiers = _walk((step,))
        statement = fill_identifiers(
            "UNWIND $ids AS node_id MATCH (a:{{anchor}} {id: node_id}) "
            f"RETURN node_id AS id, COLLECT {{ MATCH (a){pattern} WHERE t <> a "
            "WITH DISTINCT t RETURN [t.id, t[$property]] AS pair ORDER BY pair[0] LIMIT $cap } AS pairs",
            anchor=step.source,
            **identifiers,
        )
        rows = self._rows(statement, ids=list(ids), cap=cap, property=prop)
        return {str(row["id"]): [(str(p[0]), p[1]) for p in _items(row["pairs"])] for row in rows}  # type: ignore[index]

    def partners(
        self, first: Step, second: Step, answers: Sequence[str], limit: int
    ) -> list[tuple[str, list[str], int]]:
        """Nodes of `second.source` joined to some of `answers` (targets) by `second`: (id, shared targets,
        that node's own number of targets along `second`)."""
        back = Step(second.relation, not second.outgoing, second.target, second.source)
        pattern, identifiers = _walk((back,), end="b")
        forward, forward_identifiers = _walk((second,))
        statement = fill_identifiers(
            "UNWIND $answers AS answer MATCH (t:{{target}} {id: answer}) "
            f"MATCH (t){pattern} "
            "WITH b, collect(DISTINCT t.id) AS shared "
            f"RETURN b.id AS id, shared, COUNT {{ MATCH (b){forward} }} AS total "
            "ORDER BY id LIMIT $limit",
            target=first.target,
            **identifiers,
            **forward_identifiers,
        )
        rows = self._rows(statement, answers=list(answers), limit=limit)
        return [(str(row["id"]), [str(s) for s in _items(row["shared"])], _count(row["total"])) for row in rows]


def _items(value: object) -> list[object]:
    """A Cypher list value as a Python list (None reads as empty)."""
    return list(value) if isinstance(value, list) else []


def _count(value: object) -> int:
    return value if isinstance(value, int) else 0


def _walk(leg: tuple[Step, ...], end: str = "t") -> tuple[str, dict[str, str]]:
    """A Cypher pattern walking the leg from an already bound start to `end`, with its identifiers."""
    parts: list[str] = []
    identifiers: dict[str, str] = {}
    for number, step in enumerate(leg):
        letter = "abcdefgh"[number]  # placeholders take letters and _ only
        relation, label = f"{end}_rel_{letter}", f"{end}_label_{letter}"
        identifiers[relation] = step.relation
        identifiers[label] = step.target
        variable = end if number == len(leg) - 1 else f"{end}_via_{letter}"
        arrow = f"-[:{{{{{relation}}}}}]->" if step.outgoing else f"<-[:{{{{{relation}}}}}]-"
        parts.append(f"{arrow}({variable}:{{{{{label}}}}})")
    return "".join(parts), identifiers


def split_of(requirement: Requirement) -> str:
    return _split_of_key(requirement.template.name + "|" + "|".join(requirement.anchor_ids))


def _split_of_key(key: str) -> str:
    bucket = int(hashlib.sha256(key.encode()).hexdigest(), 16) % 100
    return next(split for limit, split in _SPLITS if bucket < limit)


def unique_names(names_by_label: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """Per label, the nodes whose name (case-insensitive) no other node of the SKB has, 2..60 characters."""
    counts: dict[str, int] = {}
    for names in names_by_label.values():
        for name in names.values():
            counts[name.lower()] = counts.get(name.lower(), 0) + 1
    return {
        label: {i: n for i, n in names.items() if counts[n.lower()] == 1 and 2 <= len(n) <= MAX_NAME}
        for label, names in names_by_label.items()
    }


def generate_skb_questions(
    graph: SkbGraph,
    context: SkbContext,
    count: int,
    seed: int = 0,
    max_answers: int = 20,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> list[EvalQuery]:
    """About `count` questions spread evenly over the schema's templates (fewer where the graph runs out)."""
    check_generation(count, max_answers)
    rng = random.Random(seed)
    templates = schema_templates(context.pattern_counts)
    if not templates or count == 0:
        return []
    all_names = {label: graph.names(label) for label in context.labels}
    names = unique_names(all_names)
    pools = {label: sorted(ids) for label, ids in names.items()}
    describe = _Describer(graph, context)
    described = [Lookup(t.label) for t in context.schema.node_types if t.text_fields and all_names.get(t.label)]
    superlatives = superlative_templates(context.pattern_counts, context.quantity_properties)
    mentioning = mentioning_templates(
        context.pattern_counts, [label for label in context.labels if _mentionable_fields(context, label)]
    )
    steps = len(templates) + len(described) + len(superlatives) + len(mentioning)
    per_template = max(1, count // steps)
    questions: list[EvalQuery] = []
    for done, template in enumerate(templates):
        requirements = _requirements(graph, template, pools, per_template, max_answers, rng)
        questions.extend(_worded(context, describe, requirements, names, rng))
        if progress is not None:
            progress(done + 1, steps)
    for done, lookup in enumerate(described, start=len(templates) + 1):
        questions.extend(_lookups(context, describe, lookup, all_names[lookup.label], per_template, rng))
        if progress is not None:
            progress(done, steps)
    for done, superlative in enumerate(superlatives, start=len(templates) + len(described) + 1):
        requirements = _superlative_requirements(graph, superlative, pools, per_template, max_answers, rng)
        questions.extend(_worded(context, describe, requirements, names, rng))
        if progress is not None:
            progress(done, steps)
    for done, mention in enumerate(mentioning, start=steps - len(mentioning) + 1):
        requirements = _mentioning_requirements(graph, context, mention, pools, all_names, per_template, rng)
        questions.extend(_worded(context, describe, requirements, names, rng))
        if progress is not None:
            progress(done, steps)
    return questions


def _mentionable_fields(context: SkbContext, label: str) -> list[str]:
    """A type's text fields that are not names: what its nodes say about themselves."""
    node_type = context.schema.node_type(label)
    return [f for f in node_type.text_fields if f != node_type.name_field and f not in node_type.synonym_fields]


def _words(text: str) -> set[str]:
    return {word for word in _LETTERS.findall(text.lower()) if len(word) >= MIN_MENTIONED}


def _mentioning_requirements(
    graph: SkbGraph,
    context: SkbContext,
    template: Mentioning,
    pools: dict[str, list[str]],
    all_names: dict[str, dict[str, str]],
    wanted: int,
    rng: random.Random,
) -> list[Requirement]:
    """Anchors with 2..MAX_WALK targets along the step, one of which alone holds a word in its text (a word
    neither its name nor the anchor's has): that target is the answer, the word the question's."""
    step = template.step
    candidates = _anchor_candidates(pools, step.source, wanted, rng)
    walks = {
        anchor: targets
        for anchor, targets in graph.leg_answers((step,), candidates, MAX_WALK + 1).items()
        if 2 <= len(targets) <= MAX_WALK
    }
    fields = _mentionable_fields(context, step.target)
    texts = graph.field_texts(step.target, fields, sorted({t for targets in walks.values() for t in targets}))
    words = {target: _words(text) for target, text in texts.items()}
    # how many fetched texts hold a word: a rare one says what its text is about ("cochlear", not "present")
    spread: dict[str, int] = {}
    for held in words.values():
        for word in held:
            spread[word] = spread.get(word, 0) + 1
    found: list[Requirement] = []
    for anchor in candidates:
        targets = walks.get(anchor, [])
        if not targets:
            continue
        holders: dict[str, int] = {}
        for target in targets:
            for word in words.get(target, ()):
                holders[word] = holders.get(word, 0) + 1
        named = _words(all_names[step.source].get(anchor, ""))
        options = [
            (spread[word], target, word)
            for target in sorted(targets)
            for word in sorted(words.get(target, set()) - named - _words(all_names[step.target].get(target, "")))
            if holders[word] == 1
        ]
        if options:
            rarest = min(option[0] for option in options)
            _, target, word = rng.choice([option for option in options if option[0] == rarest])
            found.append(Requirement(template, (anchor,), (target,), word))
        if len(found) >= wanted:
            break
    return found


def _anchor_candidates(pools: dict[str, list[str]], label: str, wanted: int, rng: random.Random) -> list[str]:
    """Nodes of `label` with unique names, in a seeded random order, as many as a template may examine."""
    candidates = list(pools.get(label, []))
    rng.shuffle(candidates)
    return candidates[: wanted * _TRIES_PER_QUESTION]


def _superlative_requirements(
    graph: SkbGraph,
    template: Superlative,
    pools: dict[str, list[str]],
    wanted: int,
    max_answers: int,
    rng: random.Random,
) -> list[Requirement]:
    """Anchors with 2..`max_answers` targets holding the quantity and one target alone at its extreme."""
    candidates = _anchor_candidates(pools, template.step.source, wanted, rng)
    cap = max_answers + 1
    found: list[Requirement] = []
    for anchor, pairs in sorted(graph.leg_quantities(template.step, candidates, template.quantity, cap).items()):
        valued = [(node, number) for node, value in pairs if (number := quantity(value)) is not None]
        if len(pairs) >= cap or len(valued) < 2:
            continue
        valued.sort(key=lambda pair: pair[1], reverse=template.descending)
        if valued[0][1] == valued[1][1]:
            continue  # a tie has no one answer
        found.append(Requirement(template, (anchor,), (valued[0][0],)))
    rng.shuffle(found)
    return found[:wanted]


def _lookups(
    context: SkbContext,
    describe: _Describer,
    lookup: Lookup,
    names: dict[str, str],
    wanted: int,
    rng: random.Random,
) -> list[EvalQuery]:
    """Up to `wanted` nodes of the lookup's type, each worded by the first sentence of its own text or by a value
    of its record that no other node of the type holds."""
    descriptions = describe(lookup.label, sorted(names), names)
    holders: dict[str, int] = {}
    for description in descriptions.values():
        holders[description.text.lower()] = holders.get(description.text.lower(), 0) + 1
    # a field's value is unique by construction; a sentence is checked against the type's other sentences
    unique = sorted(node for node, d in descriptions.items() if d.field or holders[d.text.lower()] == 1)
    rng.shuffle(unique)
    questions = []
    for node in unique[:wanted]:
        description = descriptions[node]
        family = rng.choice(FAMILIES)
        if family in ANCHOR_NAMING:
            family = "which"
        key = lookup.name + "|" + node
        questions.append(
            EvalQuery(
                id="gen-" + hashlib.sha256(key.encode()).hexdigest()[:12],
                text=word_lookup(lookup, description.text, family, context.schema, rng, description.field),
                answer_ids=(node,),
                split=_split_of_key(key),
                template=lookup.name,
                hops=0,
                level=family,
                target_type=lookup.label,
            )
        )
    return questions


def _requirements(
    graph: SkbGraph,
    template: Template,
    pools: dict[str, list[str]],
    wanted: int,
    max_answers: int,
    rng: random.Random,
) -> list[Requirement]:
    first = template.legs[0]
    candidates = _anchor_candidates(pools, first[0].source, wanted, rng)
    if not candidates:
        return []
    two_legs = len(template.legs) == 2
    # a first anchor of a conjunction may have more answers than the question: the second anchor narrows them
    cap = 10 * max_answers if two_legs else max_answers + 1
    answers = graph.leg_answers(first, candidates, cap)
    found: list[Requirement] = []
    for anchor in candidates:
        mine = answers.get(anchor, [])
        if not mine or len(mine) >= cap:
            continue
        if not two_legs:
            found.append(Requirement(template, (anchor,), tuple(mine)))
        else:
            partner = _partner(graph, template, anchor, mine, pools, max_answers, rng)
            if partner is not None:
                found.append(partner)
        if len(found) >= wanted:
            break
    return found


def _partner(
    graph: SkbGraph,
    template: Template,
    anchor: str,
    answers: list[str],
    pools: dict[str, list[str]],
    max_answers: int,
    rng: random.Random,
) -> Requirement | None:
    first, second = template.legs[0][0], template.legs[1][0]
    allowed = set(pools.get(second.source, []))
    options = [
        (other, shared)
        for other, shared, total in graph.partners(first, second, answers, limit=2000)
        if other != anchor
        and other in allowed
        and 1 <= len(shared) <= max_answers
        and len(shared) < len(answers)
        and len(shared) < total
    ]
    if not options:
        return None
    other, shared = rng.choice(options)
    return Requirement(template, (anchor, other), tuple(sorted(shared)))


def _worded(
    context: SkbContext,
    describe: _Describer,
    requirements: list[Requirement],
    names: dict[str, dict[str, str]],
    rng: random.Random,
) -> list[EvalQuery]:
    if not requirements:
        return []
    types = {t.label: t for t in context.schema.node_types}
    template = requirements[0].template
    labels = [leg[0].source for leg in template.legs]
    descriptions: dict[str, Description] = {}
    for label in set(labels):
        ids = sorted({r.anchor_ids[i] for r in requirements for i, lab in enumerate(labels) if lab == label})
        descriptions.update(describe(label, ids, names[label]))
    taken = {name.lower() for by_id in names.values() for name in by_id.values()}  # what a misspelling must avoid
    worded: list[EvalQuery] = []
    for requirement in requirements:
        anchors = []
        for anchor_id, label in zip(requirement.anchor_ids, labels, strict=True):
            name = names[label][anchor_id]
            description = descriptions.get(anchor_id)
            type_word = rng.choice([label.lower(), *[a.lower() for a in types[label].aliases]])
            anchors.append(
                AnchorText(
                    name=name,
                    type_word=type_word,
                    passage=description.text if description else None,
                    passage_field=description.field if description else None,
                )
            )
        family = rng.choice(FAMILIES)
        if family == "described" and not all(a.passage for a in anchors):
            family = "which"
        if family == "misspelt":
            anchors, family = _misspelt(anchors, taken, rng)
        if family == "compound" and " " in anchors[0].name:  # "KCNQ2-related", not "Marfan syndrome-related"
            family = "which"
        if wording_form(template, family, context.schema) is None:  # every form of it would leave two readings
            family = "which"
        if isinstance(template, Superlative):
            text = word_superlative(template, anchors[0], family, context.schema, rng)
        elif isinstance(template, Mentioning):
            text = word_mentioning(template, anchors[0], requirement.word, family, context.schema, rng)
        else:
            text = word_question(template, anchors, family, context.schema, rng)
        if family == "aside":
            text = aside(_other_name(names, set(requirement.anchor_ids) | set(requirement.answers), rng), rng) + text
        key = template.name + "|" + "|".join(requirement.anchor_ids)
        worded.append(
            EvalQuery(
                id="gen-" + hashlib.sha256(key.encode()).hexdigest()[:12],
                text=text,
                answer_ids=requirement.answers,
                split=split_of(requirement),
                template=template.name,
                hops=template.hops,
                level=family,
                topic_ids=requirement.anchor_ids,
                target_type=template.target,
                anchors=tuple(
                    GoldAnchor(id=i, type=label, name=names[label][i])
                    for i, label in zip(requirement.anchor_ids, labels, strict=True)
                ),
            )
        )
    return worded


def _misspelt(anchors: list[AnchorText], taken: set[str], rng: random.Random) -> tuple[list[AnchorText], str]:
    """The anchors with one of their names misspelt (never into a name in `taken`, lower case), and the family:
    "which" when no name has a word long enough."""
    for i in rng.sample(range(len(anchors)), len(anchors)):
        slipped = misspelling(anchors[i].name, rng)
        if slipped is not None and slipped.lower() not in taken:
            changed = list(anchors)
            changed[i] = replace(anchors[i], misspelt=slipped)
            return changed, "misspelt"
    return anchors, "which"


def _other_name(names: dict[str, dict[str, str]], excluded: set[str], rng: random.Random) -> str:
    """The name of a node of any type that the question is not about."""
    label = rng.choice(sorted(label for label, by_id in names.items() if set(by_id) - excluded))
    return names[label][rng.choice(sorted(set(names[label]) - excluded))]


@dataclass(frozen=True)
class Description:
    """How a question describes a node without its name: a sentence of its text, or the value of `field`."""

    text: str
    field: str | None = None  # None: the first sentence of its first text field


class _Describer:
    """Descriptions of nodes for described anchors and lookups. The first sentence of a node's first text field
    when it is prose (`_passage`); else, for a type whose texts are records (a country's demonym, a currency's
    code), the value of one of its fields that no other node of the type holds, is short (at most
    MAX_VALUE_WORDS words), is neither a name, a synonym nor a quantity, and does not hold the name.
    Which such field a node is described by follows a hash of its id, so the choice is deterministic and draws
    nothing from the generator's random stream. Unique values are read once per (type, field)."""

    def __init__(self, graph: SkbGraph, context: SkbContext) -> None:
        self._graph = graph
        self._context = context
        self._unique: dict[tuple[str, str], dict[str, str]] = {}

    def __call__(self, label: str, ids: Sequence[str], names: dict[str, str]) -> dict[str, Description]:
        node_type = self._context.schema.node_type(label)
        texts = self._graph.texts(label, node_type.text_fields, ids)
        quantities = set(self._context.quantity_properties.get(label, ()))
        fields = [f for f in _mentionable_fields(self._context, label) if f not in quantities]
        found: dict[str, Description] = {}
        for node in ids:
            name = names.get(node)
            if name is None:
                continue
            passage = _passage(texts.get(node, ""), name)
            if passage is not None:
                found[node] = Description(passage)
                continue
            held = [(f, value) for f in fields if (value := self._values(label, f).get(node)) and _says(value, name)]
            if held:
                field, value = held[int(hashlib.sha256(node.encode()).hexdigest()[:8], 16) % len(held)]
                found[node] = Description(value, field)
        return found

    def _values(self, label: str, field: str) -> dict[str, str]:
        if (label, field) not in self._unique:
            self._unique[label, field] = self._graph.unique_values(label, field)
        return self._unique[label, field]


def _says(value: str, name: str) -> bool:
    """Whether a field's value describes a node without naming it: short, and not holding the name (an
    official name "Republic of Botswana" gives "Botswana" away; a code "KYO" for Kyoto does not)."""
    return len(value.split()) <= MAX_VALUE_WORDS and name.lower() not in value.lower()


def _passage(text: str, name: str) -> str | None:
    """The first sentence of a node's text, at most PASSAGE_WORDS words; None when it gives the name away or
    says too little to identify anything (under 5 words)."""
    sentence = text.split(". ")[0].strip().rstrip(".")
    words = sentence.split()
    if len(words) < 5 or name.lower() in sentence.lower():
        return None
    return " ".join(words[:PASSAGE_WORDS])


__all__ = ["FAMILIES", "Requirement", "SkbGraph", "generate_skb_questions", "split_of", "unique_names"]
