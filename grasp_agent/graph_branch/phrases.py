"""Phrase normalisation for exact name matching: what makes "KCNQ2-related", "Sjögren's syndromes" and
"sjogren syndrome" comparable. Pure functions, no SKB knowledge.

A token is a run of letters and digits (so hyphens, slashes and all other punctuation break words), case folded,
accents removed, a possessive "'s" dropped, and simple English plurals made singular. Names and questions go
through the same function, so only consistency matters, not linguistic accuracy.
"""

from __future__ import annotations

import re
import unicodedata

_TOKEN = re.compile(r"[^\W_]+")
_POSSESSIVE = re.compile(r"(?<=\w)['\u2019]s\b")


def _singular(token: str) -> str:
    """ies -> y, ches/shes/xes/sses -> drop es, s -> drop (not ss/us/is), for lower-case words of 4+ letters."""
    if len(token) < 4 or not token.isalpha() or not token.endswith("s") or token.endswith(("ss", "us", "is")):
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith(("ches", "shes", "xes", "sses")):
        return token[:-2]
    return token[:-1]


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def phrase_tokens(text: str) -> list[tuple[str, int, int, str]]:
    """(normalised token, start, end, token as written) for each word of `text`; offsets into `text`."""
    cleaned = _POSSESSIVE.sub(lambda m: " " * len(m.group()), text)  # same length: offsets hold
    return [
        (_singular(_fold(match.group()).lower()), match.start(), match.end(), match.group())
        for match in _TOKEN.finditer(cleaned)
    ]


def phrase_key(text: str) -> str:
    """A name's or span's normalised tokens, space-joined: the dictionary key."""
    return " ".join(token for token, *_ in phrase_tokens(text))


def folded_words(text: str) -> str:
    """The text's words case folded and accents removed, space-joined, as written otherwise (no plural made
    singular, no possessive dropped): how grasp.plan.execute compares a name with a keyword (NameTerms)."""
    return " ".join(_TOKEN.findall(_fold(text).lower()))


def holds_words(key: str, part: str) -> bool:
    """Whether `part`'s words are a run of whole words of `key` (both space-joined, as these functions give)."""
    return f" {part} " in f" {key} "


def occurrences(text: str, phrase: str) -> list[tuple[int, int]]:
    """(start, end) of every case-insensitive occurrence of `phrase` in `text`, overlapping ones too, in order;
    none for an empty phrase. Offsets count the text as written (a phrase and its lower case are as long)."""
    lowered, wanted = text.lower(), phrase.lower()
    found: list[tuple[int, int]] = []
    start = lowered.find(wanted) if wanted else -1
    while start >= 0:
        found.append((start, start + len(wanted)))
        start = lowered.find(wanted, start + 1)
    return found


__all__ = ["folded_words", "holds_words", "occurrences", "phrase_key", "phrase_tokens"]
