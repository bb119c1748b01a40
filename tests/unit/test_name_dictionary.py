"""The name dictionary: normalisation, longest exact names over their parts, compounds, synonyms, case guards."""

from __future__ import annotations

from grasp_agent.graph_branch.entity_table import aliases
from grasp_agent.graph_branch.mentions import Mention
from grasp_agent.graph_branch.name_dictionary import (
    DictionaryEntry,
    NameDictionary,
    key_values,
    schema_words,
    within_one_edit,
)
from grasp_agent.graph_branch.phrases import occurrences, phrase_key, phrase_tokens
from grasp_agent.graph_branch.plan import MatchMode
from grasp_agent.skb.schema import SkbSchema


def _dictionary(*rows: tuple[str, str, str, tuple[str, ...]]) -> NameDictionary:
    entries = []
    for node_id, label, name, synonyms in rows:
        entries.append((name, DictionaryEntry(node_id, label, name)))
        entries.extend((synonym, DictionaryEntry(node_id, label, name, True)) for synonym in synonyms)
    return NameDictionary(entries)


DICTIONARY = _dictionary(
    ("HP:0012839", "Phenotype", "Distal", ()),
    ("HP:0001324", "Phenotype", "Muscle weakness", ("Muscular weakness",)),
    ("HP:0002460", "Phenotype", "Distal muscle weakness", ()),
    ("HP:0001250", "Phenotype", "Seizure", ("Epileptic seizure", "Seizures")),
    ("HP:0000006", "Phenotype", "Autosomal dominant inheritance", ("Inheritance",)),
    ("HP:0000600", "Phenotype", "Abnormality of the tongue", ()),
    ("NCBIGene:16", "Gene", "AARS1", ()),
    ("NCBIGene:3785", "Gene", "KCNQ2", ()),
    ("NCBIGene:7454", "Gene", "WAS", ()),
    ("NCBIGene:2778", "Gene", "GNAS", ()),
    ("OMIM:613287", "Disease", "Charcot-Marie-Tooth disease, axonal, type 2N", ()),
    ("OMIM:1", "Disease", "Hirschsprung's disease", ()),
)


def _found(question: str) -> list[tuple[str, str]]:
    return [(match.text, match.entries[0].node_id) for match in DICTIONARY.matches(question)]


def test_normalisation_folds_case_accents_plurals_and_splits_compounds() -> None:
    assert phrase_key("KCNQ2-related") == "kcnq2 related"
    assert phrase_key("Seizures") == phrase_key("seizure")
    assert phrase_key("Aplasia/Hypoplasia") == "aplasia hypoplasia"
    assert phrase_key("Sjögren's syndromes") == "sjogren syndrome"
    assert phrase_key("Abnormality of the tongue") == "abnormality of the tongue"
    # offsets point into the text as written
    assert [(t, s, e) for t, s, e, _ in phrase_tokens("a KCNQ2-related x")] == [
        ("a", 0, 1),
        ("kcnq2", 2, 7),
        ("related", 8, 15),
        ("x", 16, 17),
    ]


def test_occurrences_are_every_case_insensitive_place_overlapping_ones_too() -> None:
    assert occurrences("Ataxia, or ATAXIA again", "ataxia") == [(0, 6), (11, 17)]
    assert occurrences("aaa", "aa") == [(0, 2), (1, 3)]
    assert occurrences("anything", "") == [] and occurrences("", "x") == []


def test_an_exact_whole_name_and_its_parts_are_all_found_with_offsets() -> None:
    question = "Which disease is associated with the AARS1 gene and presents with distal muscle weakness?"
    found = _found(question)
    assert ("distal muscle weakness", "HP:0002460") in found
    assert ("AARS1", "NCBIGene:16") in found
    for match in DICTIONARY.matches(question):
        assert question[match.start : match.end] == match.text


def test_hyphen_compounds_and_lower_case_symbols_hide_no_names() -> None:
    assert ("KCNQ2", "NCBIGene:3785") in _found("Which KCNQ2-related disorder features seizures?")
    assert ("seizures", "HP:0001250") in _found("Which KCNQ2-related disorder features seizures?")
    assert ("gnas", "NCBIGene:2778") in _found("what diseases are caused by mutations in gnas?")
    assert ("kcnq2", "NCBIGene:3785") in _found("which kcnq2-associated conditions are known")


def test_a_symbol_that_is_an_ordinary_word_matches_only_as_written() -> None:
    assert not _found("Which disease was first described in 1990?")  # 'was' is a function word, not WAS
    assert ("WAS", "NCBIGene:7454") in _found("Which diseases are linked to WAS?")


def test_a_lower_case_word_after_a_possessive_is_a_noun_not_a_symbol() -> None:
    dictionary = _dictionary(("NCBIGene:6651", "Gene", "SON", ()), ("HP:1", "Phenotype", "Myelitis", ()))
    found = [match.text for match in dictionary.matches("My son was diagnosed with myelitis")]
    assert found == ["myelitis"]
    assert [m.text for m in dictionary.matches("Is son linked to myelitis?")] == ["son", "myelitis"]
    assert [m.text for m in dictionary.matches("my SON variant")] == ["SON"]  # written as a symbol, it is one


def test_a_one_word_synonym_that_is_an_ordinary_word_does_not_match_alone() -> None:
    dictionary = _dictionary(
        ("HP:1", "Phenotype", "Mode of inheritance", ("Inheritance",)),
        ("HP:2", "Phenotype", "Autosomal recessive inheritance", ()),
    )
    assert not dictionary.matches("what inheritance does it have")
    assert [m.text for m in dictionary.matches("autosomal recessive inheritance")] == [
        "autosomal recessive inheritance"
    ]


def test_synonyms_and_possessives_lead_to_the_node_name() -> None:
    assert DICTIONARY.canonical_name("muscular weakness", "Phenotype") == "Muscle weakness"
    assert DICTIONARY.canonical_name("Epileptic seizures") == "Seizure"
    assert DICTIONARY.canonical_name("Hirschsprung disease", "Disease") == "Hirschsprung's disease"
    assert DICTIONARY.canonical_name("muscle weakness", "Gene") is None
    assert DICTIONARY.canonical_name("no such thing") is None


def test_a_name_with_punctuation_matches_without_it() -> None:
    found = _found("genes of charcot marie tooth disease axonal type 2n")
    assert ("charcot marie tooth disease axonal type 2n", "OMIM:613287") in found


def test_an_empty_dictionary_matches_nothing() -> None:
    assert NameDictionary([]).matches("anything at all") == []
    assert len(NameDictionary([])) == 0


def test_one_edit_distance_counts_a_swap_as_one_edit() -> None:
    assert within_one_edit("weakness", "weakenss")  # swap
    assert within_one_edit("weakness", "weaknes") and within_one_edit("weakness", "weakkness")
    assert within_one_edit("weakness", "weaknest")
    assert not within_one_edit("weakness", "waeknses") and not within_one_edit("spasm", "spasmodic")


def test_a_misspelt_name_is_found_through_the_names_own_words() -> None:
    found = {
        m.text: (m.entries[0].node_id, m.corrected) for m in DICTIONARY.matches("diseases with distal muscle weakenss")
    }
    assert found["distal muscle weakenss"] == ("HP:0002460", True)
    assert found["distal"] == ("HP:0012839", False)  # exact parts stay exact
    assert DICTIONARY.canonical_name("Distal musle weakness", "Phenotype") == "Distal muscle weakness"
    # a short word one edit from a name is too often another word: no one-word correction under 7 letters
    assert not [m for m in DICTIONARY.matches("a seizre") if m.corrected]
    assert DICTIONARY.correction("weakness") is None  # a word of the names is never corrected
    assert DICTIONARY.correction("the") is None


def test_a_symbol_typed_with_a_slip_is_read_as_the_one_symbol_one_edit_away() -> None:
    genes = _dictionary(
        ("NCBIGene:26227", "Gene", "PHGDH", ()),
        ("NCBIGene:6323", "Gene", "SCN1A", ()),
        ("NCBIGene:6326", "Gene", "SCN2A", ()),
        ("ORPHA:1", "Disease", "PHGDH deficiency", ()),
        ("HP:0001250", "Phenotype", "Seizure", ()),
    )

    def found(question: str) -> list[tuple[str, str, bool]]:
        return [(m.text, m.entries[0].node_id, m.corrected) for m in genes.matches(question)]

    # a swap in a five-letter symbol, a swap with a digit, a doubled last character: each one symbol away
    assert found("Which conditions involve PHDGH?") == [("PHDGH", "NCBIGene:26227", True)]
    assert found("Which diseases does SNC1A cause?") == [("SNC1A", "NCBIGene:6323", True)]
    assert found("Which diseases does SCN1AA cause?") == [("SCN1AA", "NCBIGene:6323", True)]
    # two symbols one edit away: no reading; typed in lower case or as a word: no symbol reading
    assert found("Which diseases does SCN3A cause?") == []
    assert found("which conditions involve phdgh?") == []
    assert found("A SIEZURE?") == []  # a word in capitals is read as a symbol only, and no symbol is near


def test_key_values_match_as_synonyms_and_lower_case_codes_are_no_ordinary_words() -> None:
    japan = DictionaryEntry("country:JP", "Country", "Japan")
    japanese = DictionaryEntry("language:jpn", "Language", "Japanese")
    india = DictionaryEntry("country:IN", "Country", "India")
    entries = [
        ("Japan", japan),
        ("JPN", DictionaryEntry("country:JP", "Country", "Japan", True, True)),
        ("Japanese", japanese),
        ("jpn", DictionaryEntry("language:jpn", "Language", "Japanese", True, True)),
        ("India", india),
        ("IN", DictionaryEntry("country:IN", "Country", "India", True, True)),
        ("Isle of Man", DictionaryEntry("country:IM", "Country", "Isle of Man")),
    ]
    dictionary = NameDictionary(entries)
    (match,) = dictionary.matches("What currency does JPN use?")
    assert {entry.node_id for entry in match.entries} == {"country:JP", "language:jpn"}
    # a code that is an ordinary word of the names ("of", "in") still names nothing alone
    assert [m.text for m in dictionary.matches("Which cities are in India?")] == ["India"]
    # the same codes as plain synonyms: "jpn" in lower case reads as a word of the names, and blocks JPN
    plain = [(surface, DictionaryEntry(e.node_id, e.label, e.name, e.from_synonym)) for surface, e in entries]
    assert NameDictionary(plain).matches("What currency does JPN use?") == []


def test_a_key_property_lists_its_keys_and_a_short_number_needs_its_mark() -> None:
    assert key_values(["Antiguan,Barbudan", "Kenyan", "+254", "+1", "7", "+1-268", " ; "]) == [
        "Antiguan",
        "Barbudan",
        "Kenyan",
        "+254",
        "+1",
        "+1-268",
    ]
    japan = DictionaryEntry("country:JP", "Country", "Japan", True, True)
    named = DictionaryEntry("thing:81", "Thing", "81")  # a node named by the number itself
    dictionary = NameDictionary([("+81", japan), ("81", named)])
    assert [m.entries for m in dictionary.matches("Who has the code +81?")] == [(japan, named)]
    assert [m.entries for m in dictionary.matches("Which 81 countries?")] == [(named,)]


def test_a_synonym_or_key_is_an_alias_of_its_node_and_its_name_is_not() -> None:
    kenya = DictionaryEntry("country:KE", "Country", "Kenya")
    dictionary = NameDictionary(
        [
            ("Kenya", kenya),
            ("Republic of Kenya", DictionaryEntry("country:KE", "Country", "Kenya", True)),
            ("Kenyan", DictionaryEntry("country:KE", "Country", "Kenya", True, True)),
            ("+254", DictionaryEntry("country:KE", "Country", "Kenya", True, True)),
        ]
    )
    assert "country:KE" not in dictionary.aliased("the Republic of Kenya")  # "the" is part of the span
    assert "country:KE" in dictionary.aliased("Republic of Kenya")
    assert "country:KE" in dictionary.aliased("Kenyan")
    assert "country:KE" in dictionary.aliased("+254")
    assert "country:KE" not in dictionary.aliased("kenya")  # its own name, in any case
    assert "country:TZ" not in dictionary.aliased("Kenyan")  # another node's alias
    assert [m.text for m in dictionary.matches("Which country has the dialling code +254?")] == ["254"]
    # the entity table keeps the nodes a name mention writes an alias of; a described mention names none
    assert aliases(Mention(text="Kenyan", types=("Country",)), dictionary) == {"country:KE"}
    assert aliases(Mention(text="Kenya", types=("Country",)), dictionary) == frozenset()
    assert aliases(Mention(text="Kenyan", match_mode=MatchMode.DOC), dictionary) == frozenset()
    assert aliases(Mention(text="Kenyan"), None) == frozenset()


def test_a_word_of_the_schema_is_never_read_as_a_misspelt_name() -> None:
    entries = [("Contai", DictionaryEntry("city:1", "City", "Contai"))]
    question = "Which continents contain the lands that contain Mont Buxton?"
    assert [m.text for m in NameDictionary(entries).matches(question) if m.corrected] == ["contain", "contain"]
    schema = SkbSchema.model_validate(
        {
            "name": "places",
            "node_types": [{"label": "City"}, {"label": "Country"}],
            "relation_types": [
                {
                    "type": "LOCATED_IN",
                    "pairs": [{"source": "City", "target": "Country"}],
                    "inverse_phrases": ["contains"],
                },
                {"type": "CAPITAL_OF", "pairs": [{"source": "City", "target": "Country"}], "source_nouns": ["capital"]},
            ],
        }
    )
    words = schema_words(schema)
    assert {"contains", "contain", "located", "city", "cities"} - words == {"cities"}  # a final s only, no y -> ies
    assert {"capital", "capitals"} <= words  # role nouns too
    assert NameDictionary(entries, words).matches(question) == []
    assert NameDictionary(entries, words).matches("Which country holds Contai?")[0].text == "Contai"  # exact still


def test_a_mention_links_exactly_to_every_node_it_names_or_is_a_synonym_of() -> None:
    from grasp_agent.graph_branch.entity_table import dictionary_links

    dictionary = _dictionary(
        ("ORPHA:791", "Disease", "Retinitis pigmentosa", ()),
        ("HP:0000510", "Phenotype", "Rod-cone dystrophy", ("Retinitis pigmentosa",)),
        ("NCBIGene:1", "Gene", "RP1", ()),
    )
    mention = Mention(text="retinitis pigmentosa", types=("Disease",))
    # the disease by its name, the phenotype by its synonym: both exact, whatever name the mention is embedded as
    assert dictionary_links(mention, dictionary, ["Disease", "Phenotype", "Gene"]) == [
        ("ORPHA:791", "Disease", 1.0),
        ("HP:0000510", "Phenotype", 1.0),
    ]
    assert dictionary_links(mention, dictionary, ["Disease"]) == [("ORPHA:791", "Disease", 1.0)]  # labels linked
    assert dictionary_links(Mention(text="night blindness", types=("Phenotype",)), dictionary, ["Phenotype"]) == []


def test_name_shares_count_each_types_own_names_not_synonyms() -> None:
    dictionary = _dictionary(
        ("D:1", "Disease", "Chylous ascites", ("Milky ascites",)),
        ("D:2", "Disease", "Spastic paraplegia 7", ()),
        ("D:3", "Disease", "Spastic ataxia", ()),
        ("D:4", "Disease", "Ascites, chylous", ()),
        ("HP:1", "Phenotype", "Spasticity", ()),
    )
    shares = dictionary.name_shares("Disease")
    assert shares["chylous"] == 0.5 and shares["spastic"] == 0.5 and shares["ascite"] == 0.5
    assert "milky" not in shares  # a synonym is no name
    assert dictionary.name_shares("Phenotype") == {"spasticity": 1.0}
    assert dictionary.name_shares("Gene") == {}


def test_a_code_is_written_as_itself_never_through_a_plural_nor_as_a_word_of_the_schema() -> None:
    liechtenstein = DictionaryEntry("country:LI", "Country", "Liechtenstein")
    code = DictionaryEntry("country:LI", "Country", "Liechtenstein", True, True)
    japan = DictionaryEntry("country:JP", "Country", "Japan", True, True)
    entries = [("Liechtenstein", liechtenstein), ("LIE", code), ("JPN", japan)]
    plain = NameDictionary(entries)
    assert plain.matches("What lies next to Hungary?") == []  # "lies" is read as "lie" only through its plural
    assert [m.text for m in plain.matches("Which cities does LIE hold?")] == ["LIE"]
    assert [m.text for m in plain.matches("what currency does jpn use?")] == ["jpn"]  # a lower-case code still
    # "lie" is a word the schema words a relation with ("lies in"): a question writes it as that word
    words = frozenset({"lie", "lies", "located"})
    with_schema = NameDictionary(entries, words)
    assert with_schema.matches("Where does Lyon lie?") == []
    assert [m.text for m in with_schema.matches("Which cities does LIE hold?")] == ["LIE"]  # upper case: the code
