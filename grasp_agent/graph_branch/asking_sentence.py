"""Which sentence of a question asks, and which named things lie only around it.

People set a question in context: "Leaving X aside for now. Which genes ...?", "I already know about X. Which
...?", "My son has X and Y; what could this be?". When the asking sentence names anchors of its own, a thing
named only in the other sentences is context: planning it as one more anchor of a conjunction asks for what no
node satisfies (an aside's node has nothing to do with the answer). When the asking sentence names none (a
vignette: "A patient carries G and shows P. Which condition fits?"), every named thing is what it asks about.

Pure functions of the question text; English sentence punctuation and question words only, nothing of one SKB.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from grasp_agent.graph_branch.asked_type import QUESTION_WORDS
from grasp_agent.graph_branch.phrases import occurrences

# A sentence ends at . ! ? ; or : followed by a space: "Sorry if this is obvious: which genes ...?" asks after
# the colon, and "... but never mind that; which ..." after the semicolon; a closing bracket may come between
# ("(Asking for a class.) Thanks!").
_BREAK = re.compile(r"[.!?;:]+\)?\s+")
_QUESTION_WORD = re.compile(rf"\b({QUESTION_WORDS})\b", re.IGNORECASE)
_SLOT_WORD = re.compile(r"[\w'-]+")


def sentence_spans(question: str, names: Sequence[str] = ()) -> list[tuple[int, int]]:
    """(start, end) of each sentence, its closing punctuation included; blank ones left out. A break inside one
    of `names` (a name with a colon: "EMG: axonal abnormality") ends no sentence."""
    inside = [place for name in names for place in occurrences(question, name)]
    spans: list[tuple[int, int]] = []
    start = 0
    for found in _BREAK.finditer(question):
        if any(s <= found.start() < e for s, e in inside):
            continue
        end = found.start() + len(found.group().rstrip())
        spans.append((start, end))
        start = found.end()
    spans.append((start, len(question)))
    return [(s, e) for s, e in spans if question[s:e].strip()]


def asking_span(question: str, names: Sequence[str] = ()) -> tuple[int, int] | None:
    """The sentence that asks: the last one with a question mark, else the last with a question word ("List
    the genes of X."); None for a single sentence (nothing is around it) or when none asks. `names`: as for
    `sentence_spans`."""
    spans = sentence_spans(question, names)
    if len(spans) < 2:
        return None
    marked = [span for span in spans if "?" in question[span[0] : span[1]]]
    if marked:
        return marked[-1]
    worded = [span for span in spans if _QUESTION_WORD.search(question, span[0], span[1])]
    return worded[-1] if worded else None


def said_only_around(question: str, words: Sequence[str], names: Sequence[str] = ()) -> frozenset[str]:
    """The `words` found in the question only outside the sentence that asks (none when no sentence asks apart
    from others; a word not in the question is never among them): "Background: I read about rare *diseases*.
    What subtype of X ...?" says its type word in the context, not in the question. `names`: as for
    `sentence_spans`."""
    span = asking_span(question, names)
    if span is None:
        return frozenset()
    start, end = span
    return frozenset(
        word
        for word in words
        if (places := occurrences(question, word)) and not any(s < end and e > start for s, e in places)
    )


# The most words between the word that asks and the thing it asks about: "what *specific subtype of* X",
# "which *narrower term of* X", "list *the* X subtypes".
SLOT_WORDS = 4


def in_asking_slot(question: str, mention: str, names: Sequence[str] = ()) -> bool:
    """Whether `mention` is what the question's asking words are about: a question word comes at most
    SLOT_WORDS words before it in its sentence, and no other sentence asks ("Which kind of X ...", "List the X
    subtypes ..."). Not so in a statement the question asks about afterwards ("My child shows some form of X.
    What could it be?"), or after a verb ("What does a child with some form of X have?"). A question with no
    question word at all ("X subtype: Y") is all slot. False when the mention is not in the question. `names`:
    as for `sentence_spans`."""
    places = occurrences(question, mention)
    if not places:
        return False
    at = places[0][0]
    if not _QUESTION_WORD.search(question):
        return True
    spans = sentence_spans(question, names)
    sentence = next(((s, e) for s, e in spans if s <= at < e), (0, len(question)))
    asking = asking_span(question, names)
    if asking is not None and asking != sentence:
        return False
    asked = list(_QUESTION_WORD.finditer(question, sentence[0], at))
    if not asked:
        return False
    return len(_SLOT_WORD.findall(question, asked[-1].end(), at)) <= SLOT_WORDS


def context_mentions(question: str, mentions: Sequence[str]) -> frozenset[str]:
    """The mentions named only outside the asking sentence, when that sentence holds at least one of `mentions`
    itself (else none: a vignette's asking sentence leaves what it asks about to the sentences before it). A
    mention not found in the question (an extractor's rewording) is never context, nor does it make one."""
    outside = said_only_around(question, mentions, mentions)
    inside = any(mention not in outside and occurrences(question, mention) for mention in mentions)
    return outside if inside else frozenset()


def aside_spans(question: str, mentions: Sequence[str]) -> list[tuple[int, int]]:
    """(start, end) of the question's asides: the sentences that neither ask (`asking_span`) nor hold one of
    `mentions` ("I'm preparing slides for our journal club and got stuck.", "(Asking for a genetics class.)",
    "Thanks a lot!"); none when no sentence asks apart from others."""
    return [span for span, aside in _sentences_marked(question, mentions) if aside]


def without_asides(question: str, mentions: Sequence[str]) -> str:
    """The question without its asides (`aside_spans`): their words say nothing of the answer, yet a relevance
    text holding them would order the targets by them. The question itself when it has none."""
    sentences = _sentences_marked(question, mentions)
    if not any(aside for _, aside in sentences):
        return question
    return " ".join(question[start:end] for (start, end), aside in sentences if not aside)


def _sentences_marked(question: str, mentions: Sequence[str]) -> list[tuple[tuple[int, int], bool]]:
    """Each sentence's span and whether it is an aside (all False when no sentence asks apart from others)."""
    spans = sentence_spans(question, mentions)
    asking = asking_span(question, mentions)
    if asking is None:
        return [(span, False) for span in spans]
    places = [place for mention in mentions for place in occurrences(question, mention)]
    return [
        ((start, end), (start, end) != asking and not any(s >= start and e <= end for s, e in places))
        for start, end in spans
    ]
