"""The LLM frontier scorer: the guided search one depth at a time (`adapath.expand`), with the LLM choosing
which partial paths go on.

At depth d of a meta-path the procedure returns the neighbours that match step d (relation, direction,
label), best by cosine to the question; the `candidates` best are shown to the LLM under a depth-specific
sub-question ("step 2 of 2: which Gene ...?") and it names, best first, at most `beam_width` to keep. A
failed or empty choice keeps the cosine order, so a weak model degrades to the embedding scorer instead
of losing the search. Paths come back in the LLM's order within each meta-path, meta-paths in bank order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import Driver

from grasp_agent.adapath.metapath import MetaPath, MetaPathStep
from grasp_agent.adapath.path_evidence import EvidencePath
from grasp_agent.adapath.statements import AdaPathCypher
from grasp_agent.llm.base import GraspLLM
from grasp_agent.llm.errors import LLMError

NodeId = str | int


@dataclass(frozen=True)
class Partial:
    """A path being grown: its nodes and hops so far, and the sum of its nodes' cosines (topic excluded)."""

    node_ids: tuple[NodeId, ...]
    names: tuple[str, ...]
    labels: tuple[str, ...]
    relations: tuple[str, ...] = ()
    outgoing: tuple[bool, ...] = ()
    score_sum: float = 0.0

    def extend(self, row: Mapping[str, Any]) -> Partial:
        return Partial(
            (*self.node_ids, row["nodeId"]),
            (*self.names, str(row["name"])),
            (*self.labels, str(row["label"])),
            (*self.relations, str(row["relation"])),
            (*self.outgoing, bool(row["outgoing"])),
            self.score_sum + float(row["score"]),
        )

    def evidence(self, meta_path: str) -> EvidencePath:
        score = self.score_sum / len(self.relations) if self.relations else 0.0
        return EvidencePath(self.node_ids, self.names, self.labels, self.relations, self.outgoing, score, meta_path)


@dataclass(frozen=True)
class FrontierSearch:
    paths: list[EvidencePath]
    truncated: bool
    llm_calls: int
    llm_failures: tuple[str, ...]


def sub_question(question: str, meta_path: MetaPath, depth: int, partial_labels: Sequence[str]) -> str:
    """What the LLM answers at `depth` (0-based): the step's relation and the type it reaches, in words."""
    step: MetaPathStep = meta_path.steps[depth]
    arrow = (
        f"{partial_labels[-1]} -[{step.relation}]-> {step.label}"
        if step.outgoing
        else f"{partial_labels[-1]} <-[{step.relation}]- {step.label}"
    )
    return (
        f"Question: {question}\nStep {depth + 1} of {meta_path.hops}: follow {arrow}. Which {step.label} "
        f"nodes below lie on a path to the answer?"
    )


class LLMFrontierScorer:
    def __init__(self, llm: GraspLLM, *, candidates: int = 12, beam_width: int = 5) -> None:
        self._llm = llm
        self._candidates = candidates
        self._beam_width = beam_width

    def choose(self, prompt: str, options: Sequence[Partial]) -> list[int]:
        """Indexes into `options`, best first (at most beam_width); raises LLMError when the model fails."""
        listing = "\n".join(f"{number}. " + " > ".join(option.names) for number, option in enumerate(options, start=1))
        schema = {
            "type": "object",
            "additionalProperties": False,
            "required": ["keep"],
            "properties": {
                "keep": {
                    "type": "array",
                    "maxItems": self._beam_width,
                    "items": {"type": "integer", "minimum": 1, "maximum": len(options)},
                }
            },
        }
        messages: list[Any] = [
            {
                "role": "system",
                "content": "You choose which partial paths in a knowledge graph to follow. Reply with "
                'JSON {"keep": [numbers of the best candidates, best first]}.',
            },
            {"role": "user", "content": f"{prompt}\nCandidates:\n{listing}"},
        ]
        text = self._llm.complete_json(messages, schema, max_tokens=16 + 6 * self._beam_width)
        try:
            keep = json.loads(text[text.index("{") : text.rindex("}") + 1]).get("keep", [])
        except ValueError as error:
            raise LLMError(f"frontier choice is not JSON: {text[:200]!r}") from error
        chosen = [number - 1 for number in keep if isinstance(number, int) and 1 <= number <= len(options)]
        return list(dict.fromkeys(chosen))[: self._beam_width]

    def search(
        self,
        driver: Driver,
        database: str,
        question: str,
        query_vector: Sequence[float],
        topic_ids: Sequence[NodeId],
        meta_paths: Sequence[MetaPath],
        config: Mapping[str, Any] | None = None,
    ) -> FrontierSearch:
        cypher = AdaPathCypher(driver, database)
        paths: list[EvidencePath] = []
        truncated, calls, failures = False, 0, []
        for meta_path in meta_paths:
            # Only topics of the meta-path's start type can begin it (adapath.bfs filters the same way).
            frontier = [
                Partial((node_id,), (name,), (label,))
                for node_id, name, label in cypher.named_nodes([meta_path.start_label], topic_ids)
            ]
            for depth, step in enumerate(meta_path.steps):
                if not frontier:
                    break
                rows = cypher.run(
                    "expand",
                    frontier=[{"nodeIds": list(p.node_ids)} for p in frontier],
                    step={"relation": step.relation, "outgoing": step.outgoing, "label": step.label},
                    queryVector=list(query_vector),
                    config={**dict(config or {}), "limit": self._candidates},
                )
                truncated = truncated or any(row["truncated"] for row in rows)
                options = [frontier[int(row["path"])].extend(row) for row in rows]
                if not options:
                    frontier = []
                    break
                try:
                    calls += 1
                    chosen = self.choose(sub_question(question, meta_path, depth, frontier[0].labels), options)
                except LLMError as error:
                    failures.append(f"{meta_path.signature} step {depth + 1}: {error}")
                    chosen = []
                frontier = [options[i] for i in chosen] or options[: self._beam_width]
            paths.extend(partial.evidence(meta_path.signature) for partial in frontier)
        return FrontierSearch(paths, truncated, calls, tuple(failures))
