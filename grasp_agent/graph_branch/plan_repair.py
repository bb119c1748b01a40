"""Mechanical repairs of LLM plans before validation, each reported.

Small planners get the shape right and the details wrong in two recurring ways: a hop names a relation that
does not join its two (known) end types, and the same anchor is listed twice. Both have one sensible fix
the schema determines, so they are fixed here rather than by resampling; anything else is left to
`grasp.plan.validate` and the retry loop.
"""

from __future__ import annotations

from grasp_agent.graph_branch.plan import Anchor, Hop, Plan
from grasp_agent.graph_branch.schema_paths import is_negative_relation


def _relations_between(a: str, b: str, counts: dict[tuple[str, str, str], int]) -> dict[str, int]:
    found: dict[str, int] = {}
    for (source, relation, target), count in counts.items():
        if {source, target} == {a, b}:
            found[relation] = found.get(relation, 0) + count
    return found


def _fix_relation(hop: Hop, types: dict[str, str], counts: dict[tuple[str, str, str], int]) -> tuple[Hop, str | None]:
    a = hop.source_type or types.get(hop.source)
    b = hop.target_type or types.get(hop.target)
    if a is None or b is None:
        return hop, None
    options = _relations_between(a, b, counts)
    if not options or hop.relation in options:
        return hop, None
    # keep the planner's polarity: a negative relation it chose stays negative if one exists
    wanted = [r for r in options if is_negative_relation(r) == is_negative_relation(hop.relation)] or list(options)
    relation = max(wanted, key=lambda r: (options[r], r))
    note = f"hop {hop.source}-{hop.target}: {hop.relation} does not join {a} and {b}; used {relation}"
    return hop.model_copy(update={"relation": relation}), note


def repair_plan(plan: Plan, counts: dict[tuple[str, str, str], int]) -> tuple[Plan, list[str]]:
    """The plan with duplicate anchors merged and wrong hop relations replaced, plus one note per repair."""
    notes: list[str] = []
    kept: list[Anchor] = []
    renamed: dict[str, str] = {}
    for anchor in plan.anchors:
        twin = next((k for k in kept if (k.type, k.text.lower()) == (anchor.type, anchor.text.lower())), None)
        if twin is None:
            kept.append(anchor)
        else:
            renamed[anchor.var] = twin.var
            notes.append(f"anchor {anchor.var} repeats {twin.var} ({anchor.type} '{anchor.text}'); merged")
    types = {anchor.var: anchor.type for anchor in kept} | {plan.target.var: plan.target.type}
    hops: list[Hop] = []
    for hop in plan.hops:
        hop = hop.model_copy(update={"source": renamed.get(hop.source, hop.source),
                                     "target": renamed.get(hop.target, hop.target)})
        hop, note = _fix_relation(hop, types, counts)
        if note:
            notes.append(note)
        if hop not in hops:
            hops.append(hop)
    if not notes:
        return plan, []
    return plan.model_copy(update={"anchors": tuple(kept), "hops": tuple(hops)}), notes
