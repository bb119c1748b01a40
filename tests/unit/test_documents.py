from grasp_agent.skb.documents import DocumentBudget, NeighbourGroup, render_document, truncate_to_tokens
from grasp_agent.skb.schema import NodeType

PHENOTYPE = NodeType(label="Phenotype", text_fields=("definition", "synonyms", "comment"))


def words(text: str) -> int:
    return len(text.split())


def test_document_layout_fields_in_schema_order_then_relations() -> None:
    doc = render_document(
        PHENOTYPE,
        "Seizure",
        {"comment": "Common.", "definition": "An intermittent abnormality.", "synonyms": ["Epileptic seizure", "Fits"]},
        [
            NeighbourGroup("IS_A", False, "Phenotype", ("Focal seizure", "Absence seizure"), 2),
            NeighbourGroup("IS_A", True, "Phenotype", ("Abnormality of the nervous system",), 1),
            NeighbourGroup("HAS_PHENOTYPE", False, "Disease", ("Dravet syndrome",), 40),
        ],
        words,
    )
    assert doc.splitlines() == [
        "Phenotype: Seizure",
        "definition: An intermittent abnormality.",
        "synonyms: Epileptic seizure; Fits",
        "comment: Common.",
        "HAS_PHENOTYPE <- Disease (40): Dravet syndrome (+39 more)",
        "IS_A -> Phenotype: Abnormality of the nervous system",
        "IS_A <- Phenotype (2): Focal seizure, Absence seizure",
    ]


def test_empty_fields_and_empty_groups_are_left_out() -> None:
    doc = render_document(
        PHENOTYPE, "X", {"definition": "  ", "synonyms": []}, [NeighbourGroup("IS_A", True, "Phenotype", (), 0)], words
    )
    assert doc == "Phenotype: X"


def test_neighbour_lines_list_at_most_the_budgeted_names() -> None:
    names = tuple(f"n{i}" for i in range(30))
    doc = render_document(
        PHENOTYPE,
        "X",
        {},
        [NeighbourGroup("IS_A", False, "Phenotype", names, 30)],
        words,
        DocumentBudget(max_neighbours=3),
    )
    assert doc.splitlines()[1] == "IS_A <- Phenotype (30): n0, n1, n2 (+27 more)"


def test_whole_document_and_each_field_respect_their_token_budgets() -> None:
    long_text = " ".join(f"w{i}" for i in range(1000))
    budget = DocumentBudget(max_tokens=50, max_field_tokens=20)
    doc = render_document(PHENOTYPE, "X", {"definition": long_text, "comment": long_text}, [], words, budget)
    lines = doc.splitlines()
    assert words(lines[1]) == 20  # "definition:" + 19 words
    assert words(doc) <= 50
    assert lines[2].startswith("comment: w0 w1")


def test_rendering_is_deterministic() -> None:
    groups = [NeighbourGroup("B", True, "T", ("x",), 1), NeighbourGroup("A", True, "T", ("y",), 1)]
    first = render_document(PHENOTYPE, "X", {}, groups, words)
    assert first == render_document(PHENOTYPE, "X", {}, list(reversed(groups)), words)


def test_truncate_keeps_the_longest_fitting_prefix() -> None:
    assert truncate_to_tokens("a b c d e", 3, words) == "a b c"
    assert truncate_to_tokens("a b", 3, words) == "a b"
    assert truncate_to_tokens("a b c", 3, words, prefix="p q ") == "a"
