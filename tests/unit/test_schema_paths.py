import pytest

from grasp_agent.graph_branch.schema_paths import (
    SchemaHop,
    hierarchy_cue,
    hierarchy_step,
    mention_hierarchy_cue,
    named_types,
    plural,
    relevance_text,
    shortest_meta_path,
    sides_of_type_word,
    singular_type_word,
    singular_type_words,
    stored_child_to_parent,
    target_mention,
    target_type,
    type_words,
)
from grasp_agent.skb.hpo import HPO_SCHEMA
from grasp_agent.skb.schema import NodeType

HPO_COUNTS = {
    ("Phenotype", "IS_A", "Phenotype"): 23392,
    ("Disease", "HAS_PHENOTYPE", "Phenotype"): 253328,
    ("Disease", "LACKS_PHENOTYPE", "Phenotype"): 704,
    ("Gene", "ASSOCIATED_WITH", "Disease"): 12302,
    ("Gene", "ASSOCIATED_WITH", "Phenotype"): 259012,
}


def test_type_words_split_labels_add_aliases_and_plurals() -> None:
    words = type_words(NodeType(label="GeneProtein", aliases=("protein",)))
    assert {"gene protein", "gene proteins", "protein", "proteins"} <= set(words)
    assert "bodies" in type_words(NodeType(label="Body"))


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("film", "films"),
        ("class", "classes"),
        ("family", "families"),
        ("money", "moneys"),
        ("day", "days"),
        ("genes", "genes"),
        ("metropolis", "metropolises"),
        ("diagnosis", "diagnoses"),
        ("locus", "locuses"),
        ("part of the world", "parts of the world"),
    ],
)
def test_plural(word: str, expected: str) -> None:
    assert plural(word) == expected


def test_the_generator_writes_the_plurals_the_planner_reads() -> None:
    # one rule for both: a generated "which moneys ..." names the type the planner asks for
    currency = NodeType(label="Currency", aliases=("money", "part of the world"))
    assert {plural(word) for word in singular_type_words(currency)} <= set(type_words(currency))
    assert "moneys" in type_words(currency) and "moneies" not in type_words(currency)


def test_target_type_is_the_type_asked_for_after_the_wh_word() -> None:
    assert target_type("Which diseases present seizures and are linked to the gene SCN1A?", HPO_SCHEMA) == "Disease"
    assert target_type("What genes are associated with Dravet syndrome?", HPO_SCHEMA) == "Gene"
    assert target_type("List the symptoms of Angelman syndrome", HPO_SCHEMA) == "Phenotype"
    assert target_type("Genes behind a disorder with seizures", HPO_SCHEMA) == "Gene"  # no wh-word: first type word
    assert target_type("Tell me about spirited away", HPO_SCHEMA) is None


@pytest.mark.parametrize(
    "question,asked",
    [
        ("Eosinophilia > subtype -> disease -> genes?", "Gene"),  # the end of the chain
        ("Primary Fanconi renotubular syndrome: genes?", "Gene"),  # a type word inside the name is not asked
        ("Subtype of Abnormal hypnagogia: disease genes?", "Gene"),  # 'disease genes' are genes
        ("Which disease genes explain Ataxia?", "Gene"),
        ("Azoospermia -> diseases named 'Spermatogenic'", "Disease"),
        ("Genes of diseases with Diffuse skin atrophy", "Gene"),  # no step: the first type word
        ("Seizure: tell me more", None),  # no type word after the colon nor before it
        ("Dravet syndrome genes: tell me more", "Gene"),  # none after the colon: the first, as a compound's head
        ("Ophthalmoplegia occurs in some illnesses. Their genes?", "Gene"),  # the last sentence
        ("Meckel syndrome 13 - causal gene please", "Gene"),
    ],
)
def test_terse_wording_asks_for_what_ends_the_chain(question: str, asked: str | None) -> None:
    assert target_type(question, HPO_SCHEMA) == asked


def test_type_words_in_the_plural_name_their_singular() -> None:
    assert [singular_type_word(w, HPO_SCHEMA) for w in ("conditions", "diseases", "genes", "Gene", "x")] == [
        "condition",
        "disease",
        "gene",
        "Gene",
        "x",
    ]


def test_one_hop_paths_pick_the_relation_by_size_or_negation() -> None:
    assert shortest_meta_path("Phenotype", "Disease", HPO_COUNTS, "Which diseases show seizures?") == [
        SchemaHop("Phenotype", "HAS_PHENOTYPE", "Disease")
    ]
    assert shortest_meta_path("Phenotype", "Disease", HPO_COUNTS, "Which diseases lack seizures?") == [
        SchemaHop("Phenotype", "LACKS_PHENOTYPE", "Disease")
    ]
    assert shortest_meta_path("Gene", "Disease", HPO_COUNTS) == [SchemaHop("Gene", "ASSOCIATED_WITH", "Disease")]


def test_self_loops_and_unreachable_types() -> None:
    assert shortest_meta_path("Phenotype", "Phenotype", HPO_COUNTS) == [SchemaHop("Phenotype", "IS_A", "Phenotype")]
    assert shortest_meta_path("Gene", "Gene", HPO_COUNTS) == []
    assert shortest_meta_path("Gene", "Drug", HPO_COUNTS) is None


def test_two_hop_path_through_an_intermediate_type() -> None:
    counts = {("Drug", "TREATS", "Disease"): 10, ("Gene", "ASSOCIATED_WITH", "Disease"): 5}
    assert shortest_meta_path("Drug", "Gene", counts) == [
        SchemaHop("Drug", "TREATS", "Disease"),
        SchemaHop("Disease", "ASSOCIATED_WITH", "Gene"),
    ]


def test_relevance_text_drops_anchor_mentions() -> None:
    question = "Which diseases present Epileptic spasm and an early onset, and involve gene NSF?"
    assert relevance_text(question, ["epileptic spasm", "NSF"]) == (
        "Which diseases present and an early onset, and involve gene?"
    )


def test_negative_relations_are_judged_per_word() -> None:
    from grasp_agent.graph_branch.schema_paths import is_negative_relation

    assert is_negative_relation("LACKS_PHENOTYPE") and is_negative_relation("PHENOTYPE_ABSENT")
    assert is_negative_relation("CONTRAINDICATION") and is_negative_relation("NOT_ASSOCIATED_WITH")
    assert not is_negative_relation("HAS_PHENOTYPE") and not is_negative_relation("ANNOTATED")


@pytest.mark.parametrize(
    "lead,cue",
    [
        ("Which phenotypes are subtypes of", "down"),
        ("have a more specific form of", "down"),
        ("Subtype of", "down"),
        ("a kind of", "down"),
        ("the parent terms of", "up"),
        ("broader than", "up"),
        ("Which diseases present with", None),
        ("any type of", "down"),
        ("specialisations of", "down"),
        ("a parent whose subtypes of", "down"),  # the nearer cue wins
    ],
)
def test_words_before_a_mention_ask_for_its_hierarchy(lead: str, cue: str | None) -> None:
    assert hierarchy_cue(lead) == cue


@pytest.mark.parametrize(
    "lead,trail,cue",
    [
        ("What disorders show a feature classified directly under", "", "down"),
        ("diseases with phenotypes grouped beneath", "", "down"),
        ("", "subtype diseases", "down"),  # "X > subtype -> diseases"
        ("", "s child terms", "down"),  # "X's child terms"
        ("", "has child terms", "down"),  # "X has child terms; which ..."
        ("", "parent term", "up"),
        ("", "and subtypes of Y", None),  # only the words right after the mention
        ("Which diseases present with", "in childhood", None),
        ("parent terms of", "subtypes", "up"),  # the words before win
    ],
)
def test_a_mentions_own_words_ask_for_its_hierarchy(lead: str, trail: str, cue: str | None) -> None:
    assert mention_hierarchy_cue(lead, trail) == cue


def test_a_hierarchy_hop_is_directed_by_how_the_relation_is_stored() -> None:
    counts = {("Phenotype", "IS_A", "Phenotype"): 10, ("Disease", "HAS_PHENOTYPE", "Phenotype"): 5}
    # IS_A is stored child -> parent: down to the children walks against it, up to the parents along it
    assert hierarchy_step("Phenotype", counts, "down") == SchemaHop("Phenotype", "IS_A", "Phenotype", False)
    assert hierarchy_step("Phenotype", counts, "up") == SchemaHop("Phenotype", "IS_A", "Phenotype", True)
    assert hierarchy_step("Disease", counts, "down") is None  # no self-relation
    assert hierarchy_step("T", {("T", "HAS_SUBTYPE", "T"): 1}, "down") == SchemaHop("T", "HAS_SUBTYPE", "T", True)
    assert hierarchy_step("T", {("T", "RELATED", "T"): 1}, "down") == SchemaHop("T", "RELATED", "T")
    assert [stored_child_to_parent(r) for r in ("IS_A", "SUBCLASS_OF", "HAS_CHILD", "SIMILAR_TO", "LINKED")] == [
        True,
        True,
        False,
        None,
        None,
    ]
    # a parent -> child name ending in "_OF" is read as one; SKOS's pair both ways
    assert [stored_child_to_parent(r) for r in ("PARENT_OF", "CHILD_OF", "NARROWER", "BROADER")] == [
        False,
        True,
        False,
        True,
    ]


def test_a_type_word_introducing_a_description_names_no_type_on_the_way() -> None:
    assert named_types("Which conditions sharing one of its genes show", HPO_SCHEMA) == ["Disease", "Gene"]
    framed = 'What linked to show a feature classified directly under the phenotype defined as "a deviation"?'
    assert named_types(framed, HPO_SCHEMA) == []
    assert named_types('genes of the abnormality "x"', HPO_SCHEMA) == ["Gene"]


def test_type_words_inside_anchor_names_are_not_asked_for() -> None:
    question = "X-linked Charcot-Marie-Tooth disease type 4, causal gene please"
    assert target_mention(question, HPO_SCHEMA) == ("Disease", "disease")
    assert target_mention(question, HPO_SCHEMA, ["X-linked Charcot-Marie-Tooth disease type 4"]) == ("Gene", "gene")


def test_a_type_word_used_as_a_verb_after_another_is_no_compound_head() -> None:
    # a compound names its last word ("disease genes" are genes) ...
    assert target_mention("Which disease genes are linked to Ataxia?", HPO_SCHEMA, ["Ataxia"]) == ("Gene", "genes")
    # ... but a noun phrase right after the second word makes it a verb: a name (issue #30's own example) or a
    # determiner
    assert target_mention(
        "Which KCNQ2-related disorder features infantile spasms?", HPO_SCHEMA, ["KCNQ2", "infantile spasms"]
    ) == ("Disease", "disorder")
    assert target_mention("Which disorder features an abnormally small penis?", HPO_SCHEMA, ["small penis"]) == (
        "Disease",
        "disorder",
    )
    # and a plural first word is no modifier (English compounds take a singular one)
    assert target_mention(
        "Which conditions feature short stature and obesity?", HPO_SCHEMA, ["short stature", "obesity"]
    ) == ("Disease", "conditions")


def test_a_question_is_cut_at_the_type_word_into_the_anchors_side_and_the_other() -> None:
    question = "Which diseases lack a phenotype that Dravet syndrome has?"
    assert sides_of_type_word(question, "Phenotype", HPO_SCHEMA, ["Dravet syndrome"], "Dravet syndrome") == (
        " that Dravet syndrome has?",
        "Which diseases lack a ",
    )
    # a type word inside a name is not the station ("Dravet *syndrome*" is no disease word here), nor one that
    # introduces a description; no word of the type, or no anchor in the question: no cut
    named = "Which genes cause the syndrome Dravet syndrome?"
    assert sides_of_type_word(named, "Disease", HPO_SCHEMA, ["Dravet syndrome"], "Dravet syndrome") == (
        " Dravet syndrome?",
        "Which genes cause the ",
    )
    described = "Which genes go with the phenotype described as a fit?"
    assert sides_of_type_word(described, "Phenotype", HPO_SCHEMA, [], "a fit") is None
    assert sides_of_type_word(question, "Gene", HPO_SCHEMA, [], "Dravet syndrome") is None
    assert sides_of_type_word(question, "Phenotype", HPO_SCHEMA, [], "Angelman syndrome") is None


def test_a_type_word_inside_a_relation_phrase_of_the_schema_is_no_asked_type() -> None:
    # HAS_PHENOTYPE's own phrase "has phenotype" holds the type word "phenotype": the question asks for diseases
    assert target_mention("What has phenotype Ataxia?", HPO_SCHEMA, ["Ataxia"]) is None
    assert target_mention("Which diseases have phenotype Ataxia?", HPO_SCHEMA, ["Ataxia"]) == ("Disease", "diseases")
    # a phrase whose subject is of the type its word names says the asked type ("what is a feature of X")
    assert target_mention("What is a feature of Marfan syndrome?", HPO_SCHEMA, ["Marfan syndrome"]) == (
        "Phenotype",
        "feature",
    )
    # the same word outside a phrase still names its type
    assert target_mention("Which phenotype does Marfan syndrome have?", HPO_SCHEMA, ["Marfan syndrome"]) == (
        "Phenotype",
        "phenotype",
    )
    # and a schema without phrases reads the word as before
    plain = HPO_SCHEMA.model_copy(
        update={
            "relation_types": tuple(
                r.model_copy(update={"phrases": (), "inverse_phrases": ()}) for r in HPO_SCHEMA.relation_types
            )
        }
    )
    assert target_mention("What has phenotype Ataxia?", plain, ["Ataxia"]) == ("Phenotype", "phenotype")


def test_a_type_word_labelling_the_name_after_it_asks_nothing_in_terse_wording() -> None:
    names = ["COL1A1", "Blue sclerae"]
    # the list after the colon labels what the question knows; the type word heading it is asked
    assert target_mention("Disorders: gene COL1A1, feature Blue sclerae", HPO_SCHEMA, names) == (
        "Disease",
        "Disorders",
    )
    # a plural after the colon still asks, and so does a label with no name right after it
    assert target_mention("Blue sclerae: genes?", HPO_SCHEMA, ["Blue sclerae"]) == ("Gene", "genes")
    assert target_mention("COL1A1 -> disease?", HPO_SCHEMA, ["COL1A1"]) == ("Disease", "disease")
    # with a wh-word the rule does not apply: the word after it asks
    assert target_mention("Which gene COL1A1 variant causes Blue sclerae?", HPO_SCHEMA, names)[0] == "Gene"


def test_a_type_word_before_a_final_of_names_a_relation_and_asks_for_its_other_end() -> None:
    # "What is Seizure a feature of?" asks for what Seizure is a feature of, not for a feature
    assert target_mention("What is Seizure a feature of?", HPO_SCHEMA, ["Seizure"]) is None
    assert target_mention("what is seizure a feature of", HPO_SCHEMA, ["seizure"]) is None
    # a type word elsewhere still asks
    assert target_mention("Which disease is Seizure a feature of?", HPO_SCHEMA, ["Seizure"]) == ("Disease", "disease")
    assert target_mention("Seizure is a feature of which disease?", HPO_SCHEMA, ["Seizure"]) == ("Disease", "disease")
    assert target_mention("Which features of Marfan syndrome?", HPO_SCHEMA, ["Marfan syndrome"]) == (
        "Phenotype",
        "features",
    )
