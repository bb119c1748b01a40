"""The planner for when no LLM is configured: a plan assembled from the entity table and the schema.

- anchors: anchor mentions whose best name link is high-confidence, typed by that link; when the sentence that asks
  names anchors of its own, those named only in the sentences around it are context (`asking_sentence`: "Leaving
  X aside for now. Which genes ...?"): the outcome's fallback plan, run when the whole plan matches no target,
  sets them aside;
- target: the type the question asks for ("which diseases ..."); else, for "which kind of X", X's type; else the
  type most training questions with such anchors asked for (`answer_types`), else the type the question's words
  lead to along the schema's relations from its anchors when one clearly leads ("what do people pay with in X":
  `route_reading`), else the prior's best guess, else the most populous type;
- hops: per anchor, the shortest schema meta-path to the target type; among parallel relations a negation
  next to the mention ("... but no seizures", "... while X is excluded") picks the negative one; words asking
  for the mention's hierarchy ("subtypes of X", "parent terms of X") add a directed hop down (or up) its type's
  self-relation first, and so do words that use the name of one of its type's self-relations on the way to
  another type ("languages of the countries bordering X"); a second word for the asked type is a station left
  along the type's own relation the words name ("which countries border the countries that use X") (`Routes`
  swaps these choices for others: the Path-Bank planner's come from similar training questions);
- relevance_text: the question minus anchor mentions, kept only when content words remain (with the name
  dictionary's vocabulary: a word the SKB's names use);
- n_cand: the best binding's degree carried along the path by average fan-out; risk from link confidence.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

from grasp_agent.graph_branch.answer_types import AnswerTypePrior
from grasp_agent.graph_branch.asked_type import AskedTypeEvidence, AskedTypeModel, question_evidence
from grasp_agent.graph_branch.asking_sentence import (
    context_mentions,
    in_asking_slot,
    said_only_around,
    without_asides,
)
from grasp_agent.graph_branch.described_mentions import DEFAULT_MIN_SCORE as MIN_DOC_ANCHOR_SCORE
from grasp_agent.graph_branch.described_mentions import DESCRIPTION_WORDS, description_words
from grasp_agent.graph_branch.entity_table import EntityRow, EntityTable
from grasp_agent.graph_branch.function_words import FUNCTION_WORDS
from grasp_agent.graph_branch.learned_loops import LearnedLoop
from grasp_agent.graph_branch.mentions import MentionRole
from grasp_agent.graph_branch.name_frames import called_keywords, framed_keywords, schema_name_words
from grasp_agent.graph_branch.phrases import holds_words, phrase_key
from grasp_agent.graph_branch.plan import Anchor, Direction, Hop, MatchMode, Plan, Risk, Target
from grasp_agent.graph_branch.planning import PlanAttempt, PlanChecker, PlanningOutcome
from grasp_agent.graph_branch.quantity_order import ReadOrder, read_order
from grasp_agent.graph_branch.quoted_words import MAX_KEYWORDS, modifier_keywords, quoted_keywords
from grasp_agent.graph_branch.quotes import quoted_spans
from grasp_agent.graph_branch.relation_words import NAME_WEIGHT, RelationWords, stem, stems
from grasp_agent.graph_branch.route_reading import RouteReader, leading_type
from grasp_agent.graph_branch.schema_paths import (
    SchemaHop,
    asked_slot_word,
    hierarchy_cue_phrases,
    hierarchy_step,
    is_negative_relation,
    mention_hierarchy_cue,
    named_types,
    negates,
    relevance_text,
    shortest_meta_path,
    sides_of_type_word,
    stored_child_to_parent,
    target_mention,
    type_word_count,
    unread_asked_noun,
)
from grasp_agent.graph_branch.shared_names import better_routed, named_type_near, tied_types
from grasp_agent.graph_branch.type_words import type_word_tokens
from grasp_agent.skb.context import SkbContext
from grasp_agent.skb.schema import SkbSchema

MIN_ANCHOR_SCORE = 0.9
MAJORITY = 0.5  # a base rate of training questions decides the asked type only when one type has most of them
# a link this close makes a plan low-risk: a name, or a described entity whose own text (a quoted definition)
# matches as closely
CONFIDENT_SCORE = 0.95
NEGATION_WINDOW = 3  # words on either side of a mention that can negate it
PHRASE_WINDOW = 8  # words on either side of a mention a relation phrase of the schema may take (its longest)
_WORD = re.compile(r"[A-Za-z0-9]+")


_CLAUSE_BREAK = frozenset({"but", "and", "while", "whereas", "or", "yet", "although"})


def _mention_scope(
    question: str,
    mention: str,
    others: list[str],
    count: int = NEGATION_WINDOW,
    framing: frozenset[str] = DESCRIPTION_WORDS,
    described: bool = False,
) -> tuple[list[str], list[str]]:
    """Up to `count` words before `mention` and up to `count` after it up to the next clause, never reaching
    into another mention: the words that can negate it ("but no X", "X is excluded") or ask for its hierarchy
    ("subtypes of X"). A `described` mention's scope skips the words in `framing` (what frames a description in
    this SKB's words: "the abnormality described as"). A mention inside a quoted passage stands for the passage
    (a name found in a quoted definition): the scope starts at the quotes and skips the description's frame."""
    lowered = question.lower()
    position = lowered.find(mention.lower())
    if position < 0:
        return [], []
    end = position + len(mention)
    quote = next(((s, e) for s, e in quoted_spans(question) if s <= position and end <= e), None)
    if quote is not None:
        position, end = quote
        described = True
    spans = [(p, p + len(o)) for o in others if o.lower() != mention.lower() and (p := lowered.find(o.lower())) >= 0]
    left = max([e for s, e in spans if e <= position], default=0)
    right = min([s for s, e in spans if s >= end], default=len(question))
    skipped = framing if described else frozenset()
    before = [w for w in _WORD.findall(question[left:position]) if w.lower() not in skipped][-count:]
    after: list[str] = []
    for word in _WORD.findall(question[end:right])[:count]:
        if word.lower() in _CLAUSE_BREAK:
            break
        after.append(word)
    return before, after


def _relation_words(context: SkbContext) -> frozenset[str]:
    return frozenset(w.lower() for relation in context.relations for w in relation.split("_"))


def frame_words(context: SkbContext) -> frozenset[str]:
    """Words that frame a question rather than say what its answer is about: function words and the schema's
    relation and type words (lower case). What is left of a relevance text without them is its content."""
    return FUNCTION_WORDS | _relation_words(context) | type_word_tokens(context.schema)


class Routes(Protocol):
    """How a plan gets from its anchors to the target: the heuristic's are the schema's shortest paths; the
    Path-Bank planner's are the meta-paths similar training questions followed."""

    def default_target(self, anchor_labels: Sequence[str], frame: str = "") -> str:
        """The target type when the question names none; `frame`: the question's words around its mentions."""

    def path(
        self, anchor_label: str, target_label: str, context_words: str, *, cue: str | None = None
    ) -> list[SchemaHop] | None:
        """The hops from an anchor of `anchor_label` to the target; None or [] when there is none.
        `context_words`: the words around the mention; `cue`: the hierarchy its words ask for ("down", "up")."""

    def sure(self, path: Sequence[SchemaHop]) -> bool:
        """Whether this path is trusted enough for a low-risk plan (with a sure target and confident links)."""

    def sure_target(self, anchor_labels: Sequence[str], frame: str, target: str) -> bool:
        """Whether a target type the question does not name is as sure as one it names."""

    def learned_loop(self, label: str) -> LearnedLoop | None:
        """The route training questions took from a node of `label` to answers of that type, when most of them
        took one (`learned_loops`); None when they did not, or nothing was learned."""


class SchemaRoutes:
    """The shortest schema meta-path (negation picks among parallel relations); as target when the question names
    none, what most training questions with such anchors asked for (`answer_types`), else the type the
    question's words lead to along the schema's relations when one clearly leads (`route_reader`), else the
    prior's best guess, else the routes' best guess however narrow its lead, else the most populous type."""

    def __init__(
        self,
        context: SkbContext,
        answer_types: AnswerTypePrior | None = None,
        route_reader: RouteReader | None = None,
        loops: Mapping[str, LearnedLoop] | None = None,
    ) -> None:
        self._context = context
        self._answer_types = answer_types
        self._route_reader = route_reader
        self._loops = dict(loops or {})
        self.relation_words = RelationWords.of(context.schema)

    def learned_loop(self, label: str) -> LearnedLoop | None:
        return self._loops.get(label)

    def default_target(self, anchor_labels: Sequence[str], frame: str = "") -> str:
        # what training questions with such anchors mostly asked for (kept by `train all` only when it reads the
        # SKB's valid questions better than the routes alone); else the schema's routes read against the
        # question's words, when one type clearly leads; else the prior's best guess; else the routes' best guess,
        # a type one step from the anchors ("Where does Lyon lie?" read Country 0.77, Subdivision 0.65, where the
        # SKB's most populous type, City, is the anchor's own); else the most populous type
        learned = self._learned_target(anchor_labels)
        reader = self._route_reader
        return (
            (learned if self.learned_for(anchor_labels) else None)
            or self.read_target(anchor_labels, frame)
            or learned
            or (reader.best_guess(frame, anchor_labels) if reader is not None else None)
            or max(self._context.label_counts, key=self._context.label_counts.__getitem__)
        )

    def _learned_target(self, anchor_labels: Sequence[str]) -> str | None:
        """The answer-type prior's choice for anchors of these types (None without a prior)."""
        prior = self._answer_types
        return prior.choose(anchor_labels, list(self._context.label_counts)) if prior is not None else None

    def learned_for(self, anchor_labels: Sequence[str]) -> bool:
        """Whether what training questions with anchors of these types asked for decides: a majority of them
        asked for one type (smoothed share at least MAJORITY). A spread base rate (questions generated evenly over
        a schema's templates ask for every type reachable from an anchor) says less than the question's words."""
        prior = self._answer_types
        return prior is not None and prior.share(anchor_labels, self._context.labels) >= MAJORITY

    def sure_target(self, anchor_labels: Sequence[str], frame: str, target: str) -> bool:
        """Two readings agree on a type the question does not name ("A patient with a variant in G has P: what is
        the diagnosis?"): training questions with such anchors mostly asked for it (`learned_for`), and the
        question's words lead to it along the schema's routes (`read_target`)."""
        return (
            self.learned_for(anchor_labels)
            and self._learned_target(anchor_labels) == target
            and self.read_target(anchor_labels, frame) == target
        )

    @property
    def route_reader(self) -> RouteReader | None:
        return self._route_reader

    def read_target(self, anchor_labels: Sequence[str], frame: str) -> str | None:
        """The type the question's words lead to from its anchors by the schema's routes (`route_reading`)."""
        return self._route_reader.target(frame, anchor_labels) if self._route_reader is not None else None

    def path(
        self, anchor_label: str, target_label: str, context_words: str, *, cue: str | None = None
    ) -> list[SchemaHop] | None:
        counts = self._context.pattern_counts
        step = hierarchy_step(anchor_label, counts, cue) if cue else None
        if step is None:
            path = shortest_meta_path(anchor_label, target_label, counts, context_words, self.relation_words)
            loop = self._named_self_relation(anchor_label, target_label, context_words)
            return [loop, *path] if loop is not None and path else path
        # "subtypes of X": down X's hierarchy first (directed), then on to the target as usual
        rest = (
            []
            if target_label == anchor_label
            else shortest_meta_path(anchor_label, target_label, counts, context_words, self.relation_words)
        )
        return None if rest is None else [step, *rest]

    def sure(self, path: Sequence[SchemaHop]) -> bool:
        return len(path) <= 2

    def _named_self_relation(self, anchor_label: str, target_label: str, context_words: str) -> SchemaHop | None:
        """The one relation of the anchor's type with itself whose *name* the words around the mention use
        ("languages of the countries bordering X": BORDERS), walked first on the way to another type; None when
        none or several are named. Names (and the schema's phrases for the relation) only: a description's words
        ("the two countries share a land border") are too common to decide a hop."""
        if target_label == anchor_label:
            return None  # the shortest path is that relation already
        words = stems(context_words)
        named = sorted(
            {
                relation
                for (a, relation, b) in self._context.pattern_counts
                if a == b == anchor_label and self.relation_words.named_by(relation, words) & words
            }
        )
        return SchemaHop(anchor_label, named[0], anchor_label) if len(named) == 1 else None


def _set_aside(table: EntityTable, rows: set[int]) -> EntityTable:
    """The table with the rows whose `id` is in `rows` in the context role: mentions, but no anchors."""
    if not rows:
        return table
    return EntityTable(
        tuple(
            dataclasses.replace(row, mention=row.mention.model_copy(update={"role": MentionRole.CONTEXT}))
            if id(row) in rows
            else row
            for row in table.rows
        )
    )


class HeuristicPlanner:
    name = "heuristic"

    def __init__(
        self,
        context: SkbContext,
        min_anchor_score: float = MIN_ANCHOR_SCORE,
        min_doc_anchor_score: float = MIN_DOC_ANCHOR_SCORE,
        answer_types: AnswerTypePrior | None = None,
        name_vocabulary: frozenset[str] | None = None,
        asked_type: AskedTypeModel | None = None,
        route_reader: RouteReader | None = None,
        name_shares: Callable[[str], Mapping[str, float]] | None = None,
        learned_loops: Mapping[str, LearnedLoop] | None = None,
    ) -> None:
        self._context = context
        self._name_shares = name_shares
        self._asked_type = asked_type
        self._min_score = {MatchMode.NAME: min_anchor_score, MatchMode.DOC: min_doc_anchor_score}
        self._routes = SchemaRoutes(context, answer_types, route_reader, learned_loops)
        self._name_vocabulary = name_vocabulary
        self._noise_words = frame_words(context)
        self._name_words = schema_name_words(context.schema)
        self._description_words = description_words(context.schema)

    def plan(
        self, question: str, table: EntityTable, check: PlanChecker, *, exclude_examples: Sequence[str] = ()
    ) -> PlanningOutcome:
        aside = self.context_rows(question, table)
        table = self.resolve_shared_names(question, table)
        plan = self.build(question, table)
        outcome = checked_outcome(self.name, plan, check)
        fallback = self._fallback(question, table, plan, check) if aside and outcome.plan is not None else None
        keyword_fallback = self._keyword_fallback(question, table, plan, check) if outcome.plan is not None else None
        notes = (
            [
                f"'{row.mention.text}' is named only outside the sentence that asks: when no target matches the "
                "whole plan, the plan without it runs"
                for row in aside
            ]
            if fallback is not None
            else []
        )
        # the plan built without the learned routes: where it differs, an anchor walks one (`learned_loop`); only
        # an anchor of the asked type can, so without one there is nothing to build again
        may_loop = self._routes.learned_loop(plan.target.type) is not None and any(
            anchor.type == plan.target.type for anchor in plan.anchors
        )
        unlooped = self.build(question, table, loops=False) if may_loop else plan
        looped_anchors = self._looped_anchors(plan, unlooped)
        looped = self.loop_notes(plan, looped_anchors)
        looped_anchor = None
        if looped and outcome.plan is not None:
            if fallback is None:
                # the learned route is a guess the question's words did not make ("Cystinosis-type disorders" are
                # named after it, and share no gene with it): the plan leaving the anchor to the text when no
                # target matches the whole plan
                fallback = unlooped if unlooped.anchors and check(unlooped).valid else None
                if fallback is not None:
                    looped = [
                        f"{note}; when no target matches the whole plan, the plan without it runs" for note in looped
                    ]
            first = looped_anchors[0]
            # "X-allelic diseases": a word of its own joins X to the asked type, a relation the schema has no name
            # for; "the X disorders", "X-type disorders" name a kind, which X itself may be
            said = self._joined_by_word(question, table, first.text)
            looped_anchor = first.var if fallback is not None and not said else None
        notes.extend(looped)
        notes.extend(self.relation_notes(question, plan))
        scores = self.asked_type(question, table)
        if scores:
            shown = ", ".join(f"{label} {p:.2f}" for label, p in sorted(scores.items(), key=lambda item: -item[1]))
            notes.append(f"asked type (fitted model): {shown}")
        notes.extend(self.slot_notes(question, table))
        notes.extend(self.context_type_notes(question, table))
        notes.extend(self.route_notes(question, table))
        notes.extend(self.unplanned_notes(table, plan))
        ordered = self.read_order(question, table, plan.target.type)
        if ordered is not None:
            way = "largest" if ordered.order.descending else "smallest"
            named = "the question's words name it" if ordered.named else f"the first quantity of {plan.target.type}"
            notes.append(f"ranked by {ordered.order.property}, {way} first: '{ordered.cue}' ({named})")
        if plan.name_contains:
            shown = ", ".join(f"'{word}'" for word in plan.name_contains)
            how = "quoted, framed or given as a name, or before the asked type's word"
            notes.append(f"targets whose name holds {shown} first ({how})")
        if keyword_fallback is not None:
            kept = {anchor.text for anchor in keyword_fallback.anchors}
            set_aside = ", ".join(f"'{anchor.text}'" for anchor in plan.anchors if anchor.text not in kept)
            notes.append(f"when no target holds the name keyword, the plan without the anchor {set_aside} runs")
        return dataclasses.replace(
            outcome,
            notes=(*outcome.notes, *notes),
            fallback=fallback,
            looped_anchor=looped_anchor,
            keyword_fallback=keyword_fallback,
        )

    def _fallback(self, question: str, table: EntityTable, plan: Plan, check: PlanChecker) -> Plan | None:
        """The plan without the anchors named only around the sentence that asks, when it differs and is valid:
        run when the whole plan matches no target (an aside's node has nothing to do with the answer, while a
        vignette's earlier sentences usually name what the answer has)."""
        narrowed = self.build(question, self.without_context(question, table))
        if narrowed == plan or not narrowed.anchors or not check(narrowed).valid:
            return None
        return narrowed

    def _keyword_fallback(self, question: str, table: EntityTable, plan: Plan, check: PlanChecker) -> Plan | None:
        """The plan with the anchors that a name keyword of `plan` holds set aside (a one-word mention before the
        asked type's word is both: "Which Myopia disorders cause X?"), when it differs, keeps the keyword and is
        valid: run when no target of `plan` holds the keyword. The answer's name says the word; its annotations
        need not hold that node (a disease named "Myopia 6" annotated with a more specific term only)."""
        keys = [phrase_key(word) for word in plan.name_contains]
        held = {
            id(row)
            for row in self._anchor_rows(table)
            if any(holds_words(key, phrase_key(row.mention.text)) for key in keys)
        }
        if not held:
            return None
        narrowed = self.build(question, _set_aside(table, held))
        if narrowed == plan or not narrowed.name_contains or not check(narrowed).valid:
            return None
        return narrowed

    def slot_notes(self, question: str, table: EntityTable) -> list[str]:
        """What the asked slot held when its word is no type word as the schema writes it (`asked_slot`)."""
        names = [row.mention.text for row in self._anchor_rows(table)]
        slot = asked_slot_word(question, self._context.schema, names)
        if slot is None:
            return []
        if slot.label is not None:
            return [f"asked type {slot.label}: '{slot.token}' shortens one of its words in the schema"]
        return [
            f"'{slot.token}' asks for a type in words the schema does not hold: no type word elsewhere in the "
            "question, hierarchy cue or role noun decides it"
        ]

    def unplanned_notes(self, table: EntityTable, plan: Plan) -> list[str]:
        """The linked anchor mentions the plan left out: no route from their type to the asked type that the
        schema and the question's words give ("X-allelic diseases": no word names a way from a disease back to
        diseases), or the entity is the answer itself. Only the text branch reads them then."""
        planned = {anchor.text for anchor in plan.anchors}
        keywords = [phrase_key(word) for word in plan.name_contains]  # names read as a keyword instead
        return [
            f"'{row.mention.text}' ({row.best.label}) is no anchor of the plan: no route to {plan.target.type} "
            "that the schema and the question's words give, or it is the answer itself; the text ranking reads it"
            for row in self._anchor_rows(table)
            if row.best is not None
            and row.mention.text not in planned
            and not any(holds_words(keyword, phrase_key(row.mention.text)) for keyword in keywords)
        ]

    def _joined_by_word(self, question: str, table: EntityTable, mention: str) -> bool:
        """Whether a word that frames nothing (no function, type or relation word of the schema) stands between the
        mention and the word that names the asked type, on either side."""
        asked, _ = self._ruled_target(question, table, self._routes)
        if asked is None:
            return False
        lowered, asked_word = question.lower(), asked[1]
        start, word = lowered.find(mention.lower()), lowered.find(asked_word.lower())
        if start < 0 or word < 0:
            return False
        gap = question[start + len(mention) : word] if word >= start else question[word + len(asked_word) : start]
        return any(w.lower() not in self._noise_words for w in _WORD.findall(gap))

    def _looped_anchors(self, plan: Plan, unlooped: Plan) -> list[Anchor]:
        """The anchors of `plan` that the plan built without learned routes (`unlooped`) leaves out: they walk
        the asked type's learned route (`learned_loop`)."""
        kept = {anchor.text for anchor in unlooped.anchors}
        return [anchor for anchor in plan.anchors if anchor.type == plan.target.type and anchor.text not in kept]

    def loop_notes(self, plan: Plan, looped: Sequence[Anchor]) -> list[str]:
        """The `looped` anchors, routed the way training questions with such a topic went (`learned_loop`)."""
        loop = self._routes.learned_loop(plan.target.type)
        if loop is None:
            return []
        return [
            f"'{anchor.text}' ({anchor.type}) reaches the asked type along {loop.signature}: the route {loop.questions} "
            f"of the Path-Bank's {loop.of} training questions from a {anchor.type} to {anchor.type} answers took first"
            for anchor in looped
        ]

    def route_notes(self, question: str, table: EntityTable) -> list[str]:
        """How the schema's routes read a question that names no type (`route_reading`): each reachable type's
        score, and whether one led by the margin."""
        reader = self._routes.route_reader
        anchor_rows = self._anchor_rows(table)
        mentions = [row.mention.text for row in table.rows]
        anchor_names = [row.mention.text for row in anchor_rows]
        named = target_mention(question, self._context.schema, anchor_names)
        unread = named is None and unread_asked_noun(question, self._context.schema, anchor_names)
        if (
            reader is None
            or named is not None
            or (not unread and self._hierarchy_asked(question, anchor_rows, mentions))
        ):
            return []
        labels = [row.best.label for row in anchor_rows if row.best is not None]
        scores = reader.scores(relevance_text(question, mentions), labels)
        if not scores:
            return []
        shown = ", ".join(f"{label} {score:.2f}" for label, score in sorted(scores.items(), key=lambda i: -i[1]))
        led = leading_type(scores, reader.margin)
        verdict = f"{led} leads by {reader.margin:g} or more" if led else f"none leads by {reader.margin:g}"
        if self._routes.learned_for(labels):
            verdict += "; not used: training questions with such anchors decide"
        return [f"asked type read from the words along the schema's relations: {shown} ({verdict})"]

    def relation_notes(self, question: str, plan: Plan) -> list[str]:
        """Why each hop walks its relation where the schema offers several between the same two types: the
        question's words that named it, or none (then the largest)."""
        types = {anchor.var: anchor.type for anchor in plan.anchors} | {plan.target.var: plan.target.type}
        for hop in plan.hops:
            types.setdefault(hop.source, hop.source_type or "")
            types.setdefault(hop.target, hop.target_type or "")
        words = self._routes.relation_words
        question_stems = stems(question)
        notes = []
        for hop in plan.hops:
            pair = {types.get(hop.source, ""), types.get(hop.target, "")}
            parallel = sorted(
                {rel for (a, rel, b) in self._context.pattern_counts if {a, b} == pair and rel != hop.relation}
            )
            if is_negative_relation(hop.relation) and parallel:
                notes.append(f"relation {hop.relation} over {', '.join(parallel)}: the question negates")
                continue
            parallel = [rel for rel in parallel if not is_negative_relation(rel)]  # taken only when negated
            if not parallel or "" in pair:
                continue
            named = sorted(
                (words.names.get(hop.relation, frozenset()) | words.descriptions.get(hop.relation, frozenset()))
                & question_stems
            )
            why = (
                f"the question's words ({', '.join(named)})"
                if named
                else "the largest; no word of the question names one"
            )
            notes.append(f"relation {hop.relation} over {', '.join(parallel)}: {why}")
        return notes

    def _is_the_answer(self, label: str, target_label: str, path: Sequence[SchemaHop] | None, frame: str) -> bool:
        """Whether a described (or alias-named) entity of the asked type is itself what is asked for: its type
        has no route to itself, or its only route is one hop along its type's own relation, which no word of the
        question names ("which countries border the country described as ..." names it; "which country is
        described as ..." does not)."""
        if label != target_label:
            return False
        if not path:
            return True
        if len(path) != 1 or path[0].source != path[0].target:
            return False
        return not self._routes.relation_words.named(path[0].relation, frame)

    @property
    def context(self) -> SkbContext:
        return self._context

    @property
    def has_asked_type_model(self) -> bool:
        return self._asked_type is not None

    def _anchor_rows(self, table: EntityTable) -> list[EntityRow]:
        return [
            row
            for row in table.rows
            if row.mention.role is MentionRole.ANCHOR
            and row.best is not None
            and row.best.score >= self._min_score[row.mention.match_mode]
        ]

    def evidence(self, question: str, table: EntityTable) -> AskedTypeEvidence:
        """What the question offers about its asked type (the asked-type model's features; also its training
        input, so fitting and planning read questions the same way), the rules' own reading among it."""
        return self._evidence(question, table, self._ruled_target(question, table, self._routes)[1])

    def _evidence(self, question: str, table: EntityTable, planned: str) -> AskedTypeEvidence:
        anchor_rows = self._anchor_rows(table)
        mentions = [row.mention.text for row in table.rows]
        anchor_labels = [row.best.label for row in anchor_rows if row.best is not None]
        return question_evidence(
            question,
            self._context.schema,
            mentions,
            anchor_labels,
            self._hierarchy_asked(question, anchor_rows, mentions),
            planned=planned,
            routed=self._routes.read_target(anchor_labels, relevance_text(question, mentions)),
        )

    def asked_type(self, question: str, table: EntityTable) -> dict[str, float]:
        """The asked-type model's probability per type ({} without a model)."""
        if self._asked_type is None:
            return {}
        return self._asked_type.probabilities(self.evidence(question, table))

    def _hierarchy_asked(self, question: str, anchor_rows: Sequence[EntityRow], mentions: list[str]) -> str | None:
        return _hierarchy_asked(
            question,
            anchor_rows,
            mentions,
            self._context.pattern_counts,
            self._routes.relation_words,
            self._description_words,
        )

    def _type_word_around(self, question: str, table: EntityTable, asked: tuple[str, str] | None) -> str | None:
        """The type whose hierarchy the asking sentence asks for, when the question's type word (`asked`) is said
        only in the sentences around it: that word is context ("Background: I read about rare diseases. What
        subtype of X ...?"), unless the hierarchy is said around it too ("... a form of X disease. Which one could
        it be?"). None when the rule does not apply."""
        if asked is None:
            return None
        mentions = [row.mention.text for row in table.rows]
        rows = self._anchor_rows(table)
        around = said_only_around(question, [asked[1], *(row.mention.text for row in rows)], mentions)
        if asked[1] not in around:
            return None
        asking = [row for row in rows if row.mention.text not in around]
        return self._hierarchy_asked(question, asking, mentions)

    def context_type_notes(self, question: str, table: EntityTable) -> list[str]:
        """Why a type word of the question was not the asked type (`_type_word_around`)."""
        names = [row.mention.text for row in self._anchor_rows(table)]
        asked = target_mention(question, self._context.schema, names)
        around = self._type_word_around(question, table, asked)
        if asked is None or around is None:
            return []
        return [
            f"'{asked[1]}' is said only around the sentence that asks, which asks for the hierarchy of a {around}: "
            f"the rules read {around} as the asked type"
        ]

    def _ruled_target(self, question: str, table: EntityTable, routes: Routes) -> tuple[tuple[str, str] | None, str]:
        """The rules' asked type: (the type word the question names, if any; the target type)."""
        anchor_rows = self._anchor_rows(table)
        mentions = [row.mention.text for row in table.rows]
        anchor_names = [row.mention.text for row in anchor_rows]
        asked = target_mention(question, self._context.schema, anchor_names)
        around = self._type_word_around(question, table, asked)
        if around is not None:
            return None, around
        if asked is not None:
            # "the capitals of the countries that ...": role nouns owning the type word ask for their own end, and
            # the named type is a station on the way
            before = _WORD.findall(question[: max(0, question.lower().find(asked[1].lower()))])
            owner = noun_chain(asked[0], before, [], self._context.pattern_counts, self._routes.relation_words)
            if owner is not None and owner != asked[0]:
                return asked, owner
        # a noun the schema cannot read in the asked slot ("which dx presenting with a subtype of X") is what the
        # question asks for: not X's hierarchy nor the role noun X owns, which only "which subtypes of X" or a
        # question with no noun would ask for; the schema's phrases may still say its type
        unread = asked is None and unread_asked_noun(question, self._context.schema, anchor_names)
        target_label = (
            asked[0]
            if asked
            else (None if unread else self._hierarchy_asked(question, anchor_rows, mentions))
            or phrase_asked(
                question,
                anchor_rows,
                mentions,
                self._context.pattern_counts,
                self._routes.relation_words,
                role_nouns=not unread,
                framing=self._description_words,
            )
            or routes.default_target(
                [row.best.label for row in anchor_rows if row.best is not None], relevance_text(question, mentions)
            )
        )
        return asked, target_label

    def build(self, question: str, table: EntityTable, routes: Routes | None = None, *, loops: bool = True) -> Plan:
        """The plan alone (pure given the table, the schema and `routes`; default: the schema's shortest paths).
        `loops`: an anchor of the asked type may walk the route training questions took (`learned_loop`)."""
        routes = routes or self._routes
        table = self.resolve_shared_names(question, table, routes)
        table = self.without_compound_names(question, table)
        schema = self._context.schema
        mentions = [row.mention.text for row in table.rows]
        anchor_rows = self._anchor_rows(table)
        asked, target_label = self._ruled_target(question, table, routes)
        learned = (
            self._asked_type.choose(self._evidence(question, table, target_label), self._context.labels)
            if self._asked_type is not None and routes is self._routes
            else None
        )
        if learned is not None and learned[0] != target_label:
            # the fitted evidence overrules the rules; the words that named the overruled type stay in the text
            target_label, asked = learned[0], None
        anchors: list[Anchor] = []
        hops: list[Hop] = []
        estimates: list[float] = []
        itself: list[EntityRow] = []  # anchors named by an alias that are the answer
        said: list[str] = []  # the words the hops say besides the mentions: hierarchy cues ("a more specific kind of")
        confident = asked is not None or routes.sure_target(
            [row.best.label for row in anchor_rows if row.best is not None],
            relevance_text(question, mentions),
            target_label,
        )
        # types the question names outside its mentions ("which conditions sharing one of its genes", "genes of
        # diseases with X"): stations on the way from an anchor to the target (for an anchor of the target's own
        # type, the way at all); not the type of another anchor, which the word more likely names ("... have
        # <phenotype> as a feature")
        anchored = {
            label
            for row in table.rows
            if row.mention.role is MentionRole.ANCHOR
            for label in (*row.mention.types, *([row.best.label] if row.best is not None else []))
        }
        via = [
            label
            for label in named_types(relevance_text(question, mentions), schema)
            if label != target_label and label not in anchored
        ]
        if (
            target_label not in anchored or self._role_nouns(_outside_named(question, table), target_label) >= 2
        ) and self._names_target_twice(question, table, target_label):
            # "which countries border the countries that speak X": the second word naming the asked type is a
            # station, reached from the anchor and left along the type's own relation the words name; so is the
            # second role noun of that relation, even from an anchor of the type ("the neighbours of X's
            # neighbours")
            via.append(target_label)
        # an anchor of the asked type cannot reach the target without the named type, so the type is its station;
        # the other anchors go their own way ("other diseases sharing a gene with X, with <phenotype>")
        if any(row.best is not None and row.best.label == target_label for row in anchor_rows):
            other_via: list[str] = []
        else:
            other_via = via
        for row in anchor_rows:
            assert row.best is not None
            described = row.mention.match_mode is MatchMode.DOC
            before, after = _mention_scope(
                question, row.mention.text, mentions, framing=self._description_words, described=described
            )
            # the words naming the asked type can name the relation into it too ("the capitals of X": CAPITAL_OF,
            # where "capital" is also a word for a city); they lie outside the mention's own few words
            context_words = " ".join(before + after + ([asked[1]] if asked else []))
            own_cue = mention_hierarchy_cue(" ".join(before), " ".join(after))
            cue = own_cue or asked_noun_cue(
                question, row.best.label, self._context.pattern_counts, self._routes.relation_words
            )
            if cue is not None and asked is not None:
                # the hierarchy words fill the mention's scope; the relation on to the asked type is said between
                # the type word and them ("syndromes that lack the symptoms that are a subtype of X")
                context_words = " ".join(
                    [context_words, *_onward_words(question, asked[1], row.mention.text, mentions)]
                )
            path = routes.path(row.best.label, target_label, context_words, cue=cue)
            # role nouns the mention owns say the first hops themselves ("the capitals of X's neighbours"); the
            # rest of the way to the target is the schema's
            scope = _mention_scope(
                question, row.mention.text, mentions, count=PHRASE_WINDOW, framing=self._description_words
            )
            walk, _ = noun_walk(row.best.label, *scope, self._context.pattern_counts, self._routes.relation_words)
            if walk:
                end = walk[-1].target
                rest = [] if end == target_label else routes.path(end, target_label, context_words)
                path = _after_walk(walk, rest) if rest is not None else path
            if path and path[0].source == path[0].target and path[0].outgoing is None:
                # a relation between two nodes of one type read both ways gave "what does X import" and "what
                # imports X" one answer set: the word order says which way
                words = self._routes.relation_words
                # a phrase of the schema right around the mention says it first; a wider window, as phrases run
                # to several words ("are a subtype of X")
                lead, trail = _mention_scope(
                    question,
                    row.mention.text,
                    mentions,
                    count=PHRASE_WINDOW,
                    framing=self._description_words,
                    described=described,
                )
                way = words.phrase_direction(path[0].relation, lead, trail)
                # else a role noun owned by the mention: "the capital of X", "X's parent terms"
                way = words.noun_direction(path[0].relation, lead, trail) if way is None else way
                way = words.direction(path[0].relation, before, after) if way is None else way
                if way is not None:
                    path = [dataclasses.replace(path[0], outgoing=way), *path[1:]]
            # a route that misses the type the question names goes through it instead (the schema's shortest
            # Phenotype -> Gene skips "diseases"; a Path-Bank's own Disease -> Disease route may run through
            # another type); an anchor of the asked type with a hierarchy cue walks its hierarchy instead, and a
            # described entity of the asked type is a near miss of the description's own type, left to the text
            # (a type the mention's role nouns reach is passed too: "X's neighbouring countries" names no station)
            passes = {hop.target for hop in (path or [])[:-1]} | {hop.target for hop in walk}
            stations = via if row.best.label == target_label else other_via
            if (row.best.label != target_label or not (described or cue)) and not passes.intersection(stations):
                legs = _LegWords(
                    question,
                    row.mention.text,
                    mentions,
                    schema,
                    context_words,
                    asked,
                    described,
                    self._description_words,
                    self._routes.relation_words,
                )
                if walk:  # the nouns' hops first, then on through the named type
                    onward = _via_route(routes, walk[-1].target, target_label, stations, legs, None)
                    path = _after_walk(walk, onward) if onward else path
                else:
                    path = _via_route(routes, row.best.label, target_label, stations, legs, cue) or path
                path = self._onward_directions(scope, path)
            frame = relevance_text(question, mentions)  # the question around its mentions and passages
            alias = row.names_best_by_alias
            loop = routes.learned_loop(target_label) if loops and row.best.label == target_label else None
            if not path and loop is not None and not (described or alias or cue):
                # a node of the asked type named with no way back to its type ("X-allelic diseases with P"): the
                # route most training questions with such a topic took
                path = list(loop.hops)
            if (described or alias) and not cue and self._is_the_answer(row.best.label, target_label, path, frame):
                # "which country is described as ...", "which country is the Hellenic Republic": the entity is
                # the answer, no hop; one named by an alias is the plan's target itself
                if alias:
                    itself.append(row)
                continue
            if not path:  # unreachable, or the target's own type without a self-relation: text only
                continue
            var = f"a{len(anchors) + 1}"
            anchors.append(
                Anchor(var=var, type=row.best.label, text=row.mention.text, match_mode=row.mention.match_mode)
            )
            hops.extend(self._hops(var, path, len(anchors)))
            if own_cue is not None:  # the mention's own words asked for the hierarchy the hops walk
                said += hierarchy_cue_phrases(" ".join(before), " ".join(after))
            estimates.append(self._candidates(row, path))
            confident = confident and row.best.score >= CONFIDENT_SCORE and routes.sure(path)
        if not anchors and itself:
            # the question asks which node an alias names: the plan is that anchor, no hop
            best = max(itself, key=lambda row: row.best.score if row.best is not None else 0.0)
            anchors.append(Anchor(var="t", type=target_label, text=best.mention.text, match_mode=MatchMode.NAME))
            estimates.append(1.0)
        # the sentences around the question that name no anchor ("Thanks a lot!") say nothing of the answer
        about = without_asides(question, [a.text for a in anchors])
        leftover = relevance_text(about, [a.text for a in anchors] + said + ([asked[1]] if asked else []))
        # content: a word no frame word lists, and (with the SKB's name vocabulary) one its names use ("my
        # daughter ... what could this be" leaves nothing a node's text could be rescored by)
        vocabulary = self._name_vocabulary
        has_content = any(
            w.lower() not in self._noise_words and (vocabulary is None or phrase_key(w) in vocabulary)
            for w in _WORD.findall(leftover)
        )
        text = leftover if has_content else ""
        if not anchors and not text:
            text = question  # nothing linked and nothing left: rank the target type by the whole question
        target_count = self._context.label_counts.get(target_label, 0)
        n_cand = round(min(estimates)) if estimates else target_count
        risk = Risk.HIGH if not anchors else Risk.LOW if confident else Risk.MEDIUM
        ordered = self.read_order(question, table, target_label)
        return Plan(
            anchors=tuple(anchors),
            hops=tuple(hops),
            target=Target(var="t", type=target_label),
            relevance_text=text,
            n_cand=max(0, min(n_cand, target_count)),
            risk=risk,
            order=ordered.order if ordered else None,
            name_contains=self._name_keywords(question, mentions, asked, target_label),
        )

    def _name_keywords(
        self, question: str, mentions: list[str], asked: tuple[str, str] | None, target_label: str
    ) -> tuple[str, ...]:
        """What the answer's name must hold: quoted keywords, those a word for a name frames ("whose name
        contains X") and those given as a name outright ("something called X"), then the unquoted words right
        before the asked type's word that few of the type's names hold (with the names' shares)."""
        framed = tuple(question[start:end] for start, end in framed_keywords(question, self._name_words))
        called = tuple(question[start:end] for start, end in called_keywords(question))
        quoted = tuple(dict.fromkeys(quoted_keywords(question, mentions) + framed + called))[:MAX_KEYWORDS]
        if asked is None or self._name_shares is None:
            return quoted
        named = [text for text in mentions if text.lower() != asked[1].lower()]  # the asked words are a mention too
        before = modifier_keywords(question, asked[1], named, self._name_shares(target_label), self._noise_words)
        return tuple(dict.fromkeys(quoted + before))[:MAX_KEYWORDS]

    def _names_target_twice(self, question: str, table: EntityTable, target_label: str) -> bool:
        """Whether the question names the asked type by two words outside its named things (the extractor's
        target mentions are such words; so is a role noun of one of the type's relations with itself: "the
        neighbours of the countries that ...") and one of the type's relations with itself by the words of its
        name ("border"): the walk ends with that relation."""
        named = [row.mention.text for row in table.rows if row.mention.role is not MentionRole.TARGET]
        frame = relevance_text(question, named)
        words = self._routes.relation_words
        role_nouns = self._role_nouns(frame, target_label)
        if type_word_count(question, target_label, self._context.schema, named) + role_nouns < 2:
            return False
        return any(
            a == b == target_label and words.score(relation, stems(frame)) >= NAME_WEIGHT
            for (a, relation, b) in self._context.pattern_counts
        )

    def _onward_directions(
        self, scope: tuple[list[str], list[str]], path: list[SchemaHop] | None
    ) -> list[SchemaHop] | None:
        """A later hop of a route along a relation within one type, read both ways, directed by a phrase or role
        noun of that relation right around the mention, when the first hop walks another relation: nested
        wording puts the outer clause's words next to the inner clause's last word ("the sub-regions that
        include Nigeria *are a division of* what": the sub-regions are the subject)."""
        if not path or len(path) < 2:
            return path
        words = self._routes.relation_words
        lead, trail = scope  # the mention's phrase window
        directed = list(path)
        for index, hop in enumerate(path[1:], start=1):
            if hop.source != hop.target or hop.outgoing is not None or hop.relation == path[0].relation:
                continue
            way = words.phrase_direction(hop.relation, lead, trail)
            way = words.noun_direction(hop.relation, lead, trail) if way is None else way
            if way is not None:
                directed[index] = dataclasses.replace(hop, outgoing=way)
        return directed

    def _role_nouns(self, frame: str, target_label: str) -> int:
        """How many role nouns of one of the asked type's relations with itself `frame` (the words outside the
        question's named things, `_outside_named`) says ("the neighbours of the neighbours of X": two)."""
        loops = [relation for (a, relation, b) in self._context.pattern_counts if a == b == target_label]
        return max((self._routes.relation_words.nouns_said(relation, frame) for relation in loops), default=0)

    def read_order(self, question: str, table: EntityTable, target_label: str) -> ReadOrder | None:
        """A superlative outside the mentions, over a quantity the target type holds ("most populous city")."""
        frame = relevance_text(question, [row.mention.text for row in table.rows])
        return read_order(frame, self._context.quantity_properties.get(target_label, ()))

    def context_rows(self, question: str, table: EntityTable) -> list[EntityRow]:
        """The anchor rows named only outside the sentence that asks, when it names anchors of its own
        (`asking_sentence`): an aside ("Leaving X aside for now. Which ...?") is no part of the conjunction."""
        rows = self._anchor_rows(table)
        context = context_mentions(question, [row.mention.text for row in rows])
        return [row for row in rows if row.mention.text in context]

    def without_context(self, question: str, table: EntityTable) -> EntityTable:
        """The table with its context rows (`context_rows`) in the context role: no anchors, but still mentions
        (their words name no asked type and no type on the way: "Not Stokes County, ... Which country ...")."""
        return _set_aside(table, {id(row) for row in self.context_rows(question, table)})

    def without_compound_names(self, question: str, table: EntityTable) -> EntityTable:
        """The table with the mentions that together spell a name keyword before the asked type's word or one
        given as a name outright ("something called X"), or are a part of one, in the context role ("the
        *parkinsonism-dystonia* disorders with X" asks for disorders so named, not for a conjunction of parkinsonism
        and dystonia, which their annotations need not hold both of; "the *early-onset* disorders" for no phenotype
        "Onset")."""
        rows = self._anchor_rows(table)
        keywords = [question[start:end] for start, end in called_keywords(question)]
        asked = target_mention(question, self._context.schema, [row.mention.text for row in rows])
        if asked is not None and self._name_shares is not None:
            named = [row.mention.text for row in table.rows if row.mention.text.lower() != asked[1].lower()]
            shares = self._name_shares(asked[0])
            keywords += modifier_keywords(question, asked[1], named, shares, self._noise_words)
        aside: set[int] = set()
        for keyword in keywords:
            inside = [row for row in rows if row.mention.text.lower() in keyword.lower()]
            # two mentions spell it, or one is a part of it ("onset" of "early-onset"), not all of it ("spastic")
            if len(inside) > 1 or any(len(row.mention.text) < len(keyword) for row in inside):
                aside.update(id(row) for row in inside)
        return _set_aside(table, aside)

    def resolve_shared_names(self, question: str, table: EntityTable, routes: Routes | None = None) -> EntityTable:
        """The table with each anchor whose name several types share (exact links that tie) given the type the
        question means (`shared_names`): a type word next to the name, else the better route to the asked type."""
        routes = routes or self._routes
        schema = self._context.schema
        tied = {
            i: labels
            for i, row in enumerate(table.rows)
            if row.mention.role is MentionRole.ANCHOR
            and row.mention.match_mode is MatchMode.NAME
            and row.preferred is None
            and len(labels := tied_types(row)) > 1
        }
        if not tied:
            return table
        rows = list(table.rows)
        anchors = [row.mention.text for row in rows if row.mention.role is MentionRole.ANCHOR]
        asked = target_mention(question, schema, anchors)
        for i, labels in list(tied.items()):
            named = named_type_near(question, rows[i].mention.text, labels, schema, asked[1] if asked else None)
            if named is not None:
                rows[i] = dataclasses.replace(rows[i], preferred=named)
                del tied[i]
        if not tied:
            return EntityTable(tuple(rows))
        target = self._ruled_target(question, EntityTable(tuple(rows)), routes)[1]
        mentions = [row.mention.text for row in rows]
        frame = relevance_text(question, mentions)
        words = self._routes.relation_words

        for i, labels in list(tied.items()):
            # a phrase of the schema right around the name says which end of a relation into the asked type it
            # is ("Which phenotypes are a feature of <a disease and a phenotype's shared name>?")
            lead, trail = _mention_scope(
                question, rows[i].mention.text, mentions, count=PHRASE_WINDOW, framing=self._description_words
            )
            phrased = [
                label
                for label in labels
                if target in phrase_reached(label, lead, trail, self._context.pattern_counts, words)
            ]
            if len(phrased) == 1:
                rows[i] = dataclasses.replace(rows[i], preferred=phrased[0])
                del tied[i]

        def route_key(label: str) -> tuple[int, int] | None:
            """(a relation on the way is named by the words, minus the hops); None without a route."""
            path = routes.path(label, target, frame)
            if not path:
                return None
            return (int(any(words.named(hop.relation, frame) for hop in path)), -len(path))

        for i, labels in tied.items():
            routed = better_routed(labels, route_key)
            if routed is not None:
                rows[i] = dataclasses.replace(rows[i], preferred=routed)
        return EntityTable(tuple(rows))

    @staticmethod
    def _hops(anchor_var: str, path: list[SchemaHop], anchor_number: int) -> list[Hop]:
        variables = [anchor_var] + [f"x{anchor_number}_{i}" for i in range(1, len(path))] + ["t"]
        # Only intermediates get a type hint: anchors and the target are typed by the plan already.
        last = len(path) - 1
        return [
            Hop(
                source=variables[i],
                relation=step.relation,
                target=variables[i + 1],
                source_type=step.source if i > 0 else None,
                target_type=step.target if i < last else None,
                direction=_DIRECTIONS[step.outgoing],
            )
            for i, step in enumerate(path)
        ]

    def _candidates(self, row: EntityRow, path: list[SchemaHop]) -> float:
        """The best binding's degree, then each later hop's average fan-out from its source type."""
        assert row.best is not None
        estimate = float(row.best.degree)
        for step in path[1:]:
            edges = sum(
                count
                for (a, rel, b), count in self._context.pattern_counts.items()
                if rel == step.relation and {a, b} == {step.source, step.target}
            )
            estimate *= edges / max(1, self._context.label_counts.get(step.source, 1))
        return estimate if math.isfinite(estimate) else 0.0


def _onward_words(question: str, type_words: str, mention: str, others: Sequence[str]) -> list[str]:
    """The words after the words naming the asked type and before `mention`, from the end of the last other
    mention between them: the clause that joins the asked type to the mention's leg. Empty when the type is
    named after the mention."""
    lowered = question.lower()
    start, position = lowered.find(type_words.lower()), lowered.find(mention.lower())
    if start < 0 or position < 0 or start >= position:
        return []
    left = start + len(type_words)
    for other in others:
        at = lowered.find(other.lower())
        if other.lower() != mention.lower() and at >= 0 and left <= at + len(other) <= position:
            left = at + len(other)
    return _WORD.findall(question[left:position])


def phrase_asked(
    question: str,
    anchor_rows: Sequence[EntityRow],
    mentions: list[str],
    patterns: Iterable[tuple[str, str, str]],
    words: RelationWords,
    *,
    role_nouns: bool = True,
    framing: frozenset[str] = DESCRIPTION_WORDS,
) -> str | None:
    """For a question that names no type, the type at the other end of a relation one of the schema's phrases
    says right around an anchor ("What is spoken in Peru?": the inverse phrase of Country-HAS_LANGUAGE->Language
    just before a country), or (with `role_nouns`) one of its role nouns the anchor owns that ends the question
    ("Who are the neighbours of Laos?", "What is Peru's capital?"), when the phrases and nouns around the anchors
    reach one type only."""
    reached: set[str] = set()
    for row in anchor_rows:
        if row.best is None:
            continue
        label = row.best.label
        lead, trail = _mention_scope(question, row.mention.text, mentions, count=PHRASE_WINDOW, framing=framing)
        reached |= phrase_reached(label, lead, trail, patterns, words)
        owned = noun_chain(label, lead, trail, patterns, words) if role_nouns else None
        if owned is not None:
            reached.add(owned)
    return next(iter(reached)) if len(reached) == 1 else None


def phrase_reached(
    label: str,
    before: Sequence[str],
    after: Sequence[str],
    patterns: Iterable[tuple[str, str, str]],
    words: RelationWords,
) -> set[str]:
    """The types at the other end of the relations one of the schema's phrases right around a mention of type
    `label` says, the way it says them; a relation worded alike both ways ("is linked to", "borders") still
    reaches the other end of a pair."""
    reached = set()
    for source, relation, target in patterns:
        ways = words.phrase_ways(relation, before, after) if label in (source, target) else frozenset()
        if True in ways and source == label:
            reached.add(target)
        if False in ways and target == label:
            reached.add(source)
    return reached


def noun_walk(
    label: str,
    before: Sequence[str],
    after: Sequence[str],
    patterns: Iterable[tuple[str, str, str]],
    words: RelationWords,
) -> tuple[list[SchemaHop], bool]:
    """The hops a chain of the schema's role nouns owned by an anchor of type `label` says, innermost first:
    "X's neighbours' capitals", "the capitals of the neighbours of X" (X's neighbours are countries, their
    capitals cities: BORDERS, then CAPITAL_OF into the city end), each directed by the end its noun names (not
    when both ends have it: a neighbour); and whether the chain ends the words around the mention (nothing
    follows it: "What are X's neighbours?", not "What do X's neighbours speak?"). The chain stops at a noun that
    leaves the type open."""
    patterns = list(patterns)

    def step(current: str, said: list[str], start: int) -> tuple[SchemaHop, int] | None:
        found = {
            (rel, source if source_end else target, not source_end, taken)
            for relation, source_end, taken in words.nouns_at(said, start)
            for source, rel, target in patterns
            if rel == relation and (target if source_end else source) == current
        }
        if len({(rel, reached, taken) for rel, reached, _, taken in found}) != 1:
            return None
        relation, reached, outgoing, taken = next(iter(found))
        ways = {way for *_, way, _ in found}
        return SchemaHop(current, relation, reached, outgoing if len(ways) == 1 else None), taken

    hops: list[SchemaHop] = []
    current, ends = label, True
    trail = [stem(word.lower()) for word in after]
    at = 1 if trail[:1] == ["s"] else 0  # "X's Ns": the possessive's s is a word of its own
    while at < len(trail):
        taken = step(current, trail, at)
        if taken is None:
            ends = False  # words after the mention that are no owned noun: a phrase or a station follows
            break
        hops.append(taken[0])
        current = taken[0].target
        at += taken[1]
        at += 1 if trail[at : at + 1] == ["s"] else 0
    lead = [stem(word.lower()) for word in before]
    # "the Ns of X's Ms speak ..." is no chain: the trail's nouns are the subject of what follows them
    read_lead = ends or not hops
    while read_lead:
        end = len(lead) - (1 if lead[-1:] == ["the"] else 0)
        if end < 2 or lead[end - 1] != "of":
            break
        outer = next(
            (
                (found, start)
                for start in range(max(0, end - 5), end - 1)
                if (found := step(current, lead[: end - 1], start)) is not None and start + found[1] == end - 1
            ),
            None,
        )
        if outer is None:
            break
        (hop, _), start = outer
        hops.append(hop)
        current = hop.target
        lead = lead[:start]
    return hops, ends


def _outside_named(question: str, table: EntityTable) -> str:
    """The question without the things it names (its target mentions stay: they are type words)."""
    return relevance_text(
        question, [row.mention.text for row in table.rows if row.mention.role is not MentionRole.TARGET]
    )


def _after_walk(walk: list[SchemaHop], rest: list[SchemaHop]) -> list[SchemaHop]:
    """The role nouns' hops, then the rest of the way without a first hop along the nouns' own relation within
    one type (the words name it, so the schema's route walks it first: it is walked already)."""
    if rest and rest[0].source == rest[0].target and rest[0].relation == walk[-1].relation:
        rest = rest[1:]
    return [*walk, *rest]


def noun_chain(
    label: str,
    before: Sequence[str],
    after: Sequence[str],
    patterns: Iterable[tuple[str, str, str]],
    words: RelationWords,
) -> str | None:
    """The type a chain of role nouns owned by an anchor reaches when it ends the words around the mention
    (`noun_walk`); None when there is none or words follow it."""
    hops, ends = noun_walk(label, before, after, patterns, words)
    return hops[-1].target if hops and ends else None


def _hierarchy_asked(
    question: str,
    anchor_rows: Sequence[EntityRow],
    mentions: list[str],
    counts: Mapping[tuple[str, str, str], int],
    words: RelationWords,
    framing: frozenset[str] = DESCRIPTION_WORDS,
) -> str | None:
    """For a question that names no type, the type of the first anchor whose own words ask for its hierarchy
    ("which kind of X ...", "a more specific form of X?"), or whose hierarchy the asked noun is ("X: which
    *subtype* ..."): a kind of X is of X's type. Not a kind of X said outside the asking words while an anchor of
    another type is named too ("My child carries a G mutation and shows some form of X. What could it be?"):
    that kind is one more constraint on what joins both, and the other evidence says what is asked."""
    labels = {row.best.label for row in anchor_rows if row.best is not None}
    for row in anchor_rows:
        if row.best is None or row.mention.match_mode is MatchMode.DOC:
            continue
        before, after = _mention_scope(question, row.mention.text, mentions, framing=framing)
        if mention_hierarchy_cue(" ".join(before), " ".join(after)) is not None and (
            labels == {row.best.label} or in_asking_slot(question, row.mention.text, mentions)
        ):
            return row.best.label
        if asked_noun_cue(question, row.best.label, counts, words):
            return row.best.label
    return None


# "which subtype", "what parent terms": the words right after the word that asks
_ASKING = re.compile(r"\b(which|what)\s+((?:[\w'-]+\s*){1,4})", re.IGNORECASE)


def asked_noun_cue(
    question: str, label: str, counts: Mapping[tuple[str, str, str], int], words: RelationWords
) -> str | None:
    """The hierarchy ("down" or "up") the asked noun names when it is a role noun of one of `label`'s relations
    to itself ("Cataract: which *subtype* ...", "which *parent term* of X": the schema's nouns for the ends of IS_A,
    stored child to parent, so a source noun goes down); None without one, or when the relation's name does not
    say which way it is stored."""
    found = _ASKING.search(question)
    if found is None:
        return None
    said = [stem(word.lower()) for word in _WORD.findall(found.group(2))]
    for relation, source_end, _ in words.nouns_at(said, 0):
        if (label, relation, label) not in counts:
            continue
        child_to_parent = stored_child_to_parent(relation)
        if child_to_parent is not None:
            return "down" if source_end == child_to_parent else "up"
    return None


@dataclasses.dataclass(frozen=True)
class _LegWords:
    """The words each leg of a route through a named type reads to choose its relations. The leg from the anchor
    reads the mention's scope on the anchor's side of the type word; the leg on to the target the other side and
    the words naming the asked type, and the anchor's scope too when the first leg had no relation to choose
    ("which phenotypes do the diseases that G is associated with lack": "lack" is the second leg's), and the words
    after the mention that belong to the outer clause ("which features do the diseases that have X lack": the
    type word first, the words between it and X choosing the first leg's relation). Without the type word both
    read the mention's scope, as a direct route does."""

    question: str
    mention: str
    mentions: list[str]
    schema: SkbSchema
    context_words: str
    asked: tuple[str, str] | None
    described: bool
    description_words: frozenset[str]
    relation_words: RelationWords

    def there(self, station: str, label: str) -> str:
        sides = sides_of_type_word(self.question, station, self.schema, self.mentions, self.mention)
        if sides is None:
            return self.context_words
        return " ".join(self._scope(sides[0], station, label)[0])

    def _scope(self, side: str, station: str, label: str) -> tuple[list[str], list[str]]:
        """(the words the leg from the anchor reads, the words after the mention that belong to the outer clause,
        read by the leg on to the target). When the type word comes first ("the diseases that have X lack ...")
        and the words between it and the mention choose this leg's relation, the words after the mention are the
        outer clause's; otherwise ("the diseases that X lacks") they are the leg's own."""
        before, after = _mention_scope(
            side, self.mention, self.mentions, framing=self.description_words, described=self.described
        )
        if self.question.endswith(side) and after and self._chooses(" ".join(before), label, station):
            return before, after
        return before + after, []

    def _chooses(self, words: str, label: str, station: str) -> bool:
        """Whether `words` negate or name a relation joining `label` and `station`."""
        joining = self._joining(label, station)
        return negates(words) or any(self.relation_words.written(relation, words.split()) for relation in joining)

    def _joining(self, a: str, b: str) -> set[str]:
        """The schema's relations between types `a` and `b` (either way)."""
        ends = {a, b}
        return {r.type for r in self.schema.relation_types for pair in r.pairs if {pair.source, pair.target} == ends}

    def onward(self, station: str, label: str, there: Sequence[SchemaHop]) -> str:
        sides = sides_of_type_word(self.question, station, self.schema, self.mentions, self.mention)
        if sides is None:
            return self.context_words
        words = [
            relevance_text(sides[1], self.mentions),
            *([self.asked[1]] if self.asked else []),
            *self._scope(sides[0], station, label)[1],
        ]
        if not any(self._choice(hop) for hop in there):
            words.append(self.context_words)
        return " ".join(words)

    def _choice(self, hop: SchemaHop) -> bool:
        """Whether the schema joins the hop's two types by more than one relation."""
        return len(self._joining(hop.source, hop.target)) > 1


def _via_route(
    routes: Routes, label: str, target_label: str, via: Sequence[str], words: _LegWords, cue: str | None
) -> list[SchemaHop] | None:
    """From an anchor through the first named type that joins both ways: "genes of diseases with X" is
    X -> Disease -> Gene, "diseases sharing a gene with X" is X -> Gene -> Disease (the plan runner drops X
    itself from the answers); the anchor's hierarchy cue applies to the first leg, and each leg chooses its
    relations by its own words (`_LegWords`)."""
    for middle in via:
        there = routes.path(label, middle, words.there(middle, label), cue=cue)
        back = routes.path(middle, target_label, words.onward(middle, label, there or []))
        if there and back:
            return [*there, *back]
    return None


# A hop walks from its source variable to its target variable, so walking the stored direction is "out".
_DIRECTIONS = {True: Direction.OUT, False: Direction.IN, None: Direction.ANY}


def checked_outcome(planner: str, plan: Plan, check: PlanChecker) -> PlanningOutcome:
    """One attempt: the plan as built, validated against the live graph."""
    verdict = check(plan)
    attempt = PlanAttempt(plan.to_json(), 0.0, plan, verdict.errors)
    if verdict.valid:
        return PlanningOutcome(planner, plan, (attempt,))
    return PlanningOutcome(planner, None, (attempt,), f"the {planner} plan is invalid: " + "; ".join(verdict.errors))
