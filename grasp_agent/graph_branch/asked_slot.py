"""The word where a question puts its asked type ("which conds ...", "what d/o ...", "other dx?"), read against
the schema's own words.

People in a hurry shorten the word for what they ask. The only vocabulary consulted is the schema's words for each
type (its label as words and its aliases, singular): a shortening is the start of one of them, three letters or
more, a plural "s" allowed ("conds": condition), or a first letter and later letters around a slash ("d/o":
disorder). A shortening is read only in the slot, right after a wh-word or terse wording's last arrow or colon
(`target_mention` says where), so an ordinary word that begins like a type word ("count", "find") is not taken
for one elsewhere; nor is an English function word ("are" could start "area"), nor a shortening two types could
own.

A slot word that is none of these, no word of the schema's relations, and heads no type word in the next few
words ("which dx are linked to the gene X?", not "which rare disorders ...") is a noun the schema cannot read: the
question names what it asks, only not in words this SKB knows, so a type word further on ("the gene X") is a
station or an anchor's label, not the asked type.
"""

from __future__ import annotations

import enum
import functools
import re
from dataclasses import dataclass

from grasp_agent.graph_branch.function_words import FUNCTION_WORDS
from grasp_agent.graph_branch.relation_words import spaced_name
from grasp_agent.graph_branch.type_words import plural, singular_type_words, type_words
from grasp_agent.skb.schema import SkbSchema

MIN_STEM_LETTERS = 3
# Words a slot may hold before the type word ("which other conds", "list all d/o"): English, no SKB term.
_LEADING = frozenset({"other", "the", "all", "any", "some", "possible", "likely"})
# Pronouns that are the asked noun themselves ("which one says X?", "which ones have X?"): nothing is unread.
_PRONOUNS = frozenset({"one", "ones"})
# How far past an unread slot word a type word still makes it a modifier ("which rare autosomal disorders").
MODIFIER_WORDS = 3
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9./'-]*")
_SLASHED = re.compile(r"([a-z]+)/([a-z]+)")


class SlotKind(enum.Enum):
    SHORTENED = "shortened"  # a type word written short: `label` is its type
    UNREAD = "unread"  # a noun naming the asked type in words the schema does not hold


@dataclass(frozen=True)
class SlotWord:
    kind: SlotKind
    start: int
    token: str
    label: str | None = None


@functools.lru_cache(maxsize=8)  # read for every question; a schema is frozen
def _singular_words(schema: SkbSchema) -> tuple[tuple[str, str], ...]:
    """(one-word type word, its label) for every type: its label as words and its aliases, lower-case."""
    words = [
        (word, node_type.label)
        for node_type in schema.node_types
        for phrase in singular_type_words(node_type)
        for word in phrase.split()
    ]
    return tuple(dict.fromkeys(words))


@functools.lru_cache(maxsize=8)
def _relation_words(schema: SkbSchema) -> frozenset[str]:
    """Every word the schema says its relations with (names, phrases, role nouns and their plurals), lower-case."""
    words: set[str] = set()
    for relation in schema.relation_types:
        nouns = (*relation.source_nouns, *relation.target_nouns)
        for phrase in (
            spaced_name(relation.type),
            *relation.phrases,
            *relation.inverse_phrases,
            *nouns,
            *(plural(noun) for noun in nouns),
        ):
            words.update(phrase.lower().split())
    return frozenset(words)


@functools.lru_cache(maxsize=8)
def _all_type_words(schema: SkbSchema) -> frozenset[str]:
    """Every word naming a type as `target_mention` reads them (plurals included), and each of their words."""
    phrases = {phrase for node_type in schema.node_types for phrase in type_words(node_type)}
    return frozenset(phrases | {word for phrase in phrases for word in phrase.split()})


def _is_type_word(lowered: str, schema: SkbSchema) -> bool:
    return lowered in _all_type_words(schema)


def _is_subsequence(letters: str, word: str) -> bool:
    rest = iter(word)
    return all(letter in rest for letter in letters)


def _owners(token: str, schema: SkbSchema) -> set[str]:
    lowered = token.lower().rstrip(".")
    if _is_type_word(lowered, schema):
        return set()  # a whole type word ("gene" beside the alias "genes") is read as itself, not as a start
    slashed = _SLASHED.fullmatch(lowered)
    owners: set[str] = set()
    for word, label in _singular_words(schema):
        if slashed is not None:
            head, tail = slashed.groups()
            if word.startswith(head) and len(word) > len(head) and _is_subsequence(tail, word[len(head) :]):
                owners.add(label)
            continue
        for stem in (lowered, lowered[:-1] if lowered.endswith("s") else None):
            if stem and MIN_STEM_LETTERS <= len(stem) < len(word) and stem.isalpha() and word.startswith(stem):
                owners.add(label)
    return owners


def abbreviated_type(token: str, schema: SkbSchema) -> str | None:
    """The type whose schema word `token` shortens, when exactly one type's words fit; None otherwise (pure)."""
    owners = _owners(token, schema)
    return owners.pop() if len(owners) == 1 else None


def read_slot(question: str, schema: SkbSchema, after: int, *, led: bool = False) -> SlotWord | None:
    """The word starting the slot at `after` (past a leading "other", "all", ...) when it is a shortened type
    word or an unread noun; None when it is a type word, a function word, a word of the schema's relations or no
    word at all (a masked name). The modifiers of a type word after them are passed over ("which rare d/o").
    `led`: only a word after a leading one counts (at the start of a question the first word may be a verb,
    "Count ...", but "Other dx" is a noun)."""
    position = after
    while (match := _TOKEN.match(question, _skip_space(question, position))) is not None:
        token = match.group(0).rstrip(".")
        lowered = token.lower()
        if lowered in _LEADING:
            position, led = match.end(), False
            continue
        if led or lowered in _PRONOUNS or lowered.endswith(("'s", "s'")):
            return None  # a pronoun, or a possessive ("which one's definition ..."), heads no noun to read
        if lowered in FUNCTION_WORDS or _is_type_word(lowered, schema):
            return None
        label = abbreviated_type(token, schema)
        if label is not None:
            return SlotWord(SlotKind.SHORTENED, match.start(), token, label)
        if lowered in _relation_words(schema):
            return None
        if _modifies_a_type_word(question, schema, match.end()):
            # "which nerves d/o ...": the type word the modifier heads is the slot's, written short or not
            position, led = match.end(), False
            continue
        return SlotWord(SlotKind.UNREAD, match.start(), token)
    return None


def _modifies_a_type_word(question: str, schema: SkbSchema, position: int) -> bool:
    """Whether a type word (or a shortened one) follows within a few words, before any function word."""
    for _ in range(MODIFIER_WORDS):
        match = _TOKEN.match(question, _skip_space(question, position))
        if match is None:
            return False
        lowered = match.group(0).rstrip(".").lower()
        if lowered in FUNCTION_WORDS:
            return False
        if _is_type_word(lowered, schema) or abbreviated_type(lowered, schema) is not None:
            return True
        position = match.end()
    return False


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position
