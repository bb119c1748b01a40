"""Words a question quotes as a keyword of the asked nodes' names: 'diseases named "spastic"', 'What "Usher"
conditions ...', 'films with "Star" in the title'.

A quoted passage is a description or a keyword, never a name the linker should match (the span finder leaves
quoted text to the described-entity finder). What the described-entity finder does not take, a passage of at
most MAX_WORDS words that no mention covers, is a keyword: the plan asks it of the targets' names
(`name_contains`), and the targets whose name holds it rank first. Unquoted, a word right before the asked type's
word that the type's names hold, but few of them, is read the same way ("Which Chylous disorder ...",
`modifier_keywords`; the shares come from the SKB's own names). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from grasp_agent.graph_branch.phrases import occurrences, phrase_key
from grasp_agent.graph_branch.quotes import quoted_ranges

MAX_WORDS = 3  # a longer quoted passage is a description, not a keyword
MAX_KEYWORDS = 4  # what a plan's name_contains holds
# A word before the asked type word is a keyword of the answer's name only when at most this share of the type's
# names hold it: "Which Chylous disorder" (a handful of names), not "Which genetic disorder" (many).
MAX_NAME_SHARE = 0.02
_CHUNK = re.compile(r"\S+")


def quoted_keywords(question: str, mentions: Sequence[str]) -> tuple[str, ...]:
    """The quoted passages (`quotes.quoted_ranges`, which the span finder never links) of 1 to MAX_WORDS words
    inside which no mention's text occurs, in question order."""
    lowered = question.lower()
    found = []
    for start, end in quoted_ranges(question):
        text = question[start + 1 : end].strip()
        if not text or len(text.split()) > MAX_WORDS or not any(ch.isalnum() for ch in text):
            continue
        covered = any((at := lowered.find(mention.lower(), start)) >= 0 and at < end for mention in mentions)
        if not covered:
            found.append(text)
    return tuple(dict.fromkeys(found))[:MAX_KEYWORDS]


def _within_chunk(chunk: re.Match[str], inside: list[tuple[int, int]]) -> bool:
    """Whether the mentions `inside` a chunk lie within it: not a word of a longer mention ("... ataxia")."""
    return not any(begin < chunk.start() or stop > chunk.end() for begin, stop in inside)


def modifier_keywords(
    question: str,
    type_words: str,
    mentions: Sequence[str],
    name_shares: Mapping[str, float],
    frame: frozenset[str],
    max_share: float = MAX_NAME_SHARE,
) -> tuple[str, ...]:
    """The words written right before the asked type's word ("Which *Chylous* disorder has X?", "the *early-onset*
    diseases with X") that no frame word is and the asked type's own names hold, in at most `max_share` of them
    (`name_shares`: normalised word -> share of the type's names holding it): a keyword of the answer's name,
    unquoted. A one-word mention there counts too, and stays an anchor ("Which *spastic* disorder has X?": a
    disease with spasticity, and its name says spastic first), as does a compound holding mentions ("the
    *parkinsonism-dystonia* disorders", "the *early-onset* disorders", whose mentions the planner sets aside) when
    the names hold each of its words; a compound with a frame word ("KCNQ2-related") or a word they do not
    hold, a word that is only part of a mention, or punctuation ends the reading. Read back from the type word; in question
    order. Pure."""
    covered = [place for mention in mentions for place in occurrences(question, mention)]
    lowered = question.lower()
    at = lowered.find(type_words.lower()) if type_words else -1
    while at >= 0 and any(start <= at < end for start, end in covered):
        at = lowered.find(type_words.lower(), at + 1)
    if at < 0:
        return ()
    chunks = list(_CHUNK.finditer(question[:at]))
    found: list[str] = []
    for chunk in reversed(chunks):
        text = chunk.group()
        inside = [(start, end) for start, end in covered if start < chunk.end() and chunk.start() < end]
        if not text[-1].isalnum() or not _within_chunk(chunk, inside):
            break  # a word of a longer mention ("... ataxia"), or punctuation closing the phrase before
        words = phrase_key(text).split()
        # every word of a compound, a mention's too: "early-onset" (a phenotype "Onset"); "KCNQ2-related" ends at its
        # frame word
        if not words or any(w in frame or not 0.0 < name_shares.get(w, 0.0) <= max_share for w in words):
            break
        found.append(text.strip("\"'“”(["))
    return tuple(reversed(found))[:MAX_KEYWORDS]


__all__ = ["MAX_NAME_SHARE", "MAX_WORDS", "modifier_keywords", "quoted_keywords"]
