"""The loaded SKB's own names and synonyms as a phrase dictionary: exact mentions found by string matching.

Why: the embedding linker scores spans one by one, so an exact name competes with its parts on cosine noise
("Distal" and "Muscle weakness" both score 1.0, and win over "Distal muscle weakness" by 2e-5), a hyphen compound
hides the name inside it ("KCNQ2-related"), and a synonym is only as close as the encoder makes it. A dictionary
built from the SKB at index time finds every name and synonym the question writes, longest first, for any SKB.

Matching is on normalised token sequences (`phrases.phrase_tokens`: case folded, accents removed, hyphen and
slash compounds split, possessives dropped, simple plurals singular). An Aho-Corasick automaton (pyahocorasick)
finds all keys in one pass over the question.

Data-driven guards, no word lists of any SKB: a name that is a symbol (no lower-case letter: a gene symbol, an
acronym) matches a word typed in lower case only when that word is no ordinary word of the SKB's own names or
of its schema's type and relation words, nor follows a possessive ("my son" is no SON), and a one-word synonym
or key that is such an ordinary word never matches alone (it names too much: "Inheritance"; "lie" is no LIE); a
code or symbol never matches a word read through its plural ("lies").

Typos: a question word of 5+ letters that no name uses is read as the one vocabulary word (of the names) one
edit away (a letter dropped, added, changed, or two swapped), found through a deletion index as SymSpell does,
when exactly one such word is the most frequent; a match that needs such a correction (`corrected`) must span two
words or more, or one of 7+ letters, since a short word one edit from a name is too often another word. A word
typed as a symbol (capitals, digits: "PHDGH") is read only as a symbol of the SKB one edit away ("PHGDH"), and
then alone from 5 characters on: no ordinary word is written that way, and a symbol has no other words to carry it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import ahocorasick

from grasp_agent.graph_branch.function_words import FUNCTION_WORDS
from grasp_agent.graph_branch.phrases import phrase_key, phrase_tokens
from grasp_agent.graph_branch.procedure_calls import GraphProcedures, NodeId
from grasp_agent.graph_branch.relation_words import spaced_name
from grasp_agent.skb.schema import SkbSchema

# English possessive determiners: what follows one is a common noun, not a symbol typed in lower case
_POSSESSIVES = frozenset({"my", "your", "his", "her", "our", "their", "its"})


@dataclass(frozen=True)
class DictionaryEntry:
    node_id: NodeId
    label: str
    name: str  # the node's own name: what the name index holds a vector of
    from_synonym: bool = False
    from_key: bool = False  # a key property's value ("JPN", "jpn"): a synonym whose case says nothing of words


@dataclass(frozen=True)
class PhraseMatch:
    """A dictionary key found in the question: character offsets into it, and every node the key names."""

    start: int
    end: int
    text: str
    words: int
    entries: tuple[DictionaryEntry, ...]
    corrected: bool = False  # found only after correcting a misspelt word

    @property
    def labels(self) -> tuple[str, ...]:
        """The types the phrase names, those it is the name of before those it is a synonym of."""
        ordered = sorted(self.entries, key=lambda entry: entry.from_synonym)
        return tuple(dict.fromkeys(entry.label for entry in ordered))


MIN_NUMBER_KEY = 3  # digits of a key written as a number ("81" of "+81") that may match without its mark
MIN_CORRECTED = 5  # letters of a word before a typo in it is corrected
MIN_CORRECTED_ALONE = 7  # letters of a one-word corrected match


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def within_one_edit(a: str, b: str) -> bool:
    """Damerau-Levenshtein distance at most 1 (a swap of two neighbours counts as one edit). Pure."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        )
    shorter, longer = (a, b) if len(a) < len(b) else (b, a)
    return any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))


def _is_code(entry: DictionaryEntry) -> bool:
    """Whether the entry's surface is a code: a key property's value, or a node's own name that is a symbol."""
    return entry.from_key or (not entry.from_synonym and is_symbol(entry.name))


def is_symbol(name: str) -> bool:
    """A name without lower-case letters and with a letter: a gene symbol or acronym ("SCN1A", "WAS")."""
    return any(ch.isalpha() for ch in name) and not any(ch.islower() for ch in name)


class NameDictionary:
    """Every name and synonym of the loaded SKB, matched as whole token sequences."""

    def __init__(
        self, entries: Iterable[tuple[str, DictionaryEntry]], schema_words: frozenset[str] = frozenset()
    ) -> None:
        # words the schema itself uses (type words, relation names and phrases): a question writes them on
        # purpose, so one is never read as a misspelt name word ("contain" is not the city "Contai")
        self._schema_words = schema_words
        by_key: dict[str, list[DictionaryEntry]] = {}
        ordinary: set[str] = set()  # words the SKB's names write in lower case
        # a key that is a short number matches only written with its mark ("+81", not any "81" in the text)
        marks: dict[str, set[str]] = {}
        # how codes and symbols are written, in lower case: one matches only as written, never through the plural
        # rule of the keys ("lies" has the key "lie" of Liechtenstein's code LIE; "gnas" is GNAS as written)
        written_codes: dict[str, set[str]] = {}
        for surface, entry in entries:
            key = phrase_key(surface)
            if key:
                by_key.setdefault(key, []).append(entry)
                if _is_code(entry):
                    written_codes.setdefault(key, set()).add(" ".join(t[3].lower() for t in phrase_tokens(surface)))
                if entry.from_key and _short_number(key):
                    marks.setdefault(key, set()).add(_mark(surface))
                if not entry.from_key:  # lower-case codes ("jpn", "fr") are no words of the names
                    ordinary.update(written.lower() for _, _, _, written in phrase_tokens(surface) if written.islower())
        self._ordinary = frozenset(ordinary) | FUNCTION_WORDS
        self._marks = {key: frozenset(found) for key, found in marks.items()}
        self._written_codes = {key: frozenset(found) for key, found in written_codes.items()}
        self._entries = {key: tuple(dict.fromkeys(found)) for key, found in by_key.items()}
        # per type, the share of its nodes whose own name holds a word: how specific a word is of a type's names
        named: dict[str, dict[str, set[NodeId]]] = {}
        nodes: dict[str, set[NodeId]] = {}
        for found in self._entries.values():
            for entry in found:
                if entry.from_synonym or entry.from_key:
                    continue
                nodes.setdefault(entry.label, set()).add(entry.node_id)
                for word in phrase_key(entry.name).split(" "):
                    named.setdefault(entry.label, {}).setdefault(word, set()).add(entry.node_id)
        self._name_shares = {
            label: {word: len(ids) / len(nodes[label]) for word, ids in words.items()} for label, words in named.items()
        }
        # the names' vocabulary (word -> keys holding it) and its deletion index, for typos
        self._vocabulary: dict[str, int] = {}
        for key in self._entries:
            for word in set(key.split(" ")):
                self._vocabulary[word] = self._vocabulary.get(word, 0) + 1
        # one-word keys that are a symbol's own name ("phgdh"): what a word typed as a symbol may be a slip of
        self._symbol_words = frozenset(
            key for key, found in self._entries.items() if " " not in key and any(_is_code(e) for e in found)
        )
        self._deletion_index: dict[str, list[str]] = {}
        for word in self._vocabulary:
            if len(word) >= MIN_CORRECTED - 1 and (word.isalpha() or word in self._symbol_words):
                for variant in {word} | _deletions(word):
                    self._deletion_index.setdefault(variant, []).append(word)
        self._automaton = ahocorasick.Automaton()
        for key in self._entries:
            self._automaton.add_word(f" {key} ", key)
        if self._entries:
            self._automaton.make_automaton()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def vocabulary(self) -> frozenset[str]:
        """The normalised words of the SKB's names and synonyms."""
        return frozenset(self._vocabulary)

    def name_shares(self, label: str) -> Mapping[str, float]:
        """Word (normalised, `phrases.phrase_key`) -> the share of `label`'s nodes whose own name holds it."""
        return self._name_shares.get(label, {})

    def matches(self, text: str) -> list[PhraseMatch]:
        """Every key the text holds as whole words (overlapping ones too), after the guards in the module
        docstring; then those found only once misspelt words are corrected; in order of position."""
        if not self._entries:
            return []
        tokens = phrase_tokens(text)
        if not tokens:
            return []
        words = [token for token, *_ in tokens]
        found = self._matches(text, tokens, words, corrected=set())
        fixed = [self.correction(word, token[3]) or word for word, token in zip(words, tokens, strict=True)]
        changed = {index for index, (a, b) in enumerate(zip(words, fixed, strict=True)) if a != b}
        if changed:
            exact = {(match.start, match.end) for match in found}
            found += [
                match
                for match in self._matches(text, tokens, fixed, changed)
                if match.corrected and (match.start, match.end) not in exact
            ]
        return sorted(found, key=lambda match: (match.start, -match.end))

    def _matches(
        self, text: str, tokens: Sequence[tuple[str, int, int, str]], words: Sequence[str], corrected: set[int]
    ) -> list[PhraseMatch]:
        # One space-joined string of the normalised words; a word's start in it -> its index.
        starts: dict[int, int] = {}
        position = 1
        for index, word in enumerate(words):
            starts[position] = index
            position += len(word) + 1
        joined = " " + " ".join(words) + " "
        # the guards read a corrected word as it was meant
        written = [
            (word, token[1], token[2], word if index in corrected else token[3])
            for index, (word, token) in enumerate(zip(words, tokens, strict=True))
        ]
        found = []
        for end, key in self._automaton.iter(joined):
            first = starts[end - len(key)]  # the key sits between two spaces; its first word starts after one
            last = first + len(key.split(" ")) - 1
            fixed = bool(corrected.intersection(range(first, last + 1)))
            if (
                fixed
                and last == first
                and len(tokens[first][0]) < MIN_CORRECTED_ALONE
                and not is_symbol(tokens[first][3])
            ):
                continue
            start, stop = tokens[first][1], tokens[last][2]
            after_possessive = first > 0 and written[first - 1][3].lower() in _POSSESSIVES
            entries = self._admitted(key, written[first : last + 1], after_possessive)
            if key in self._marks and not any(mark and text[:start].endswith(mark) for mark in self._marks[key]):
                entries = tuple(entry for entry in entries if not entry.from_key)
            if entries:
                found.append(PhraseMatch(start, stop, text[start:stop], last - first + 1, entries, fixed))
        return found

    def correction(self, word: str, written: str | None = None) -> str | None:
        """The names' word one edit from `word` (a misspelling of it), when `word` is no word of the names, has
        5+ letters and one candidate is the most frequent; else None. When it was `written` as a symbol ("PHDGH"),
        only a symbol of the names ("phgdh"), and digits may be among its characters."""
        typed_symbol = written is not None and is_symbol(written)
        if (
            len(word) < MIN_CORRECTED
            or not (word.isalpha() or (typed_symbol and word.isalnum()))
            or word in self._vocabulary
            or word in FUNCTION_WORDS
            or word in self._schema_words
        ):
            return None
        candidates = {
            found
            for variant in {word} | _deletions(word)
            for found in self._deletion_index.get(variant, ())
            if within_one_edit(word, found) and (found in self._symbol_words if typed_symbol else found.isalpha())
        }
        if not candidates:
            return None
        ranked = sorted(candidates, key=lambda c: -self._vocabulary[c])
        if len(ranked) > 1 and self._vocabulary[ranked[0]] == self._vocabulary[ranked[1]]:
            return None  # two equally likely readings: none
        return ranked[0]

    def _admitted(
        self, key: str, written: Sequence[tuple[str, int, int, str]], after_possessive: bool = False
    ) -> tuple[DictionaryEntry, ...]:
        entries = self._entries[key]
        if len(written) != 1:
            return entries
        word = written[0][3]
        # a word after "my", "her", ... is a noun of the language ("my son"), whatever the SKB's names use; so is
        # a word the schema writes its relations and types with, unless in capitals ("Where does Lyon lie?")
        schema_word = written[0][0] in self._schema_words and not word.isupper()
        ordinary = word.lower() in self._ordinary or after_possessive or schema_word
        as_written = word.lower() in self._written_codes.get(key, frozenset())
        kept = []
        for entry in entries:
            if entry.from_synonym and ordinary:
                continue  # a one-word synonym that is an ordinary word names too much
            if is_symbol(entry.name) and not word.isupper() and ordinary and not any(ch.isdigit() for ch in word):
                continue  # "was" is not WAS
            if _is_code(entry) and not as_written:
                continue  # a code or symbol is written as itself: "lies" is no LIE (Liechtenstein's ISO code)
            kept.append(entry)
        return tuple(kept)

    def lookup(self, text: str, label: str | None = None) -> tuple[DictionaryEntry, ...]:
        """The nodes (of `label`, if given) whose name or synonym `text` is (misspelt words corrected when it is
        none as written), names first."""
        key = phrase_key(text)
        found = self._entries.get(key, ())
        if not found:
            found = self._entries.get(" ".join(self.correction(w) or w for w in key.split(" ")), ())
        chosen = [entry for entry in found if label is None or entry.label == label]
        return tuple(sorted(chosen, key=lambda entry: entry.from_synonym))

    def aliased(self, text: str) -> frozenset[NodeId]:
        """The nodes `text` refers to by another of their names (a synonym or a key: "Hellenic Republic",
        "Kenyan", "+254"), not by their own name."""
        found = self.lookup(text)
        named = {entry.node_id for entry in found if not entry.from_synonym}
        return frozenset(entry.node_id for entry in found if entry.node_id not in named)

    def canonical_name(self, text: str, label: str | None = None) -> str | None:
        """The node name that `text` writes (as a name or a synonym; names first), or None when it writes none:
        what to embed so that a synonym, a lower-case symbol or a plural links to its node exactly."""
        found = self.lookup(text, label)
        return found[0].name if found else None


def read_name_dictionary(
    procedures: GraphProcedures, schema: SkbSchema, keys: Mapping[str, Sequence[str]] | None = None
) -> NameDictionary:
    """The dictionary of the loaded SKB: every node's name, and its synonyms where the schema names
    `synonym_fields` for its type, and the values of its type's key properties (`keys`: codes such as "FRA",
    read from the values by `skb.property_kinds`), matched as synonyms. One read per label (about 2 s for the full
    HPO's 37k nodes, 20k synonyms)."""
    entries: list[tuple[str, DictionaryEntry]] = []
    keys = keys or {}
    for node_type in schema.node_types:
        label = node_type.label
        for node_id, name, synonyms in procedures.names_and_synonyms(label, node_type.synonym_fields):
            if name:
                entries.append((name, DictionaryEntry(node_id, label, name)))
                entries.extend((synonym, DictionaryEntry(node_id, label, name, True)) for synonym in synonyms)
        if keys.get(label):
            for node_id, name, values in procedures.names_and_synonyms(label, keys[label]):
                if name:
                    entries.extend(
                        (value, DictionaryEntry(node_id, label, name, True, True)) for value in key_values(values)
                    )
    return NameDictionary(entries, schema_words(schema))


def schema_words(schema: SkbSchema) -> frozenset[str]:
    """The normalised words of the schema's type labels and aliases, relation names, phrases and role nouns, each
    also with a final s added or taken off ("contains" / "contain", "nation" / "nations"). Pure."""
    texts = [spaced_name(t.label) for t in schema.node_types] + [a for t in schema.node_types for a in t.aliases]
    texts += [spaced_name(r.type) for r in schema.relation_types]
    texts += [p for r in schema.relation_types for p in (*r.phrases, *r.inverse_phrases)]
    texts += [n for r in schema.relation_types for n in (*r.source_nouns, *r.target_nouns)]
    words = {token for text in texts for token, *_ in phrase_tokens(text)}
    return frozenset(words | {w + "s" for w in words} | {w[:-1] for w in words if w.endswith("s")})


_LIST_SEPARATOR = re.compile(r"[,;]")
_MARK = re.compile(r"[^\w\s]+")


def key_values(values: Iterable[str]) -> list[str]:
    """The keys a key property's values hold: a value listing several ("Antiguan,Barbudan") gives each; a short
    number without its mark ("7", where "+7" marks a code) gives none. Pure."""
    out = []
    for value in values:
        for part in (part.strip() for part in _LIST_SEPARATOR.split(value)):
            key = phrase_key(part)
            if key and not (_short_number(key) and not _mark(part)):
                out.append(part)
    return out


def _short_number(key: str) -> bool:
    return key.isdigit() and len(key) < MIN_NUMBER_KEY


def _mark(surface: str) -> str:
    """The punctuation a key is written with before its first word ("+" of "+81")."""
    found = _MARK.match(surface.strip())
    return found.group() if found else ""


__all__ = [
    "DictionaryEntry",
    "NameDictionary",
    "PhraseMatch",
    "is_symbol",
    "key_values",
    "read_name_dictionary",
    "schema_words",
]
