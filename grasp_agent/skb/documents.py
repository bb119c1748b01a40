"""The node document: one text per node, shared by the dense doc index, the text branch and the reranker.

    Phenotype: Seizure
    definition: A seizure is an intermittent abnormality of nervous system physiology ...
    synonyms: Epileptic seizure; Seizures
    IS_A -> Phenotype: Abnormality of the nervous system
    HAS_PHENOTYPE <- Disease (1532): Aicardi syndrome, Angelman syndrome, ... (+1522 more)

Deterministic for the same inputs and bounded: each text field and the whole document are cut to token
budgets measured with the embedder's own tokenizer, so what is embedded is exactly what is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from grasp_agent.skb.schema import NodeType

TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class NeighbourGroup:
    """Neighbours of one node along one relation type and stored direction, already in display order."""

    relation: str
    outgoing: bool
    other_label: str
    names: tuple[str, ...]
    total: int


DEFAULT_DOCUMENT_TOKENS = 512  # GRASP's cut, kept for embedders that do not state a limit (a server's own)


@dataclass(frozen=True)
class DocumentBudget:
    max_tokens: int = DEFAULT_DOCUMENT_TOKENS
    max_field_tokens: int = 160  # one long comment must not crowd out the relations
    max_neighbours: int = 10  # names listed per relation line

    @classmethod
    def for_model(cls, model_max_tokens: int | None) -> DocumentBudget:
        """Documents cut where the embedder cuts (its model's own max_seq_length unless configured: MiniLM was
        trained on at most 256 tokens, and what it would not read should not be shown as the document)."""
        return cls(max_tokens=model_max_tokens or DEFAULT_DOCUMENT_TOKENS)


def truncate_to_tokens(text: str, limit: int, count_tokens: TokenCounter, prefix: str = "") -> str:
    """The longest word prefix of `text` such that `prefix + it` stays within `limit` tokens.

    Binary search over words: O(log words) tokenizer calls. `prefix` is counted, not returned.
    """
    if count_tokens(prefix + text) <= limit:
        return text
    words = text.split()
    low, high = 0, len(words)
    while low < high:
        middle = (low + high + 1) // 2
        if count_tokens(prefix + " ".join(words[:middle])) <= limit:
            low = middle
        else:
            high = middle - 1
    return " ".join(words[:low])


def _field_line(field_name: str, value: object) -> str | None:
    if isinstance(value, list | tuple):
        items = [str(item) for item in value if str(item).strip()]
        return f"{field_name}: {'; '.join(items)}" if items else None
    text = str(value).strip() if value is not None else ""
    return f"{field_name}: {text}" if text else None


def _neighbour_line(group: NeighbourGroup, max_names: int) -> str:
    arrow = "->" if group.outgoing else "<-"
    names = list(group.names[:max_names])
    count = f" ({group.total})" if group.total > 1 else ""
    more = f" (+{group.total - len(names)} more)" if group.total > len(names) else ""
    return f"{group.relation} {arrow} {group.other_label}{count}: {', '.join(names)}{more}"


def render_document(
    node_type: NodeType,
    name: str,
    properties: Mapping[str, object],
    neighbours: Sequence[NeighbourGroup],
    count_tokens: TokenCounter,
    budget: DocumentBudget = DocumentBudget(),
) -> str:
    """Header, text fields in schema order, then one line per relation group; cut to the token budget."""
    lines = [f"{node_type.label}: {name}"]
    for field_name in node_type.text_fields:
        line = _field_line(field_name, properties.get(field_name))
        if line is not None:
            lines.append(truncate_to_tokens(line, budget.max_field_tokens, count_tokens))
    ordered = sorted(neighbours, key=lambda g: (g.relation, not g.outgoing, g.other_label))
    lines.extend(_neighbour_line(group, budget.max_neighbours) for group in ordered if group.names)

    document = ""
    for line in lines:
        prefix = f"{document}\n" if document else ""
        fitted = truncate_to_tokens(line, budget.max_tokens, count_tokens, prefix=prefix)
        if not fitted:
            break
        document = prefix + fitted
        if fitted != line:
            break  # the budget is spent
    return document
