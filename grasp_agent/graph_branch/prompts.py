"""The two prompts of the graph branch: entity extraction and planning. Filled from the SKB schema, so one
template serves every knowledge base; demonstrations use their own small schemas to teach the format."""

from __future__ import annotations

import json
from collections.abc import Sequence

from neo4j_graphrag.types import LLMMessage

from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.extraction_demos import ExtractionDemo
from grasp_agent.skb.context import SkbContext

EXTRACTION_RULES = """\
Rules:
- anchor: a specific named thing the answer must be connected to (a disease, gene, product, person...).
- target: the words naming the kind of thing asked for ("which diseases", "what products").
- attribute: a property only the answer's own text can confirm (age of onset, colour, year), never a node.
- context: a named thing the question mentions but does not ask about ("leaving X aside", "I already know X").
- Write each mention like a node name: singular, no leading articles, as the text says it otherwise.
- Give 1-2 types from the list, most likely first. nested_in: index of a longer mention containing this one.
- Answer with JSON only: {"mentions": [...]}."""

EXTRACTION_DEMOS: tuple[tuple[str, str, dict[str, object]], ...] = (
    (
        "Disease, Phenotype, Gene",
        "Which disease causes seizures in infancy and is linked to SCN1A?",
        {
            "mentions": [
                {"text": "disease", "types": ["Disease"], "role": "target"},
                {"text": "Seizure", "types": ["Phenotype"], "role": "anchor"},
                {"text": "in infancy", "types": [], "role": "attribute"},
                {"text": "SCN1A", "types": ["Gene"], "role": "anchor"},
            ]
        },
    ),
    (
        "Product, Brand, Category, Color",
        "Looking for a waterproof hiking boot from Salomon, preferably brown",
        {
            "mentions": [
                {"text": "hiking boot", "types": ["Category", "Product"], "role": "target"},
                {"text": "waterproof", "types": [], "role": "attribute"},
                {"text": "Salomon", "types": ["Brand"], "role": "anchor"},
                {"text": "brown", "types": ["Color"], "role": "anchor"},
            ]
        },
    ),
    (
        "Paper, Author, Institution, FieldOfStudy",
        "Papers on graph neural networks by authors at Stanford University published after 2019",
        {
            "mentions": [
                {"text": "paper", "types": ["Paper"], "role": "target"},
                {"text": "graph neural network", "types": ["FieldOfStudy"], "role": "anchor"},
                {"text": "Stanford University", "types": ["Institution"], "role": "anchor"},
                {"text": "published after 2019", "types": [], "role": "attribute"},
            ]
        },
    ),
    (
        "Drug, Disease, Protein",
        "What drugs target the protein encoded by BRCA1 and treat breast cancer?",
        {
            "mentions": [
                {"text": "drug", "types": ["Drug"], "role": "target"},
                {"text": "BRCA1", "types": ["Protein"], "role": "anchor"},
                {"text": "breast cancer", "types": ["Disease"], "role": "anchor"},
            ]
        },
    ),
)


def _types_line(context: SkbContext) -> str:
    parts = []
    for node_type in context.schema.node_types:
        extra = f" (also called: {', '.join(node_type.aliases[:4])})" if node_type.aliases else ""
        parts.append(f"{node_type.label}{extra}")
    return "; ".join(parts)


def extraction_messages(question: str, context: SkbContext, demos: Sequence[ExtractionDemo] = ()) -> list[LLMMessage]:
    """System rules, the fixed demonstrations of other schemas, then `demos` of this SKB (training questions
    like this one, least similar first so the nearest stands next to the question), then the question."""
    system = (
        "You find the entity mentions in a question about a knowledge graph.\n"
        f"Node types: {_types_line(context)}.\n{EXTRACTION_RULES}"
    )
    messages: list[LLMMessage] = [{"role": "system", "content": system}]
    for types, demo_question, answer in EXTRACTION_DEMOS:
        messages.append({"role": "user", "content": f"Types: {types}\nQuestion: {demo_question}"})
        messages.append({"role": "assistant", "content": json.dumps(answer)})
    labels = ", ".join(context.labels)
    for demo in reversed(demos):
        messages.append({"role": "user", "content": f"Types: {labels}\nQuestion: {demo.question}"})
        messages.append({"role": "assistant", "content": demo.answer.model_dump_json(exclude_defaults=True)})
    messages.append({"role": "user", "content": f"Types: {labels}\nQuestion: {question}"})
    return messages


PLANNER_ROLE = (
    "You write retrieval plans for questions over a knowledge graph: the anchor nodes the question names, the "
    "relations (hops) joining them to the nodes asked for (variable t), and the text the hops cannot express. "
    "Answer with one JSON plan."
)

PLAN_FORMAT = """\
Rules:
- Anchors come from the entity table (role=anchor), typed as listed there. Every anchor needs a chain of hops
  ending at the target t; with several anchors, t must satisfy all of them.
- A hop is {"source": var, "relation": R, "target": var}; it follows a connection listed above in either
  direction. An intermediate variable (x1) may join two hops when no single relation connects the types.
- relevance_text: the question's conditions no hop expresses (age of onset, severity, ...), else "".
- Use a negative relation (LACKS_..., NOT_...) only for what the answer must not have."""

FUSION_CONTROL = """\
Fusion control (your ranking is fused with a text retriever's):
- n_cand: how many targets you expect the hops to admit (the anchors' degrees bound it).
- risk: "low" if anchors match well (cos >= 0.95) and the hops express the question; "medium" if a link is
  uncertain or a condition is only in relevance_text; "high" if the graph can barely express the question."""

# One worked turn from another graph: teaches the answer's shape without biasing this SKB's types.
PLAN_DEMO_USER = """\
(Example from a paper graph with (Author)-[WRITES]->(Paper), (Paper)-[CITES]->(Paper).)
Question: Which paper by Yann LeCun on convolutional networks is cited by papers on AlphaGo?

Entity table:
[0] "paper" role=target (the type asked for: Paper)
[1] "Yann LeCun" role=anchor types=Author
    Author: Yann LeCun (cos 1.00, degree 210)
[2] "AlphaGo" role=anchor types=Paper
    Paper: Mastering the game of Go with deep neural networks (cos 0.71, degree 5400)

Plan:"""
PLAN_DEMO = {
    "anchors": [
        {"var": "a1", "type": "Author", "text": "Yann LeCun", "match_mode": "name"},
        {"var": "a2", "type": "Paper", "text": "AlphaGo", "match_mode": "doc"},
    ],
    "hops": [
        {"source": "a1", "relation": "WRITES", "target": "t"},
        {"source": "a2", "relation": "CITES", "target": "t"},
    ],
    "target": {"var": "t", "type": "Paper"},
    "relevance_text": "convolutional networks",
    "n_cand": 20,
    "risk": "medium",
}


def schema_block(context: SkbContext) -> str:
    lines = ["Node types:"]
    for node_type in context.schema.node_types:
        count = context.label_counts.get(node_type.label, 0)
        lines.append(
            f"- {node_type.label} ({count:,} nodes){': ' + node_type.description if node_type.description else ''}"
        )
    lines.append("Connections (stored direction; hops may follow them either way):")
    for (source, relation, target), count in sorted(context.pattern_counts.items()):
        lines.append(f"- ({source})-[{relation}]->({target}) {count:,} edges")
    phrased = [r for r in context.schema.relation_types if r.phrases or r.inverse_phrases]
    if phrased:
        lines.append("How questions say a relation (stored source first / stored target first):")
        lines.extend(
            f"- {r.type}: {', '.join(r.phrases) or '-'} / {', '.join(r.inverse_phrases) or '-'}" for r in phrased
        )
    nouned = [r for r in context.schema.relation_types if r.source_nouns or r.target_nouns]
    if nouned:
        lines.append("What one end of a relation is called as seen from the other (stored source / stored target):")
        lines.extend(
            f"- {r.type}: {', '.join(r.source_nouns) or '-'} / {', '.join(r.target_nouns) or '-'}" for r in nouned
        )
    if context.quantity_properties:
        lines.append(
            'Quantities (a superlative such as "the most populous" ranks t by one: "order": {"property": P, '
            '"descending": true}; false for "the smallest"):'
        )
        lines.extend(f"- {label}: {', '.join(props)}" for label, props in context.quantity_properties.items())
    return "\n".join(lines)


def planner_messages(question: str, table: EntityTable, context: SkbContext) -> list[LLMMessage]:
    system = "\n\n".join([PLANNER_ROLE, schema_block(context), PLAN_FORMAT, FUSION_CONTROL])
    user = f"Question: {question}\n\nEntity table:\n{table.to_prompt()}\n\nPlan:"
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": PLAN_DEMO_USER},
        {"role": "assistant", "content": json.dumps(PLAN_DEMO, separators=(",", ":"))},
        {"role": "user", "content": user},
    ]


STUDENT_ROLE = "Write the JSON retrieval plan for the question over this knowledge graph."


def student_messages(question: str, table: EntityTable, context: SkbContext) -> list[LLMMessage]:
    """The short prompt a trained planner learns on and is served with: the SKB's types and its relations in
    one line each, the question and its entity table; no rules, no example (the student learned them)."""
    relations = "; ".join(
        f"({source})-[{relation}]->({target})" for source, relation, target in sorted(context.pattern_counts)
    )
    system = f"{STUDENT_ROLE}\nTypes: {', '.join(context.labels)}\nRelations: {relations}"
    user = f"Question: {question}\nEntity table:\n{table.to_prompt()}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
