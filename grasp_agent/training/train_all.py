"""`grasp train all`: everything a search learns, fitted in one go on one question set of the loaded SKB.

The questions are the user's own labelled file, or synthetic ones generated from the SKB itself (`grasp bench
build`), so a new SKB with no labels gets every learned part. Each stage reports its time, the process's peak
memory so far and what it changes on the valid split, and keeps its output only when that helps (a stage that
cannot be judged without an LLM says so). Stages run in order, each reading what the ones before it kept:
field weights before fusion (the fused text ranking uses them), the answer-type prior before the asked-type
model (which learns on the planner's reading). A time budget skips what does not fit, the Path-Bank (the
slowest, resumable) taking what is left.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from neo4j import Driver

from grasp_agent.config import Settings
from grasp_agent.db.connection import open_driver
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.embed.factory import make_embedder
from grasp_agent.evaluation.query_sets import EvalQuery, write_queries
from grasp_agent.evaluation.skb_questions import SkbGraph, generate_skb_questions
from grasp_agent.graph_branch.answer_types import AnswerTypePrior, find_prior, fit_answer_type_prior, write_prior
from grasp_agent.graph_branch.branch import GraphBranch
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner
from grasp_agent.graph_branch.route_reading import RouteReader
from grasp_agent.skb.context import SkbContext, read_skb_context
from grasp_agent.text_branch.field_weights import ZERO_SHOT_PRIOR, TrainConfig
from grasp_agent.text_branch.from_database import field_weights_directory, open_text_branch
from grasp_agent.training.asked_type_fit import answer_labels, fit_on_tables, question_tables, read_questions
from grasp_agent.training.fit import of_split, train_weights
from grasp_agent.training.train_all_stages import STAGES

BANK_CHUNK = 25  # bank queries built between budget checks (the bank build is resumable)


@dataclass(frozen=True)
class StageResult:
    """One stage: `before` and `after` are its valid `metric` without and with its output (None: not judged)."""

    stage: str
    seconds: float
    peak_rss_mib: float
    metric: str = ""
    before: float | None = None
    after: float | None = None
    kept: bool = False
    note: str = ""


@dataclass(frozen=True)
class TrainAllOutcome:
    skb: str
    questions: Path  # the question set used (written here when generated)
    generated: bool
    counts: dict[str, int]  # per split
    stages: tuple[StageResult, ...]


FUSION_FOLDS = 5  # the fusion stage judges its values on valid questions they were not fitted on
FUSION_P_VALUE = 0.05  # ... and keeps them only for a gain beyond chance (the usual 5%)


def peak_rss_mib() -> float:
    """This process's peak resident memory so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class TrainAll:
    """Runs the stages over one question set until `deadline` (time.monotonic()); `say` receives progress lines."""

    def __init__(
        self,
        settings: Settings,
        driver: Driver,
        embedder: GraspEmbedder,
        context: SkbContext,
        queries: Sequence[EvalQuery],
        *,
        deadline: float,
        skip: Sequence[str] = (),
        say: Callable[[str], None] = lambda line: None,
        generated: bool = False,
    ) -> None:
        self._settings = settings
        self._driver = driver
        self._embedder = embedder
        self._context = context
        self._queries = list(queries)
        self._deadline = deadline
        self._skip = set(skip)
        # generated questions: what learns from wording is judged on wording families it was not fitted on
        self._generated = generated
        self._say = say
        self._tables: list[tuple[EvalQuery, EntityTable]] | None = None
        self._labels: dict[str, str] | None = None
        # the reader a search's planner gets (its cards are embedded on first use, once for every stage)
        self._route_reader = (
            RouteReader(context.schema, list(context.pattern_counts), embedder) if settings.route_reading else None
        )

    @property
    def _database(self) -> str:
        return self._settings.neo4j_database

    def run(self) -> list[StageResult]:
        results = []
        steps: dict[str, Callable[[], StageResult]] = {
            "field weights": self.field_weights,
            "answer types": self.answer_types,
            "asked type": self.asked_type,
            "fusion": self.fusion,
            "extraction demos": self.extraction_demos,
            "path bank": self.path_bank,
        }
        for stage in STAGES:
            if stage in self._skip:
                results.append(StageResult(stage, 0.0, peak_rss_mib(), note="skipped: --skip"))
                continue
            if time.monotonic() >= self._deadline:
                results.append(StageResult(stage, 0.0, peak_rss_mib(), note="skipped: the time budget is spent"))
                continue
            self._say(f"{stage} ...")
            started = time.monotonic()
            result = steps[stage]()  # each stage leaves its time and memory to be filled in here
            results.append(replace(result, seconds=time.monotonic() - started, peak_rss_mib=peak_rss_mib()))
        return results

    # ---- stages ------------------------------------------------------------------------------------------
    def field_weights(self) -> StageResult:
        """mFAR field weights from the zero-shot start (whole-document BM25); saved only when valid MRR rises."""
        branch = open_text_branch(self._driver, self._settings, self._embedder, self._context.schema)
        prior = {key: value for key, value in ZERO_SHOT_PRIOR.items() if key in branch.keys}
        model, report = train_weights(branch, self._queries, TrainConfig(), prior or None)
        kept = report.valid_mrr_best > report.valid_mrr_uniform
        note = f"best epoch {report.best_epoch} of {report.epochs_run}"
        if kept:
            directory = field_weights_directory(self._settings, self._context.schema.name, self._embedder.model_id)
            model.save(directory, report)
            note += f"; saved to {directory}"
        else:
            note += "; no epoch beat the zero-shot weights: not saved"
        return StageResult(
            "field weights",
            0.0,
            0.0,
            "text MRR over candidates",
            report.valid_mrr_uniform,
            report.valid_mrr_best,
            kept,
            note,
        )

    def _read(self) -> tuple[list[tuple[EvalQuery, EntityTable]], dict[str, str]]:
        """The train and valid questions' entity tables and answer types, read once for the planner stages."""
        if self._tables is None or self._labels is None:
            settings = self._settings.model_copy(update={"asked_type_model": False, "answer_type_prior": False})
            branch = GraphBranch.build(self._driver, settings, self._embedder)
            chosen = [*of_split(self._queries, "train"), *of_split(self._queries, "valid")]
            self._labels = answer_labels(self._driver, self._database, self._context.labels, chosen)
            self._tables = question_tables(
                branch, chosen, lambda done, total: self._say(f"reading question {done} of {total}")
            )
        return self._tables, self._labels

    def _planner(self, prior: AnswerTypePrior | None) -> HeuristicPlanner:
        """The heuristic planner as a search builds it (the route reader as the settings say), with `prior`."""
        return HeuristicPlanner(self._context, answer_types=prior, route_reader=self._route_reader)

    def _planned_accuracy(self, planner: HeuristicPlanner) -> float:
        """How often `planner` asks for the type of the valid questions' answers."""
        tables, labels = self._read()
        valid = [q for q in read_questions(planner, tables, labels) if q.split != "train"]  # tables: train+valid
        return sum(q.planned == q.answer_type for q in valid) / len(valid) if valid else 0.0

    def answer_types(self) -> StageResult:
        """The type a question naming none asks for, counted on train; kept when the valid asked types gain."""
        tables, labels = self._read()
        train = [query for query, _ in tables if query.split == "train"]
        prior = fit_answer_type_prior(self._context.schema.name, ((q.topic_ids, q.answer_ids) for q in train), labels)
        # judged against what a search serves without it: the rules and the schema's routes read from the words
        before = self._planned_accuracy(self._planner(None))
        after = self._planned_accuracy(self._planner(prior))
        kept = after > before
        path = self._settings.answer_types_path(self._context.schema.name)
        if kept:
            write_prior(path, prior)
        return StageResult(
            "answer types",
            0.0,
            0.0,
            "planned type accuracy",
            before,
            after,
            kept,
            f"saved to {path}" if kept else "not saved: no gain on valid",
        )

    def asked_type(self) -> StageResult:
        tables, labels = self._read()
        prior = find_prior(self._settings.answer_types_path(self._context.schema.name), self._context.schema.name)
        planner = self._planner(prior)
        out = self._settings.asked_type_path(self._context.schema.name)
        fit = fit_on_tables(planner, tables, labels, out, by_wording=self._generated)
        return StageResult(
            "asked type",
            0.0,
            0.0,
            "asked type accuracy" + (", unseen wording" if self._generated else ""),
            fit.rule_valid,
            fit.model_valid,
            fit.written is not None,
            f"saved to {fit.written}" if fit.written else "not saved: the planner's rules read valid as well",
        )

    def fusion(self) -> StageResult:
        """Static weight and dynamic tables on valid (no reranker weight: that runs the reranker), judged out of
        fold (`fit.out_of_fold`): the better policy on valid questions it was not fitted on, kept when it beats
        the default static weight there by more than chance gives (paired bootstrap, p < FUSION_P_VALUE)."""
        from grasp_agent.evaluation.significance import paired_bootstrap
        from grasp_agent.training.fit import out_of_fold
        from grasp_agent.training.fusion_fit import fit_fusion_tables

        outcome = fit_fusion_tables(self._settings, self._queries, "heuristic", rerank=False)
        if len(outcome.examples) < 2:
            outcome.path.unlink(missing_ok=True)
            return StageResult("fusion", 0.0, 0.0, note="not saved: fewer than 2 valid questions to judge it on")
        folds = min(FUSION_FOLDS, len(outcome.examples))
        judged = out_of_fold(outcome.examples, self._settings.fusion_k, self._settings.fusion_graph_weight, folds)
        policy = "dynamic" if judged.dynamic > judged.static else "static"
        ranks = judged.dynamic_ranks if policy == "dynamic" else judged.static_ranks
        before, after = judged.default, max(judged.static, judged.dynamic)
        # a gain the questions' own spread could give by chance (paired bootstrap, p >= 0.05) keeps the default:
        # fitted values that do not carry over cost more than they win
        significance = paired_bootstrap(ranks, judged.default_ranks)
        kept = after > before and significance.p_value < FUSION_P_VALUE
        if kept:
            outcome.tables.model_copy(update={"policy": policy}).save(outcome.path)
        else:
            outcome.path.unlink(missing_ok=True)
        note = (
            f"{policy}, static graph weight {outcome.fits.static.graph_weight:g}, {judged.folds}-fold, "
            f"p {significance.p_value:.3f}"
        ) + (f"; saved to {outcome.path}" if kept else "; not saved: no clear gain over the default weight")
        return StageResult("fusion", 0.0, 0.0, "fused MRR, out of fold", before, after, kept, note)

    def extraction_demos(self) -> StageResult:
        from grasp_agent.training.extraction_demo_set import build_extraction_demos

        path = self._settings.extraction_demos_path(self._context.schema.name)
        outcome = build_extraction_demos(
            self._driver, self._database, self._context.schema, self._queries, "train", path
        )
        return StageResult(
            "extraction demos",
            0.0,
            0.0,
            kept=bool(outcome.demos),
            note=f"{len(outcome.demos)} written to {path}; used by LLM extraction only, not judged without an LLM",
        )

    def path_bank(self) -> StageResult:
        """The Path-Bank from the train questions, in chunks while the budget lasts (resumable: a later run
        continues where this one stopped)."""
        from grasp_agent.adapath.bank import build_bank
        from grasp_agent.adapath.bank_store import BankIdentity, BankStore
        from grasp_agent.text_branch.from_database import completed_load

        train = [query for query in of_split(self._queries, "train") if query.topic_ids]
        fingerprint = completed_load(self._driver, self._database, self._context.schema.name).fingerprint
        # a bank built for another load of the SKB (or another embedder) answers for data no longer there: train
        # all fits everything afresh, so it replaces that bank rather than stopping every later stage
        loaded = BankIdentity(self._context.schema.name, fingerprint, self._embedder.model_id)
        held = BankStore(self._driver, self._database).identity()
        stale = held is not None and held != loaded
        built = stored = 0
        for start in range(0, len(train), BANK_CHUNK):
            if time.monotonic() >= self._deadline:
                break
            summary = build_bank(
                self._driver,
                self._database,
                self._context.schema,
                fingerprint,
                self._embedder,
                train[start : start + BANK_CHUNK],
                rebuild=stale and start == 0,
                progress=False,
            )
            built, stored = built + summary.built, stored + summary.already_stored
            self._say(f"path bank: {start + len(train[start : start + BANK_CHUNK])} of {len(train)} train questions")
        done = built + stored
        note = f"{built} questions searched now, {stored} already in the bank, of {len(train)}"
        if stale and held is not None:
            note = (
                f"the bank held was built for another load (fingerprint {held.fingerprint[:12]}, embedder "
                f"{held.embedder}), replaced; {note}"
            )
        if done < len(train):
            note += "; the budget ran out: run again to continue"
        return StageResult("path bank", 0.0, 0.0, kept=done > 0, note=note + "; judged by `grasp adapath eval`")


def train_everything(
    settings: Settings,
    queries: Sequence[EvalQuery] | None,
    *,
    source: Path | None = None,
    skb: str | None = None,
    count: int = 600,
    seed: int = 0,
    budget_s: float = 600.0,
    skip: Sequence[str] = (),
    say: Callable[[str], None] = lambda line: None,
) -> TrainAllOutcome:
    """Generate questions when none are given (written under .grasp/questions/), then run every stage.
    `source`: the file `queries` came from, for the report."""
    deadline = time.monotonic() + budget_s  # question generation counts too
    embedder = make_embedder(settings)
    with open_driver(settings) as driver:
        context = read_skb_context(driver, settings.neo4j_database, skb)
        generated = queries is None
        if queries is None:
            say("generating questions from the SKB ...")
            queries = generate_skb_questions(SkbGraph(driver, settings.neo4j_database), context, count, seed)
        path = source or settings.grasp_dir / "questions" / f"{context.schema.name}.jsonl"
        if generated:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_queries(path, queries)
        counts = {split: len(of_split(queries, split)) for split in ("train", "valid", "test")}
        if not counts["train"] or not counts["valid"]:
            raise ValueError(f"training needs train and valid questions; the set has {counts}")
        stages = TrainAll(
            settings, driver, embedder, context, queries, deadline=deadline, skip=skip, say=say, generated=generated
        ).run()
    return TrainAllOutcome(context.schema.name, path, generated, counts, tuple(stages))
