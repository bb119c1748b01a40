"""The words that name a node type: its label as words, its aliases, and their plurals (pure)."""

from __future__ import annotations

from grasp_agent.graph_branch.relation_words import spaced_name
from grasp_agent.skb.schema import NodeType, SkbSchema


def singular_type_words(node_type: NodeType) -> list[str]:
    """The words the schema gives for a type: its label as words (GeneProtein -> 'gene protein'), then its
    aliases, lower-case."""
    return [spaced_name(node_type.label), *[alias.strip().lower() for alias in node_type.aliases if alias.strip()]]


def plural(word: str) -> str:
    """Simple English plural of a type word, the one rule the planner reads and the question generator writes:
    the head noun before 'of' ('parts of the world'), 'ies' after a consonant's 'y' ('families', 'days'), '-sis'
    to '-ses' ('diagnoses'), 'es' after a hiss ('classes', 'metropolises'); a word ending in another 's' is
    taken as plural already ('genes')."""
    head, of, rest = word.partition(" of ")
    if of:
        return plural(head) + of + rest
    if word.endswith("sis"):
        return word[:-2] + "es"
    if word.endswith(("ss", "us", "is", "x", "z", "sh", "ch")):
        return word + "es"
    if word.endswith("s"):
        return word
    if len(word) > 1 and word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def plural_type_words(schema: SkbSchema) -> frozenset[str]:
    """The plurals of the schema's type words that are not themselves a singular one ('genes' can be an alias)."""
    singular = {word for node_type in schema.node_types for word in singular_type_words(node_type)}
    return frozenset(plural(word) for word in singular) - singular


def type_word_tokens(schema: SkbSchema) -> frozenset[str]:
    """Every single word of every type word of the schema ('phenotypic abnormality' gives both words)."""
    return frozenset(word for node_type in schema.node_types for part in type_words(node_type) for word in part.split())


def type_words(node_type: NodeType) -> list[str]:
    """Lower-case words naming a type: its label as words, aliases, and the plurals of both."""
    words = singular_type_words(node_type)
    return sorted(set(words + [plural(w) for w in words]), key=len, reverse=True)
