"""A streaming reader for the OBO 1.2 files ontologies ship (only the tags an SKB needs)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from grasp_agent.errors import SourceFormatError

# def: "text with \" escapes" [refs]   /   synonym: "text" EXACT layperson [refs]
_QUOTED = re.compile(r'^"((?:[^"\\]|\\.)*)"')


@dataclass
class OboTerm:
    id: str
    name: str = ""
    definition: str = ""
    comment: str = ""
    synonyms: list[str] = field(default_factory=list)
    alt_ids: list[str] = field(default_factory=list)
    parents: list[str] = field(default_factory=list)
    obsolete: bool = False


def _unquote(value: str, path: Path, line: int) -> str:
    match = _QUOTED.match(value)
    if match is None:
        raise SourceFormatError(path, line, f"expected a quoted string, got {value[:60]!r}")
    return re.sub(r"\\(.)", r"\1", match.group(1))


def _apply(term: OboTerm, tag: str, value: str, path: Path, line: int) -> None:
    if tag == "name":
        term.name = value
    elif tag == "def":
        term.definition = _unquote(value, path, line)
    elif tag == "comment":
        term.comment = value
    elif tag == "synonym":
        synonym = _unquote(value, path, line)
        if synonym != term.name and synonym not in term.synonyms:
            term.synonyms.append(synonym)
    elif tag == "alt_id":
        term.alt_ids.append(value)
    elif tag == "is_a":
        term.parents.append(value.split("!", 1)[0].strip())
    elif tag == "is_obsolete":
        term.obsolete = value == "true"


def read_obo(path: Path) -> Iterator[OboTerm]:
    """[Term] stanzas in file order; other stanzas (Typedef) and unknown tags are passed over."""
    term: OboTerm | None = None
    in_term = False
    with path.open(encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.strip()
            if line.startswith("["):
                if term is not None:
                    yield term
                term, in_term = None, line == "[Term]"
                continue
            if not in_term or not line or line.startswith("!"):
                continue
            tag, sep, value = line.partition(": ")
            if not sep:
                raise SourceFormatError(path, number, f"expected 'tag: value', got {line[:60]!r}")
            if tag == "id":
                term = OboTerm(id=value)
            elif term is None:
                raise SourceFormatError(path, number, f"'{tag}' before the stanza's id")
            else:
                _apply(term, tag, value, path, number)
    if term is not None:
        yield term
