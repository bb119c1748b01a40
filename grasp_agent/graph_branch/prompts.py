"""The two prompts of the graph branch: entity extraction and planning. Filled from the SKB schema, so one
template serves every knowledge base; demonstrations use their own small schemas to teach the format."""

from __future__ import annotations

import json

from neo4j_graphrag.types import LLMMessage

from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.skb_context import SkbContext

EXTRACTION_RULES = """\
Rules:
- anchor: a specific named thing the answer must be connected to (a disease, gene, product, person...).
- target: the words naming the kind of thing asked for ("which diseases", "what products").
- attribute: a property only the answer's own text can confirm (age of onset, colour, year), never a node.
- Write each mention like a node name: singular, no leading articles, as the text says it otherwise.
- Give 1-2 types from the list, most likely first. nested_in: index of a longer mention containing this one.
- Answer with JSON only: {"mentions": [...]}."""

EXTRACTION_DEMOS: tuple[tuple[str, str, dict[str, object]], ...] = (
    ("Disease, Phenotype, Gene",
     "Which disease causes seizures in infancy and is linked to SCN1A?",
     {"mentions": [{"text": "disease", "types": ["Disease"], "role": "target"},
                   {"text": "Seizure", "types": ["Phenotype"], "role": "anchor"},
                   {"text": "in infancy", "types": [], "role": "attribute"},
                   {"text": "SCN1A", "types": ["Gene"], "role": "anchor"}]}),
    ("Product, Brand, Category, Color",
     "Looking for a waterproof hiking boot from Salomon, preferably brown",
     {"mentions": [{"text": "hiking boot", "types": ["Category", "Product"], "role": "target"},
                   {"text": "waterproof", "types": [], "role": "attribute"},
                   {"text": "Salomon", "types": ["Brand"], "role": "anchor"},
                   {"text": "brown", "types": ["Color"], "role": "anchor"}]}),
    ("Paper, Author, Institution, FieldOfStudy",
     "Papers on graph neural networks by authors at Stanford University published after 2019",
     {"mentions": [{"text": "paper", "types": ["Paper"], "role": "target"},
                   {"text": "graph neural network", "types": ["FieldOfStudy"], "role": "anchor"},
                   {"text": "Stanford University", "types": ["Institution"], "role": "anchor"},
                   {"text": "published after 2019", "types": [], "role": "attribute"}]}),
    ("Drug, Disease, Protein",
     "What drugs target the protein encoded by BRCA1 and treat breast cancer?",
     {"mentions": [{"text": "drug", "types": ["Drug"], "role": "target"},
                   {"text": "BRCA1", "types": ["Protein"], "role": "anchor"},
                   {"text": "breast cancer", "types": ["Disease"], "role": "anchor"}]}),
)


def _types_line(context: SkbContext) -> str:
    parts = []
    for node_type in context.schema.node_types:
        extra = f" (also called: {', '.join(node_type.aliases[:4])})" if node_type.aliases else ""
        parts.append(f"{node_type.label}{extra}")
    return "; ".join(parts)


def extraction_messages(question: str, context: SkbContext) -> list[LLMMessage]:
    system = ("You find the entity mentions in a question about a knowledge graph.\n"
              f"Node types: {_types_line(context)}.\n{EXTRACTION_RULES}")
    messages: list[LLMMessage] = [{"role": "system", "content": system}]
    for types, demo_question, answer in EXTRACTION_DEMOS:
        messages.append({"role": "user", "content": f"Types: {types}\nQuestion: {demo_question}"})
        messages.append({"role": "assistant", "content": json.dumps(answer)})
    labels = ", ".join(context.labels)
    messages.append({"role": "user", "content": f"Types: {labels}\nQuestion: {question}"})
    return messages


PLANNER_ROLE = (
    "You write retrieval plans for questions over a knowledge graph. A plan names anchor nodes from the "
    "question, the relations (hops) that join them to the nodes asked for, and the text the hops cannot "
    "express. Answer with one JSON plan only."
)

PLAN_FORMAT = """\
Plan format (JSON):
{"anchors": [{"var": "a1", "type": <node type>, "text": <mention written like a node name>, "match_mode": "name"}],
 "hops": [{"source": <var>, "relation": <relation type>, "target": <var>}],
 "target": {"var": "t", "type": <node type asked for>},
 "relevance_text": <what the hops cannot express, or "">,
 "n_cand": <how many targets you expect>, "risk": "low" | "medium" | "high"}
- Every anchor must reach the target through hops; hops are undirected; each (type, relation, type) of a
  hop must be one of the connections listed above, in either direction.
- A variable between an anchor and the target (e.g. "x1") is typed from the schema; add "source_type" or
  "target_type" to a hop when two types fit.
- Several anchors joined to the same target means the answer must satisfy all of them.
- Use only anchors from the entity table with a good match (cos >= 0.9); use match_mode "doc" when the text
  describes a node rather than naming it. No anchors and no hops: targets are ranked by relevance_text alone.
- Use a negative relation (e.g. LACKS_...) only when the question says the answer must not have something."""

FUSION_CONTROL = """\
Fusion control: your plan's ranking is fused with a text retriever's.
- n_cand: your estimate of how many targets the hops admit (use the anchors' degrees).
- risk: "low" when the anchors are near-exact matches and the hops say what the question asks; "medium" when
  a link is uncertain or a condition is only in relevance_text; "high" when the graph can barely express
  the question (then the text retriever gets more weight)."""

PLAN_DEMO_QUESTION = 'Which paper by "Yann LeCun" on convolutional networks is cited by papers on AlphaGo?'
PLAN_DEMO = {
    "anchors": [{"var": "a1", "type": "Author", "text": "Yann LeCun", "match_mode": "name"},
                {"var": "a2", "type": "Paper", "text": "AlphaGo", "match_mode": "doc"}],
    "hops": [{"source": "a1", "relation": "WRITES", "target": "t"},
             {"source": "a2", "relation": "CITES", "target": "t"}],
    "target": {"var": "t", "type": "Paper"},
    "relevance_text": "convolutional networks", "n_cand": 20, "risk": "medium"}


def schema_block(context: SkbContext) -> str:
    lines = ["Node types:"]
    for node_type in context.schema.node_types:
        count = context.label_counts.get(node_type.label, 0)
        lines.append(f"- {node_type.label} ({count:,} nodes){': ' + node_type.description if node_type.description else ''}")
    lines.append("Connections (stored direction; hops may follow them either way):")
    for (source, relation, target), count in sorted(context.pattern_counts.items()):
        lines.append(f"- ({source})-[{relation}]->({target}) {count:,} edges")
    return "\n".join(lines)


def planner_messages(question: str, table: EntityTable, context: SkbContext) -> list[LLMMessage]:
    example = (f"Example (another graph, with Author, Paper and WRITES, CITES):\nQuestion: {PLAN_DEMO_QUESTION}\n"
               f"Plan: {json.dumps(PLAN_DEMO)}")
    system = "\n\n".join([PLANNER_ROLE, schema_block(context), PLAN_FORMAT, FUSION_CONTROL, example])
    user = f"Question: {question}\n\nEntity table:\n{table.to_prompt()}\n\nPlan:"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
