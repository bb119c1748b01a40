"""Meta-paths read off a GRASP plan: AdaPath without its bank (`adapath-nobank`), where the planner, not the
training queries, says which kind of path to follow.

A plan's hops may be undirected and its intermediate types implicit, so each anchor-to-target chain is
walked over the schema: a hop from type A over relation R reaches the types R joins A to, in the direction(s)
the schema stores (only the hop's own direction when it has one). Every consistent reading is a meta-path (an
undirected self-relation such as IS_A gives two, up and down); at most `max_readings` per anchor, in a stable order.
"""

from __future__ import annotations

from collections import deque

from grasp_agent.adapath.metapath import MAX_HOPS, MetaPath, MetaPathStep
from grasp_agent.graph_branch.plan import Hop, Plan
from grasp_agent.skb.schema import SkbSchema

MAX_READINGS = 8


def chain(plan: Plan, start: str) -> list[Hop] | None:
    """The hops from variable `start` to the target, shortest first found; None when they do not connect."""
    previous: dict[str, tuple[str, Hop] | None] = {start: None}
    queue = deque([start])
    while queue:
        variable = queue.popleft()
        if variable == plan.target.var:
            hops: list[Hop] = []
            while (link := previous[variable]) is not None:
                variable, hop = link
                hops.append(hop)
            return hops[::-1]
        for hop in plan.hops:
            for here, there in ((hop.source, hop.target), (hop.target, hop.source)):
                if here == variable and there not in previous:
                    previous[there] = (variable, hop)
                    queue.append(there)
    return None


def step_readings(
    schema: SkbSchema, from_label: str, hop: Hop, walking_forward: bool, to_label: str | None
) -> list[MetaPathStep]:
    """The ways to walk `hop` from a node of `from_label`: per stored pair, along or against it."""
    declared = hop.target_type if walking_forward else hop.source_type
    wanted = to_label or declared
    here = hop.source if walking_forward else hop.target
    stored_from_here = hop.stored_from(here)
    steps = []
    for pair in schema.relation_type(hop.relation).pairs:
        if pair.source == from_label and (wanted is None or pair.target == wanted) and stored_from_here is not False:
            steps.append(MetaPathStep(hop.relation, True, pair.target))
        if pair.target == from_label and (wanted is None or pair.source == wanted) and stored_from_here is not True:
            steps.append(MetaPathStep(hop.relation, False, pair.source))
    return list(dict.fromkeys(steps))


def plan_meta_paths(plan: Plan, schema: SkbSchema, max_readings: int = MAX_READINGS) -> list[MetaPath]:
    """Every anchor's chain to the target as meta-paths (1-3 hops), distinct, in anchor order."""
    found: list[MetaPath] = []
    for anchor in plan.anchors:
        hops = chain(plan, anchor.var)
        if not hops or len(hops) > MAX_HOPS:
            continue
        readings: list[tuple[MetaPathStep, ...]] = [()]
        variable, label = anchor.var, anchor.type
        for index, hop in enumerate(hops):
            forward = hop.source == variable
            last = index == len(hops) - 1
            extended: list[tuple[MetaPathStep, ...]] = []
            for reading in readings:
                here = reading[-1].label if reading else label
                options = step_readings(schema, here, hop, forward, plan.target.type if last else None)
                extended.extend((*reading, step) for step in options)
            readings = extended[:max_readings]
            variable = hop.target if forward else hop.source
        found.extend(MetaPath(anchor.type, reading) for reading in readings)
    return list(dict.fromkeys(found))
