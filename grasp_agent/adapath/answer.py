"""The answer AdaPath gives: an LLM reads the paths and names the answer; without an LLM, the end node of the
best path stands in (and says so).

The LLM must name one of the paths' end nodes (constrained decoding over their names): the paths are the
evidence, so an answer outside them would be unsupported, and small models otherwise paraphrase a name
and lose exact match for nothing. The chosen name is mapped back to its node.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from grasp_agent.adapath.path_evidence import EvidencePath, NodeId
from grasp_agent.llm.base import GraspLLM
from grasp_agent.llm.errors import LLMError

EVIDENCE_PATHS = 10  # paths shown to the LLM, best first
AnswerSource = Literal["llm", "best-path", "none"]


@dataclass(frozen=True)
class PathAnswer:
    text: str
    node_id: NodeId | None
    source: AnswerSource
    supporting: tuple[int, ...] = ()  # indexes of the paths that end at the answer
    failure: str | None = None


def best_path_answer(paths: Sequence[EvidencePath], failure: str | None = None) -> PathAnswer:
    if not paths:
        return PathAnswer("", None, "none", failure=failure or "no path found")
    best = paths[0]
    supporting = tuple(i for i, path in enumerate(paths) if path.end_id == best.end_id)
    return PathAnswer(best.end_name, best.end_id, "best-path", supporting, failure)


def evidence_prompt(question: str, paths: Sequence[EvidencePath]) -> list[Any]:
    listing = "\n".join(f"{number}. {path.render()}" for number, path in enumerate(paths, start=1))
    return [
        {
            "role": "system",
            "content": "Answer the question from the knowledge-graph paths only. The answer is the "
            "name of the last node of the path that best answers it. Reply with JSON "
            '{"answer": name}.',
        },
        {"role": "user", "content": f"Question: {question}\nPaths:\n{listing}"},
    ]


def answer_from_paths(
    question: str, paths: Sequence[EvidencePath], llm: GraspLLM | None, evidence_paths: int = EVIDENCE_PATHS
) -> PathAnswer:
    """The LLM's choice among the shown paths' end names; the best path's end without an LLM or when it fails."""
    shown = list(paths[:evidence_paths])
    if llm is None or not shown:
        return best_path_answer(paths)
    ends = list(dict.fromkeys(path.end_name for path in shown))
    schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["answer"],
        "properties": {"answer": {"enum": ends}},
    }
    try:
        text = llm.complete_json(evidence_prompt(question, shown), schema, max_tokens=64)
        name = json.loads(text[text.index("{") : text.rindex("}") + 1]).get("answer")
    except (LLMError, ValueError, AttributeError) as error:  # AttributeError: JSON that is not an object
        return best_path_answer(paths, failure=f"LLM answer failed ({error}); best path's end used")
    if name not in ends:
        return best_path_answer(paths, failure=f"LLM answered {name!r}, not an end of the shown paths; best path used")
    supporting = tuple(i for i, path in enumerate(shown) if path.end_name == name)
    return PathAnswer(name, shown[supporting[0]].end_id, "llm", supporting)
