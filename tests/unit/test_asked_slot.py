import pytest

from grasp_agent.graph_branch.asked_slot import SlotKind, SlotWord, abbreviated_type, read_slot
from grasp_agent.graph_branch.schema_paths import target_mention, unread_asked_noun
from grasp_agent.skb.hpo import HPO_SCHEMA
from grasp_agent.skb.schema import NodeType, RelationPair, RelationType, SkbSchema

# A schema of another domain, so that nothing here is read from the HPO's words.
GEO = SkbSchema(
    name="geo",
    node_types=(
        NodeType(label="Country", aliases=("nation", "state")),
        NodeType(label="City", aliases=("town",)),
        NodeType(label="Currency", aliases=("money",)),
        NodeType(label="Area", aliases=("region",)),
    ),
)


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("ctry", None),  # not a start of "country": letters dropped inside a word are not read
        ("countr", "Country"),
        ("curr", "Currency"),
        ("currs", "Currency"),  # a plural "s" after the start
        ("curr.", "Currency"),
        ("natns", None),
        ("c/y", None),  # a first letter and later letters around a slash: c(ountr)y, c(it)y, c(urrenc)y: three owners
        ("n/n", "Country"),  # n(atio)n
        ("t/n", "City"),  # t(ow)n
        ("reg", "Area"),
        ("co", None),  # two letters are too few
        ("country", None),  # a whole type word is no shortening (the ordinary reading finds it)
        ("cit", "City"),
    ],
)
def test_a_shortening_is_the_start_of_one_types_word(token: str, expected: str | None) -> None:
    assert abbreviated_type(token, GEO) == expected


def test_a_shortening_two_types_could_own_is_not_read() -> None:
    schema = SkbSchema(name="s", node_types=(NodeType(label="Country"), NodeType(label="County")))
    assert abbreviated_type("coun", schema) is None
    assert abbreviated_type("countr", schema) == "Country"


def test_only_the_slot_is_read_and_never_a_function_word() -> None:
    question = "Which other currs does France use?"
    assert read_slot(question, GEO, question.index("other")) == SlotWord(
        SlotKind.SHORTENED, question.index("currs"), "currs", "Currency"
    )
    # "are" starts "area" but is English, not a shortening
    assert read_slot("What are the towns of X?", GEO, len("What")) is None
    assert read_slot("Which currs", GEO, 0) is None  # the slot starts with "Which", no type word


@pytest.mark.parametrize(
    ("question", "unread"),
    [
        ("Which dx are linked to the gene FBN1?", True),
        ("What explains these findings?", True),  # "findings" names a station of the question, not its type
        ("Which large coastal towns lie in X?", False),  # modifiers of the type word after them
        ("Which towns border X?", False),  # a type word
        ("Which borders does X have?", False),  # a word of the schema's relations (BORDERS)
        ("Which capital lies in X?", False),  # a role noun of the schema
        ("Which capitals lie in X?", False),  # and its plural
        ("Which one of the towns is largest?", False),  # a pronoun is the asked noun itself
        ("Which one says Y about the towns of X?", False),
        ("What is X?", False),
        ("Which one's name is longest among the towns of X?", False),  # a possessive heads no noun
    ],
)
def test_a_noun_in_the_slot_the_schema_cannot_read_is_unread(question: str, unread: bool) -> None:
    geo = GEO.model_copy(
        update={
            "relation_types": (
                RelationType(type="BORDERS", pairs=(RelationPair(source="Country", target="Country"),)),
                RelationType(
                    type="CAPITAL_OF",
                    pairs=(RelationPair(source="City", target="Country"),),
                    source_nouns=("capital",),
                ),
            )
        }
    )
    slot = read_slot(question, geo, question.index(" "))
    assert (slot is not None and slot.kind is SlotKind.UNREAD) is unread


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("Which conds have a more specific form of Seizure?", ("Disease", "conds")),
        ("What d/o show a feature classified directly under Seizure?", ("Disease", "d/o")),
        ("Kabuki syndrome; shared gene; Seizure: other conds?", ("Disease", "conds")),
        ("Which phenos does Marfan syndrome have?", ("Phenotype", "phenos")),
        # a noun the schema cannot read asks for some type, not for the gene the question names later
        ("Which dx are associated with the gene FBN1?", None),
        ("Seizure; shared gene; Marfan syndrome: other dx?", None),
        # nor does a name between the wh-word and a word make that word the slot's
        ("Which FBN1 variants cause Seizure?", None),
        # unless the word shortens a type word, which the name then modifies (the verb after it is no type word)
        ("Which FBN1 d/o feature a more specific kind of Seizure?", ("Disease", "d/o")),
        # past an ordinary word modifying the shortened type word ("nerves" names no type)
        ("Which nerves d/o cause Seizure?", ("Disease", "d/o")),
        ("Which rare inherited conds cause Seizure?", ("Disease", "conds")),
        # outside the slot a start of a type word is an ordinary word
        ("Count the genes of Marfan syndrome", ("Gene", "genes")),
    ],
)
def test_the_asked_type_is_read_from_a_shortened_word_in_its_slot(question: str, asked: tuple[str, str] | None) -> None:
    assert target_mention(question, HPO_SCHEMA, ["Seizure", "Marfan syndrome", "Kabuki syndrome", "FBN1"]) == asked


def test_a_shortened_type_word_reads_the_same_on_another_schema() -> None:
    assert target_mention("Which towns lie in France?", GEO, ["France"]) == ("City", "towns")
    assert target_mention("Which curr. does France use?", GEO, ["France"]) == ("Currency", "curr")


@pytest.mark.parametrize(
    ("question", "unread"),
    [
        ("Which dx present with a subtype of Seizure?", True),
        ("Other dx sharing a gene with Seizure", True),  # a leading determiner opens the slot
        ("Count dx sharing a gene with Seizure", False),  # a first word with none before it may be a verb
        # the hierarchy's own words are read by the hierarchy cues, not unread
        ("Which forms of Seizure mention fever?", False),
        ("Which variants of Seizure mention fever?", False),
        ("Which descendants of Seizure mention fever?", False),
        # after a clause the wh-word is a pronoun and a verb follows it
        ("Among the subtypes of Seizure, which mentions fever?", False),
        ("Of the child terms of Seizure: which contains the word fever?", False),
        # unless the clause names no set for it to pick from: then the wh-word asks by the noun after it
        ("Apart from Seizure, which dx caused by the same gene show fever?", True),
        # a colon right after a hierarchy word: the words before it ask, the noun after it is a keyword; an arrow
        # walks on to the noun after it
        ("Seizure subtype: fever", False),
        ("Seizure parent terms : fever", False),
        ("Seizure > subtype -> dx", True),
        ("Seizure; shared gene: dx?", True),
    ],
)
def test_an_unread_noun_is_told_apart_from_the_hierarchys_words(question: str, unread: bool) -> None:
    assert unread_asked_noun(question, HPO_SCHEMA, ["Seizure"]) is unread
