"""Mechanical repairs of LLM plans before validation, each reported.

Small planners get the shape right and the details wrong in a few recurring ways, each with one fix the
schema determines:
- a hop names a relation that does not join its two (known) end types -> the relation that does;
- the same anchor is listed twice (e.g. once per match mode) -> merged;
- after merging, a hop joins a variable to itself, or repeats a pair of variables -> dropped;
- the target is in no hop while one variable that is neither an anchor nor the target is (the planner named
  the answer twice, e.g. `t` and `gene`) -> that variable renamed to the target, unless its stated type differs;
- an anchor no hop mentions -> joined to the target directly, when the schema has a relation for that pair.
Anything else is left to `grasp.plan.validate` and the retry loop.
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
        hop = hop.model_copy(
            update={"source": renamed.get(hop.source, hop.source), "target": renamed.get(hop.target, hop.target)}
        )
        if hop.source == hop.target:
            notes.append(f"hop {hop.source}-{hop.target} ({hop.relation}) joins a variable to itself; dropped")
            continue
        if any({hop.source, hop.target} == {other.source, other.target} for other in hops):
            notes.append(f"hop {hop.source}-{hop.target} ({hop.relation}) repeats that pair of variables; dropped")
            continue
        hop, note = _fix_relation(hop, types, counts)
        if note:
            notes.append(note)
        hops.append(hop)
    hops = _rename_dangling_target(hops, {anchor.var for anchor in kept}, plan, types, counts, notes)
    joined = {var for hop in hops for var in (hop.source, hop.target)}
    for anchor in kept:
        if anchor.var in joined or anchor.var == plan.target.var:
            continue
        options = _relations_between(anchor.type, plan.target.type, counts)
        if options:
            relation = max(
                (r for r in options if not is_negative_relation(r)),
                key=lambda r: (options[r], r),
                default=max(options, key=lambda r: (options[r], r)),
            )
            hops.append(Hop(source=anchor.var, relation=relation, target=plan.target.var))
            notes.append(f"anchor {anchor.var} had no hop; joined to {plan.target.var} by {relation}")
    if not notes:
        return plan, []
    return plan.model_copy(update={"anchors": tuple(kept), "hops": tuple(hops)}), notes


def _rename_dangling_target(
    hops: list[Hop],
    anchors: set[str],
    plan: Plan,
    types: dict[str, str],
    counts: dict[tuple[str, str, str], int],
    notes: list[str],
) -> list[Hop]:
    target = plan.target
    mentioned = {var for hop in hops for var in (hop.source, hop.target)}
    others = mentioned - anchors - {target.var}
    if target.var in mentioned or len(others) != 1:
        return hops
    (dangling,) = others
    stated = {hop.source_type for hop in hops if hop.source == dangling} | {
        hop.target_type for hop in hops if hop.target == dangling
    }
    if stated - {None, target.type}:
        return hops  # it says it is something else: not the answer under another name
    notes.append(
        f"variable {dangling} stands where the target {target.var} ({target.type}) belongs, which no hop "
        f"mentioned; renamed to {target.var}"
    )
    renamed = []
    for hop in hops:
        hop = hop.model_copy(
            update={
                "source": target.var if hop.source == dangling else hop.source,
                "target": target.var if hop.target == dangling else hop.target,
            }
        )
        hop, note = _fix_relation(hop, types, counts)
        if note:
            notes.append(note)
        renamed.append(hop)
    return renamed
