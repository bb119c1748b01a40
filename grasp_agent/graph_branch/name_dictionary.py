"""The loaded SKB's own names and synonyms as a phrase dictionary: exact mentions found by string matching.

Why: the embedding linker scores spans one by one, so an exact name competes with its parts on cosine noise
("Distal" and "Muscle weakness" both score 1.0, and win over "Distal muscle weakness" by 2e-5), a hyphen compound
hides the name inside it ("KCNQ2-related"), and a synonym is only as close as the encoder makes it. A dictionary
built from the SKB at index time finds every name and synonym the question writes, longest first, for any SKB.

Matching is on normalised token sequences (`phrases.phrase_tokens`: case folded, accents removed, hyphen and
slash compounds split, possessives dropped, simple plurals singular). An Aho-Corasick automaton (pyahocorasick)
finds all keys in one pass over the question.

Data-driven guards, no word lists of any SKB: a name that is a symbol (no lower-case letter: a gene symbol, an
acronym) matches a word typed in lower case only when that word is no ordinary word of the SKB's own names, and a
one-word synonym that is such an ordinary word never matches alone (it names too much: "Inheritance").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import ahocorasick

from grasp_agent.graph_branch.phrases import phrase_key, phrase_tokens
from grasp_agent.graph_branch.procedure_calls import GraphProcedures, NodeId
from grasp_agent.graph_branch.span_mentions import FUNCTION_WORDS
from grasp_agent.skb.schema import SkbSchema


@dataclass(frozen=True)
class DictionaryEntry:
    node_id: NodeId
    label: str
    name: str  # the node's own name: what the name index holds a vector of
    from_synonym: bool = False


@dataclass(frozen=True)
class PhraseMatch:
    """A dictionary key found in the question: character offsets into it, and every node the key names."""

    start: int
    end: int
    text: str
    words: int
    entries: tuple[DictionaryEntry, ...]

    @property
    def labels(self) -> tuple[str, ...]:
        """The types the phrase names, those it is the name of before those it is a synonym of."""
        ordered = sorted(self.entries, key=lambda entry: entry.from_synonym)
        return tuple(dict.fromkeys(entry.label for entry in ordered))


def _is_symbol(name: str) -> bool:
    """A name without lower-case letters and with a letter: a gene symbol or acronym ("SCN1A", "WAS")."""
    return any(ch.isalpha() for ch in name) and not any(ch.islower() for ch in name)


class NameDictionary:
    """Every name and synonym of the loaded SKB, matched as whole token sequences."""

    def __init__(self, entries: Iterable[tuple[str, DictionaryEntry]]) -> None:
        by_key: dict[str, list[DictionaryEntry]] = {}
        ordinary: set[str] = set()  # words the SKB's names write in lower case
        for surface, entry in entries:
            key = phrase_key(surface)
            if key:
                by_key.setdefault(key, []).append(entry)
                ordinary.update(written.lower() for _, _, _, written in phrase_tokens(surface) if written.islower())
        self._ordinary = frozenset(ordinary) | FUNCTION_WORDS
        self._entries = {key: tuple(dict.fromkeys(found)) for key, found in by_key.items()}
        self._automaton = ahocorasick.Automaton()
        for key in self._entries:
            self._automaton.add_word(f" {key} ", key)
        if self._entries:
            self._automaton.make_automaton()

    def __len__(self) -> int:
        return len(self._entries)

    def matches(self, text: str) -> list[PhraseMatch]:
        """Every key the text holds as whole words (overlapping ones too), after the guards in the module
        docstring; in order of position."""
        if not self._entries:
            return []
        tokens = phrase_tokens(text)
        if not tokens:
            return []
        # One space-joined string of the normalised tokens; a token's start in it -> its index.
        starts: dict[int, int] = {}
        pieces, position = [], 1
        for index, (token, *_) in enumerate(tokens):
            starts[position] = index
            pieces.append(token)
            position += len(token) + 1
        joined = " " + " ".join(pieces) + " "
        found = []
        for end, key in self._automaton.iter(joined):
            first = starts[end - len(key)]  # the key sits between two spaces; its first token starts after one
            last = first + len(key.split(" ")) - 1
            entries = self._admitted(key, tokens[first : last + 1])
            if entries:
                start, stop = tokens[first][1], tokens[last][2]
                found.append(PhraseMatch(start, stop, text[start:stop], last - first + 1, entries))
        return sorted(found, key=lambda match: (match.start, -match.end))

    def _admitted(self, key: str, written: Sequence[tuple[str, int, int, str]]) -> tuple[DictionaryEntry, ...]:
        entries = self._entries[key]
        if len(written) != 1:
            return entries
        word = written[0][3]
        ordinary = word.lower() in self._ordinary
        kept = []
        for entry in entries:
            if entry.from_synonym and ordinary:
                continue  # a one-word synonym that is an ordinary word names too much
            if _is_symbol(entry.name) and not word.isupper() and ordinary and not any(ch.isdigit() for ch in word):
                continue  # "was" is not WAS
            kept.append(entry)
        return tuple(kept)

    def lookup(self, text: str, label: str | None = None) -> tuple[DictionaryEntry, ...]:
        """The nodes (of `label`, if given) whose name or synonym `text` is, names first."""
        found = self._entries.get(phrase_key(text), ())
        chosen = [entry for entry in found if label is None or entry.label == label]
        return tuple(sorted(chosen, key=lambda entry: entry.from_synonym))

    def canonical_name(self, text: str, label: str | None = None) -> str | None:
        """The node name that `text` writes (as a name or a synonym; names first), or None when it writes none:
        what to embed so that a synonym, a lower-case symbol or a plural links to its node exactly."""
        found = self.lookup(text, label)
        return found[0].name if found else None


def read_name_dictionary(procedures: GraphProcedures, schema: SkbSchema) -> NameDictionary:
    """The dictionary of the loaded SKB: every node's name, and its synonyms where the schema names
    `synonym_fields` for its type. One read per label (about 2 s for the full HPO's 37k nodes, 20k synonyms)."""
    entries: list[tuple[str, DictionaryEntry]] = []
    for node_type in schema.node_types:
        label = node_type.label
        for node_id, name, synonyms in procedures.names_and_synonyms(label, node_type.synonym_fields):
            if name:
                entries.append((name, DictionaryEntry(node_id, label, name)))
                entries.extend((synonym, DictionaryEntry(node_id, label, name, True)) for synonym in synonyms)
    return NameDictionary(entries)


__all__ = ["DictionaryEntry", "NameDictionary", "PhraseMatch", "read_name_dictionary"]
