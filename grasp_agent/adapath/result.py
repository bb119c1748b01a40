"""What `Grasp.paths()` returns (pydantic: it crosses into apps, the LangChain tool and the UI as JSON)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from grasp_agent.adapath.answer import PathAnswer
from grasp_agent.adapath.path_evidence import EvidencePath
from grasp_agent.adapath.path_search import PathSearch
from grasp_agent.adapath.question import QuestionAnalysis

NodeId = str | int


class TopicOut(BaseModel):
    model_config = ConfigDict(frozen=True)

    node_id: NodeId
    name: str
    label: str
    score: float


class MetaPathOut(BaseModel):
    model_config = ConfigDict(frozen=True)

    signature: str
    hops: int
    vote: float  # sum of the similarities of the bank queries that used it (0 when not from the bank)
    voters: int
    support: int


class PathOut(BaseModel):
    model_config = ConfigDict(frozen=True)

    node_ids: list[NodeId]
    names: list[str]
    labels: list[str]
    relations: list[str]
    outgoing: list[bool]
    score: float
    meta_path: str
    text: str  # `A -[REL]-> B <-[REL]- C`

    @classmethod
    def of(cls, path: EvidencePath) -> PathOut:
        return cls(
            node_ids=list(path.node_ids),
            names=list(path.names),
            labels=list(path.labels),
            relations=list(path.relations),
            outgoing=list(path.outgoing),
            score=path.score,
            meta_path=path.meta_path,
            text=path.render(),
        )


class AnswerOut(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    node_id: NodeId | None
    source: str  # "llm", "best-path" (no LLM, or it failed) or "none"
    supporting_paths: list[int]
    failure: str | None = None


class PathResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    question: str
    topics: list[TopicOut]
    topic_source: str  # "given", "linked" or "none"
    hops: int | None  # the question's inferred hop count (None: not inferred)
    answer_type: str | None
    meta_path_source: str  # "bank", "given" (e.g. the planner's) or "none" (unguided)
    meta_paths: list[MetaPathOut]
    paths: list[PathOut]
    scorer: str
    answer: AnswerOut
    truncated: bool
    notes: list[str]
    failures: list[str]  # stages that broke (database, LLM, bank); the result is degraded
    timings_ms: dict[str, float]

    @property
    def ranked_end_nodes(self) -> list[NodeId]:
        return list(dict.fromkeys(path.node_ids[-1] for path in self.paths))


def path_result(
    question: str,
    analysis: QuestionAnalysis,
    search: PathSearch | None,
    answer: PathAnswer,
    notes: list[str],
    failures: list[str],
    timings_ms: dict[str, float],
) -> PathResult:
    topics = [TopicOut(node_id=t.node_id, name=t.name, label=t.label, score=t.score) for t in analysis.topics]
    meta_paths = [
        MetaPathOut(
            signature=m.meta_path.signature, hops=m.meta_path.hops, vote=m.vote, voters=m.voters, support=m.support
        )
        for m in (search.meta_paths if search else [])
    ]
    return PathResult(
        question=question,
        topics=topics,
        topic_source=analysis.topic_source,
        hops=analysis.hops,
        answer_type=analysis.answer_label,
        meta_path_source=search.meta_path_source if search else "none",
        meta_paths=meta_paths,
        paths=[PathOut.of(path) for path in (search.paths if search else [])],
        scorer=search.scorer if search else "none",
        answer=AnswerOut(
            text=answer.text,
            node_id=answer.node_id,
            source=answer.source,
            supporting_paths=list(answer.supporting),
            failure=answer.failure,
        ),
        truncated=bool(search and search.truncated),
        notes=[*analysis.notes, *(search.notes if search else []), *notes],
        failures=failures,
        timings_ms=timings_ms,
    )
