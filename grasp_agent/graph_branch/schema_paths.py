"""Pure helpers the heuristic planner uses: which type a question asks for, and how to get there.

Everything here is a function of the question text and the SKB schema (with the edge counts
`grasp.schema()` reports); nothing touches the database.
"""

from __future__ import annotations

import functools
import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from grasp_agent.graph_branch.asked_slot import SlotKind, SlotWord, read_slot
from grasp_agent.graph_branch.relation_words import RelationWords, phrase_forms
from grasp_agent.graph_branch.type_words import plural, plural_type_words, singular_type_words, type_words
from grasp_agent.skb.schema import NodeType, SkbSchema

# "name" asks only as a verb ("Name the genes ..."); after a determiner it is a noun ("whose name contains X").
_WH = re.compile(
    r"\b(which|what|list|(?<!whose\s)(?<!the\s)(?<!its\s)(?<!their\s)(?<!a\s)name|find|identify|show|give)\b",
    re.IGNORECASE,
)
# Words that make a "lacks"/"absent" relation the better reading of a pair with several relations.
_NEGATION = re.compile(r"\b(lack|lacks|lacking|absent|absence|without|not|no|excluded|never)\b", re.IGNORECASE)
_NEGATIVE_PREFIXES = ("LACK", "ABSEN", "NEGATIV", "EXCLUD", "CONTRAINDICAT")


def is_negative_relation(relation: str) -> bool:
    """LACKS_PHENOTYPE, PHENOTYPE_ABSENT, CONTRAINDICATION, NOT_ASSOCIATED...: judged per word, because
    substrings mislead (phe-NOT-ype)."""
    return any(
        part in {"NOT", "NO", "NON"} or part.startswith(_NEGATIVE_PREFIXES) for part in relation.upper().split("_")
    )


@dataclass(frozen=True)
class SchemaHop:
    """One step of a meta-path: from `source` type along `relation` to `target` type; `outgoing` says whether the
    step walks the stored direction (True), against it (False) or either (None: the schema's shortest paths)."""

    source: str
    relation: str
    target: str
    outgoing: bool | None = None


def singular_type_word(words: str, schema: SkbSchema) -> str:
    """'conditions' -> 'condition' for the words naming a type (as `target_mention` finds them); other words as
    they are."""
    lowered = words.lower()
    for node_type in schema.node_types:
        for word in singular_type_words(node_type):
            if lowered == plural(word):
                return word
    return words


def _first_mention(
    question: str, node_type: NodeType, after: int = 0, unless_followed_by: re.Pattern[str] | None = None
) -> tuple[int, str] | None:
    """Position and text of the first word naming `node_type` at or after `after`, skipping words that
    `unless_followed_by` matches right after."""
    lowered = question.lower()
    found = [
        (m.start(), question[m.start() : m.end()])
        for w in type_words(node_type)
        for m in re.finditer(rf"\b{re.escape(w)}\b", lowered)
        if m.start() >= after and not (unless_followed_by and unless_followed_by.match(question, m.end()))
    ]
    return min(found, key=lambda hit: (hit[0], -len(hit[1]))) if found else None


# Where terse wording puts what it asks for: after the last arrow, colon, dash or sentence break ("X > subtype ->
# disease -> genes?", "Subtype of X: disease genes?", "X occurs in some illnesses. Their genes?").
_LAST_STEP = re.compile(r"(->|=>|\u2192|\s>\s|:|\s[-\u2013\u2014]\s|[.;!?]\s+(?=[A-Z]))")


def _type_word_at(question: str, schema: SkbSchema, after: int) -> tuple[int, str, str] | None:
    """(position, type, words) of the first type word at or after `after`."""
    found = [
        (hit[0], t.label, hit[1]) for t in schema.node_types if (hit := _first_mention(question, t, after)) is not None
    ]
    return min(found) if found else None


def _compound_head(
    question: str, schema: SkbSchema, hit: tuple[int, str, str], name_starts: frozenset[int] = frozenset()
) -> tuple[int, str, str]:
    """A type word directly followed by another names the last one: 'disease genes' are genes. Not when the
    first is a plural ('Which conditions *feature* X?': English compounds take a singular modifier) or a noun
    phrase follows the second right away ('Which disorder *features* infantile spasms?', '... features an X'): then
    the second is a verb."""
    while (following := _type_word_at(question, schema, hit[0] + len(hit[2]))) is not None and not question[
        hit[0] + len(hit[2]) : following[0]
    ].strip():
        if _is_plural_type_word(hit[2], schema) or _followed_by_object(question, following, name_starts):
            break
        hit = following
    return hit


def _is_plural_type_word(words: str, schema: SkbSchema) -> bool:
    """Whether `words` is the plural of a type word and not itself a singular one ('genes' can be an alias)."""
    return words.lower() in plural_type_words(schema)


# English determiners: a noun phrase starts with one, so a word right before one is no noun's head but a verb
# ("Which disorder *features* an abnormally small penis?").
_DETERMINER = re.compile(
    r"\s+(a|an|the|any|some|each|every|no|both|all|this|these|those|its|their|his|her|my|our|your)\b", re.IGNORECASE
)


def _followed_by_object(question: str, hit: tuple[int, str, str], name_starts: frozenset[int]) -> bool:
    """Whether a noun phrase follows the type word right away: a determiner or a name."""
    return bool(_DETERMINER.match(question, hit[0] + len(hit[2]))) or _followed_by_name(question, hit, name_starts)


def _followed_by_name(question: str, hit: tuple[int, str, str], name_starts: frozenset[int]) -> bool:
    """Whether one of the names starts right after the type word (only space between)."""
    end = hit[0] + len(hit[2])
    start = min((s for s in name_starts if s >= end), default=None)
    return start is not None and not question[end:start].strip()


def _name_starts(question: str, names: Sequence[str]) -> frozenset[int]:
    """Where each name's first occurrence starts (the spans `_masked` blanks)."""
    lowered = question.lower()
    return frozenset(found for name in names if name and (found := lowered.find(name.lower())) >= 0)


def _reading_starts(question: str, wh: re.Match[str] | None) -> list[int]:
    """Where to look for the asked type: after the wh-word, else after terse wording's last step, then anywhere."""
    if wh:
        return [wh.end(), 0]
    steps = list(_LAST_STEP.finditer(question))
    return [steps[-1].end(), 0] if steps else [0]


# A wh-word right after a clause ("Among the subtypes of X, which mentions Y?") is a pronoun: a verb follows it.
_CLAUSE_BEFORE_WH = re.compile(r"[,;:]\s*\w+\s*$")
_CLAUSE_START = re.compile(r"(?:^|[.;!?]\s)(?!.*[.;!?]\s)", re.DOTALL)


def _picks_from_clause(question: str, wh: re.Match[str], schema: SkbSchema) -> bool:
    """Whether the wh-word right after a clause picks from a set that clause names by a type or hierarchy word
    ("Among the subtypes of X, which mentions Y?", "Of these diseases, which has Y?"): it is a pronoun, and a verb
    follows it. After a clause that names no set ("Apart from X, which dx share its gene?") it asks by the noun
    after it. `question` has its names masked."""
    if not _CLAUSE_BEFORE_WH.search(question[: wh.end()]):
        return False
    clause = question[: wh.start()]
    clause = clause[_CLAUSE_START.search(clause).end() :]  # type: ignore[union-attr]  # matches at 0 at least
    return bool(_DOWN.search(clause) or _UP.search(clause) or named_types(clause, schema))


_COLON_STEP = re.compile(r"\s*:\s*$")


def _hierarchy_before_colon(question: str, after: int) -> bool:
    """Whether terse wording's last step (ending at `after`) is a colon right after a hierarchy word ("X
    subtype: W"): the words before the colon name what is asked, and the word after it is a condition on them.
    An arrow goes on walking ("X > subtype -> dx": dx is asked)."""
    colon = _COLON_STEP.search(question, 0, after)
    if colon is None:
        return False
    head = question[: colon.start()].rstrip()
    return any(m.end() == len(head) for pattern in (_DOWN, _UP) for m in pattern.finditer(head))


def _slot_word(
    question: str, written: str, schema: SkbSchema, starts: list[int], wh: re.Match[str] | None
) -> SlotWord | None:
    """The shortened or unread word in the asked slot (`asked_slot`): after the wh-word or last step, or at the
    start of a question that opens with a determiner ("Other dx sharing ..."); past a masked name only when the
    word shortens a type word ("Which PAFAH1B1 d/o feature ...": the name modifies it; an unread word there may be
    the name's own noun, "Which PAFAH1B1 variants ...")."""
    after = starts[0]
    slot = read_slot(question, schema, after, led=len(starts) == 1)
    if slot is None:
        return None
    if written[after : slot.start] != question[after : slot.start] and slot.kind is not SlotKind.SHORTENED:
        return None
    if slot.kind is SlotKind.UNREAD and wh is None and _hierarchy_before_colon(question, after):
        return None  # "X subtype: pressure": the words before the step ask; the noun after it is what they hold
    if slot.kind is SlotKind.UNREAD and (
        _DOWN.match(question, slot.start)
        or _UP.match(question, slot.start)
        or (wh is not None and _picks_from_clause(question, wh, schema))
    ):
        # the hierarchy's own words ("which forms of X"), which the hierarchy cues read; or a verb after a
        # pronoun ("Among the subtypes of X, which mentions Y?")
        return None
    return slot


def asked_slot_word(question: str, schema: SkbSchema, names: Sequence[str] = ()) -> SlotWord | None:
    """The shortened type word or unread noun in the question's asked slot, if any (`asked_slot`)."""
    masked = _masked_phrases(_masked(question, names), schema)
    wh = _WH.search(masked)
    return _slot_word(masked, question, schema, _reading_starts(masked, wh), wh)


def unread_asked_noun(question: str, schema: SkbSchema, names: Sequence[str] = ()) -> bool:
    """Whether the asked slot holds a noun the schema cannot read ("which dx ..."): the question names what it
    asks, so no hierarchy cue or type word elsewhere does."""
    slot = asked_slot_word(question, schema, names)
    return slot is not None and slot.kind is SlotKind.UNREAD


def target_mention(question: str, schema: SkbSchema, names: Sequence[str] = ()) -> tuple[str, str] | None:
    """(type, the words naming it) a question asks for: the first type word after a wh-word ('Which
    diseases ...'); without one, the first after the last arrow, colon or sentence break of terse wording
    ('X -> genes?'), else the first at all; a word in either slot that shortens a type word names that type
    ('which conds ...'), and a noun there the schema cannot read leaves it unknown ('which dx are linked to the
    gene X?': no type word is asked; `asked_slot`); a compound names its last word ('disease genes'); None when no type
    word. Type words inside `names` (the anchor mentions: 'Charcot-Marie-Tooth *disease*') do not count, nor
    those inside a phrase of the schema's relations ('What *has phenotype* X?': HAS_PHENOTYPE's own words)."""
    name_starts = _name_starts(question, names)
    written = question  # the masks keep every offset; a stranded "of" is judged with the names in place
    question = _masked_phrases(_masked(question, names), schema)
    wh = _WH.search(question)
    starts = _reading_starts(question, wh)
    slot = _slot_word(question, written, schema, starts, wh)
    if slot is not None:
        # "which conds ...", "-> d/o?": the type word, written short; "which dx ...": the question names its type
        # in words this schema lacks
        return (slot.label, slot.token) if slot.label is not None else None
    for after in starts:
        hit = _type_word_at(question, schema, after)
        while hit is not None and (
            (wh is None and _labels_name(question, hit, name_starts, schema)) or _stranded_of(written, hit)
        ):
            hit = _type_word_at(question, schema, hit[0] + len(hit[2]))
        if hit is not None:
            _, label, words = _compound_head(question, schema, hit, name_starts)
            return label, words
    return None


# "What is Ottawa the capital of?": the type word ends the question before a stranded "of", so the question asks
# for what it is the capital of, the other end of the relation the word names (English word order, no SKB term)
_STRANDED_OF = re.compile(r"\s+of\s*[?.!]*\s*$", re.IGNORECASE)


def _stranded_of(question: str, hit: tuple[int, str, str]) -> bool:
    """Whether only a final "of" follows the type word: it names a relation whose other end is asked for."""
    return bool(_STRANDED_OF.match(question, hit[0] + len(hit[2])))


def _labels_name(question: str, hit: tuple[int, str, str], name_starts: frozenset[int], schema: SkbSchema) -> bool:
    """Whether a singular type word is the label of the name right after it ("X: gene TP63, feature Y"): terse
    wording lists what it knows that way, and asks by the type word that heads the list."""
    return _followed_by_name(question, hit, name_starts) and not _is_plural_type_word(hit[2], schema)


# A type word that introduces a description names the described entity, not a type on the way: "the phenotype
# defined as ...", "a feature classified directly under ...".
_INTRODUCES = re.compile(
    r"\s+(\w+\s+)?(defined|described|characteri[sz]ed|called|termed|known|referred|classified|categori[sz]ed|"
    r"listed|filed)\b|\s*[\"\u201c\u00ab]",
    re.IGNORECASE,
)


def _mentions(
    question: str, node_type: NodeType, unless_followed_by: re.Pattern[str] | None = None
) -> list[tuple[int, str]]:
    """Every word naming `node_type`, left to right, each starting after the last one ends (`_first_mention`)."""
    hits: list[tuple[int, str]] = []
    after = 0
    while (hit := _first_mention(question, node_type, after, unless_followed_by)) is not None:
        hits.append(hit)
        after = hit[0] + len(hit[1])
    return hits


def type_word_count(question: str, label: str, schema: SkbSchema, names: Sequence[str] = ()) -> int:
    """How many times the question names `label` by a type word outside `names` (overlapping words once)."""
    node_type = next((t for t in schema.node_types if t.label == label), None)
    return len(_mentions(_masked(question, names), node_type)) if node_type is not None else 0


def named_types(question: str, schema: SkbSchema) -> list[str]:
    """The types a question names by a type word ("... sharing one of its *genes*"), in order of first mention;
    a word that introduces a description ("the phenotype defined as") does not count, nor one inside a longer type
    word of another type ("states" in "sovereign states")."""
    hits = [
        (start, start + len(words), node_type.label)
        for node_type in schema.node_types
        for start, words in _mentions(question, node_type, _INTRODUCES)
    ]
    kept = [
        (start, label)
        for start, end, label in hits
        if not any(s <= start and end <= e and (e - s) > (end - start) for s, e, _ in hits)
    ]
    return list(dict.fromkeys(label for _, label in sorted(kept)))


def sides_of_type_word(
    question: str, label: str, schema: SkbSchema, names: Sequence[str], anchor: str
) -> tuple[str, str] | None:
    """The question cut at the first word naming `label` (outside `names`, not one introducing a description):
    (the part holding the `anchor` mention, the other part). Each leg of a route through that type reads the words
    on its own side: in "which diseases lack a phenotype that X has" the leg into the diseases reads "lack", the
    leg from X reads "has". None when no such word, or the anchor is not in the question."""
    node_type = next((t for t in schema.node_types if t.label == label), None)
    found = question.lower().find(anchor.lower()) if anchor else -1
    if node_type is None or found < 0:
        return None
    hit = _first_mention(_masked(question, names), node_type, unless_followed_by=_INTRODUCES)
    if hit is None:
        return None
    start, end = hit[0], hit[0] + len(hit[1])
    before, after = question[:start], question[end:]
    return (after, before) if found >= end else (before, after)


def _masked(question: str, names: Sequence[str]) -> str:
    """The question with each name's first occurrence blanked out (same length, so positions hold)."""
    for name in names:
        found = question.lower().find(name.lower()) if name else -1
        if found >= 0:
            question = question[:found] + " " * len(name) + question[found + len(name) :]
    return question


@functools.lru_cache(maxsize=8)  # read for every question; a schema is frozen
def _typed_phrases(schema: SkbSchema) -> tuple[str, ...]:
    """The relation phrases of the schema (singular and plural forms) that hold a word naming another type than
    their subject's, longest first: "has phenotype" (a disease has it), "uses the currency"; not "is a feature of"
    (its subject is the feature, so the word does name the asked type)."""
    labels = {word.lower(): node_type.label for node_type in schema.node_types for word in type_words(node_type)}
    phrases = set()
    for relation in schema.relation_types:
        sources = {pair.source for pair in relation.pairs}
        targets = {pair.target for pair in relation.pairs}
        for subjects, said in ((sources, relation.phrases), (targets, relation.inverse_phrases)):
            for form in (form for phrase in said for form in phrase_forms(phrase)):
                named = {
                    labels[" ".join(form[i:j])]
                    for i in range(len(form))
                    for j in range(i + 1, len(form) + 1)
                    if " ".join(form[i:j]) in labels
                }
                if named - subjects:
                    phrases.add(" ".join(form))
    return tuple(sorted(phrases, key=lambda phrase: (-len(phrase), phrase)))


def _masked_phrases(question: str, schema: SkbSchema) -> str:
    """The question with every whole-word occurrence of a typed relation phrase blanked out (positions hold)."""
    for phrase in _typed_phrases(schema):
        question = re.sub(
            rf"(?<![\w-]){re.escape(phrase)}(?![\w-])",
            lambda match: " " * len(match.group()),
            question,
            flags=re.IGNORECASE,
        )
    return question


def target_type(question: str, schema: SkbSchema) -> str | None:
    """The type a question asks for (see `target_mention`)."""
    found = target_mention(question, schema)
    return found[0] if found else None


def negates(text: str) -> bool:
    """Whether `text` holds a word that makes a negative relation ("lacks", "absent", "without") the reading."""
    return _NEGATION.search(text) is not None


def _choose_relation(options: dict[str, int], question: str, relation_words: RelationWords | None = None) -> str:
    """Among relations joining the same two types: the negative one when the question negates; else the ones
    whose schema words the question uses most (`relation_words`), the largest of them."""
    negative = [rel for rel in options if is_negative_relation(rel)]
    if negative and negates(question):
        return max(negative, key=lambda rel: options[rel])
    positive = [rel for rel in options if rel not in negative] or list(options)
    if relation_words is not None and len(positive) > 1:
        positive = relation_words.meant(positive, question)
    return max(positive, key=lambda rel: (options[rel], rel))


def shortest_meta_path(
    source: str,
    target: str,
    counts: dict[tuple[str, str, str], int],
    question: str = "",
    relation_words: RelationWords | None = None,
) -> list[SchemaHop] | None:
    """Fewest hops from `source` type to `target` type over the schema, hops undirected.

    Between the same two types the question picks the relation (see `_choose_relation`). For source == target
    a self-relation (e.g. IS_A) is one hop when one exists; otherwise the empty path. None when unreachable.
    """
    neighbours: dict[str, dict[str, dict[str, int]]] = {}  # type -> other type -> relation -> count
    for (a, rel, b), count in counts.items():
        neighbours.setdefault(a, {}).setdefault(b, {})[rel] = count
        neighbours.setdefault(b, {}).setdefault(a, {})[rel] = count
    if source == target:
        loops = neighbours.get(source, {}).get(source)
        return [SchemaHop(source, _choose_relation(loops, question, relation_words), source)] if loops else []
    previous: dict[str, str] = {source: source}
    queue = deque([source])
    while queue:
        current = queue.popleft()
        for other in sorted(neighbours.get(current, {})):
            if other not in previous:
                previous[other] = current
                queue.append(other)
    if target not in previous:
        return None
    chain = [target]
    while chain[-1] != source:
        chain.append(previous[chain[-1]])
    chain.reverse()
    return [SchemaHop(a, _choose_relation(neighbours[a][b], question, relation_words), b) for a, b in pairwise(chain)]


# Words just before a mention that ask for its hierarchy: "subtypes of X", "more specific forms of X", "a kind of
# X" go down to the children; "parent terms of X", "broader than X" go up.
_DOWN = re.compile(
    r"\b(sub-?types?|sub-?class(es)?|sub-?categor(y|ies)|more specific|specific (forms?|types?|kinds?)|"
    r"narrower|descendants?|child terms?|children|forms? of|kinds? of|types? of|varieties of|"
    r"variants? of|speciali[sz]ations? of|refinements? of|"
    # a place in the hierarchy: "classified directly under X", "grouped beneath X", "immediately below X"
    r"(classified|categori[sz]ed|grouped|listed|filed|placed|nested|falls?|falling|sits?|sitting) "
    r"((directly|immediately|right) )?(under|beneath|below)|(directly|immediately) (under|beneath|below))\b",
    re.IGNORECASE,
)
_UP = re.compile(
    r"\b(parent( terms?)?|parents|broader|more general|ancestors?|super-?class(es)?|super-?types?|"
    r"generali[sz]ations?)\b",
    re.IGNORECASE,
)


def hierarchy_cue(lead: str) -> str | None:
    """ "down", "up" or None for the words that lead up to a mention."""
    down, up = _DOWN.search(lead), _UP.search(lead)
    if down and up:  # the nearer one wins
        return "down" if down.end() > up.end() else "up"
    return "down" if down else "up" if up else None


# The same asked of the words right after a mention, in terse or possessive wording: "X subtypes",
# "X > subtype -> diseases", "X's child terms", "X (parent term)".
_TRAILING_LEAD = r"^(s |has |have |and its |with its )?"  # "X's subtypes", "X has child terms"
_TRAILING_DOWN = re.compile(
    _TRAILING_LEAD
    + r"(sub-?types?|sub-?class(es)?|child terms?|children|descendants?|narrower terms?|more specific)\b",
    re.IGNORECASE,
)
_TRAILING_UP = re.compile(
    _TRAILING_LEAD + r"(parent( terms?)?|parents|ancestors?|broader terms?|super-?types?)\b", re.IGNORECASE
)


def mention_hierarchy_cue(lead: str, trail: str = "") -> str | None:
    """The hierarchy a mention's own words ask for: those before it ("subtypes of X"), else those starting right
    after it ("X subtypes"); `trail` is the words after it, punctuation dropped."""
    cue = hierarchy_cue(lead)
    if cue is not None:
        return cue
    return "down" if _TRAILING_DOWN.search(trail) else "up" if _TRAILING_UP.search(trail) else None


def hierarchy_cue_phrases(lead: str, trail: str = "") -> list[str]:
    """The words of `lead` and `trail` that ask for a mention's hierarchy (`mention_hierarchy_cue`): "more
    specific", "kind of", "child terms": what a hierarchy hop says, no words to rescore its targets by."""
    phrases = [m.group() for pattern in (_DOWN, _UP) for m in pattern.finditer(lead)]
    phrases += [m.group().strip() for pattern in (_TRAILING_DOWN, _TRAILING_UP) if (m := pattern.search(trail))]
    return [phrase for phrase in phrases if phrase]


def stored_child_to_parent(relation: str) -> bool | None:
    """Whether a self-relation is stored child -> parent (IS_A, SUBCLASS_OF, PART_OF...), parent -> child
    (HAS_SUBTYPE, HAS_CHILD...) or cannot be told from its name (None)."""
    name = relation.upper()
    if name.startswith("HAS_") or name in ("PARENT_OF", "NARROWER"):  # before "_OF": PARENT_OF runs downwards
        return False
    if name == "IS_A" or name.endswith("_OF") or name.startswith("IS_") or name == "BROADER":
        return True
    return None


def hierarchy_step(label: str, counts: dict[tuple[str, str, str], int], cue: str) -> SchemaHop | None:
    """One hop down (cue "down") or up (cue "up") `label`'s largest self-relation, directed when its naming
    says how it is stored; None when the type has no self-relation."""
    loops = {rel: count for (a, rel, b), count in counts.items() if a == b == label}
    if not loops:
        return None
    relation = max(loops, key=lambda rel: (loops[rel], rel))
    child_to_parent = stored_child_to_parent(relation)
    if child_to_parent is None:
        return SchemaHop(label, relation, label)
    upward = cue == "up"
    return SchemaHop(label, relation, label, upward == child_to_parent)


def relevance_text(question: str, removed: list[str]) -> str:
    """The question minus the anchor mentions (case-insensitive), tidied: what the hops cannot express."""
    text = question
    for mention in sorted(removed, key=len, reverse=True):
        text = re.sub(re.escape(mention), " ", text, flags=re.IGNORECASE)
    text = re.sub(r"\s+", " ", text)
    return re.sub(r"\s+([,.;:?!])", r"\1", text).strip(" ,.;:")
