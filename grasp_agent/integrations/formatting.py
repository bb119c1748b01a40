"""Hits as text for a language model: one short block per node, what the node is and why it matched."""

from __future__ import annotations

from grasp_agent.pipeline.results import SearchHit, SearchResult

SNIPPET_CHARS = 400  # per hit: enough for the definition's first sentences and a relation line or two


def hit_text(hit: SearchHit, max_chars: int = SNIPPET_CHARS) -> str:
    body = hit.document or f"{hit.label or 'Node'}: {hit.name}"
    if len(body) > max_chars:
        body = body[:max_chars].rsplit(" ", 1)[0] + " ..."
    return f"[{hit.rank}] id={hit.node_id} ({'+'.join(hit.branches) or 'fused'})\n{body}"


def result_text(result: SearchResult, max_chars: int = SNIPPET_CHARS) -> str:
    if not result.hits:
        reasons = "; ".join(f"{branch}: {why}" for branch, why in result.failures.items())
        return "No results." + (f" ({reasons})" if reasons else "")
    return "\n\n".join(hit_text(hit, max_chars) for hit in result.hits)
