"""Plans and witness paths drawn as small graphs: pyvis (vis-network) pages with every script inlined, so they
render without internet, embedded in the app as an iframe `srcdoc`.

Pure: a plan or a witness in, an HTML string out.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pyvis.network import Network

from grasp_agent.graph_branch.plan import Plan
from grasp_agent.graph_branch.ranking import witness_paths

GRAPH_HEIGHT_PX = 320
ROLE_COLORS = {"anchor": "#4c9be8", "hop": "#b0b0b0", "target": "#e8834c"}
# pyvis's template links Bootstrap from a CDN whatever cdn_resources says; the graph does not need it, and a
# page that fetches from the internet is neither offline nor private.
_REMOTE_TAG = re.compile(
    r"<(?:link|script)\b[^>]*?\b(?:href|src)\s*=\s*\"https?://[^\"]*\"[^>]*>(?:\s*</script>)?",
    re.IGNORECASE | re.DOTALL,
)

# Chromium lays out an iframe out of view before showing it; fit the drawing once shown and on every resize.
_FIT_SCRIPT = (
    '<script>network.once("afterDrawing", function () { network.fit(); });'
    ' window.addEventListener("resize", function () { network.fit(); });</script>'
)


def new_network() -> Network:
    net = Network(height=f"{GRAPH_HEIGHT_PX - 20}px", width="100%", directed=True, cdn_resources="in_line")
    net.set_options(
        '{"layout": {"hierarchical": {"enabled": true, "direction": "LR", "sortMethod": "directed",'
        ' "levelSeparation": 240}}, "physics": {"enabled": false},'
        ' "edges": {"font": {"size": 11, "align": "top"}, "smooth": false},'
        ' "nodes": {"shape": "box", "font": {"size": 13}, "widthConstraint": {"maximum": 170}}}'
    )
    return net


def network_html(net: Network) -> str:
    """The network's page, self-contained: the inlined vis-network, no remote `<script src>`/`<link href>`."""
    page = _REMOTE_TAG.sub("", net.generate_html(notebook=False))
    return page.replace("</body>", _FIT_SCRIPT + "</body>", 1)


def plan_graph_html(plan: Plan) -> str:
    """Anchors -> hops -> target: one box per plan variable (anchors blue, intermediates grey, the target
    orange), one arrow per hop, labelled with its relation."""
    net = new_network()
    anchors = {anchor.var: anchor for anchor in plan.anchors}
    variables = [*anchors, *(end for hop in plan.hops for end in (hop.source, hop.target)), plan.target.var]
    hop_types = {hop.source: hop.source_type for hop in plan.hops} | {hop.target: hop.target_type for hop in plan.hops}
    for var in dict.fromkeys(variables):
        if var in anchors:
            anchor = anchors[var]
            label, role = f"{var}: {anchor.type}\n“{anchor.text}”", "anchor"
        elif var == plan.target.var:
            label, role = f"{var}: {plan.target.type}\n(answer)", "target"
        else:
            label, role = f"{var}: {hop_types.get(var) or 'intermediate'}", "hop"
        net.add_node(var, label=label, color=ROLE_COLORS[role], title=role, shape="box")
    for hop in plan.hops:
        net.add_edge(hop.source, hop.target, label=hop.relation, arrows="to")
    return network_html(net)


def path_graph_html(witness: Sequence[Mapping[str, Any]]) -> str:
    """A ranked node's witness: each anchor's path to it, relationships drawn in their stored direction."""
    net = new_network()
    for path in witness_paths([dict(step) for step in witness]):
        nodes = path[0::2]
        for node in nodes:
            key = str(node.get("id"))
            role = "target" if node is path[-1] else ("anchor" if node is path[0] else "hop")
            net.add_node(
                key,
                label=f"{node.get('name') or key}\n({node.get('label', '?')})",
                title=key,
                color=ROLE_COLORS[role],
                shape="box",
            )
        for left, rel, right in zip(path[0::2], path[1::2], path[2::2], strict=False):
            source, target = (left, right) if rel.get("direction", "->") == "->" else (right, left)
            net.add_edge(str(source.get("id")), str(target.get("id")), label=str(rel.get("type")), arrows="to")
    return network_html(net)


def iframe(page: str, height: int = GRAPH_HEIGHT_PX, title: str = "graph") -> str:
    """`page` in a sandboxed iframe (scripts on, nothing else) for gr.HTML."""
    return (
        f'<iframe title="{html.escape(title)}" sandbox="allow-scripts" srcdoc="{html.escape(page, quote=True)}" '
        f'style="width: 100%; height: {height}px; border: 1px solid #ddd; border-radius: 6px;"></iframe>'
    )


def placeholder(message: str, height: int = 60) -> str:
    """What stands where a graph would be when there is none (no plan, no witness)."""
    return (
        f'<div style="height: {height}px; display: flex; align-items: center; color: #777;">'
        f"{html.escape(message)}</div>"
    )
