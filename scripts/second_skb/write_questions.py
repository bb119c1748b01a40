"""Write the frozen hand-written question set of the "geo" SKB (docs/eval/second-skb/questions.jsonl).

Every sentence frame below was written by hand for this set, in several wording families, as different people
would ask; none comes from a generator of the repository. Anchors are drawn from the loaded graph with a fixed
seed, and every gold answer is computed from the graph with Cypher: the frames never state an answer.

Rules the script enforces:
- every value in a Cypher query is a parameter; labels, relation types and property names are written into the
  fixed query strings below, never built from data;
- a question is kept only with 1 to 20 answers;
- an anchor named in a question (outside the "disambiguation" kind, whose point is shared names) must have a
  name no other node has, so the gold answers are the only reading;
- the same anchor is used at most twice in the whole set.

Kinds (the `template` field): lookup (one hop), reverse (one hop against the stored direction, many answers),
two_hop, conjunction (two anchors), described (the anchor is named by an attribute: demonym, web domain,
dialling code, official name, ISO or FIPS code), superlative (the answer is picked by population or area),
disambiguation (names shared by several nodes). Wording families (the `level` field): plain, implied (the
asked type is not named), context (irrelevant details around the question), noisy (lower case and a misspelt
name), abbrev (ISO codes, postal codes, "the UK"-style short names).

Usage (the SKB loaded into instance skb2, see docs/second_skb.md):

    .venv/bin/python scripts/second_skb/write_questions.py --out docs/eval/second-skb/questions.jsonl

Written once; the set is frozen: it is never used to choose a value, and a system is reported on it once per change.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SEED = 20261205
MAX_ANSWERS = 20
MAX_USES_PER_ANCHOR = 2
PROJECT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Frame:
    family: str
    text: str


@dataclass(frozen=True)
class Spec:
    """One question shape: anchor rows (with the slot values the frames use, `anchor_ids` and the `names` that
    must be unambiguous), the Cypher of its answers (parameters from the anchor row), and its frames."""

    key: str
    kind: str
    target_type: str
    hops: int
    anchors: str
    answers: str
    frames: tuple[Frame, ...]
    ambiguous_names_allowed: bool = False


def f(family: str, text: str) -> Frame:
    return Frame(family, text)


# Population and area are stored as display text ("1,505,005"); queries compare them as integers.
POP = "toInteger(replace({0}.population, ',', ''))"
AREA = "toInteger(replace({0}.area_km2, ',', ''))"

SPECS: tuple[Spec, ...] = (
    # ------------------------------------------------------------------------------------------ lookup
    Spec(
        "currency_of_country",
        "lookup",
        "Currency",
        1,
        f"""MATCH (c:Country)-[:USES_CURRENCY]->(:Currency) WHERE {POP.format("c")} >= 500000
            RETURN DISTINCT c.id AS a, c.name AS country, c.iso_alpha3 AS iso3, [c.id] AS anchor_ids,
                   [c.name] AS names ORDER BY a""",
        "MATCH (:Country {id: $a})-[:USES_CURRENCY]->(x:Currency) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which currency is used in {country}?"),
            f("plain", "What is the official currency of {country}?"),
            f("implied", "What do people pay with in {country}?"),
            f(
                "context",
                "I'm flying to {country} next month for a friend's wedding and want to change some cash "
                "beforehand. What currency do they use there?",
            ),
            f("noisy", "currency used in {country|typo}"),
            f("abbrev", "What currency does the country with ISO code {iso3} use?"),
        ),
    ),
    Spec(
        "capital_of_country",
        "lookup",
        "City",
        1,
        """MATCH (:City)-[:CAPITAL_OF]->(c:Country)
           RETURN DISTINCT c.id AS a, c.name AS country, c.iso_alpha2 AS iso2, [c.id] AS anchor_ids,
                  [c.name] AS names ORDER BY a""",
        "MATCH (x:City)-[:CAPITAL_OF]->(:Country {id: $a}) RETURN DISTINCT x.id AS id",
        (
            f("plain", "What is the capital of {country}?"),
            f("plain", "Name the capital city of {country}."),
            f("implied", "Where does the government of {country} sit?"),
            f(
                "context",
                "My cousin keeps sending postcards from {country}, and they always come from its capital. "
                "Which city would that be?",
            ),
            f("noisy", "capital city of {country|typo}"),
            f("abbrev", "capital of {iso2}?"),
        ),
    ),
    Spec(
        "languages_of_country",
        "lookup",
        "Language",
        1,
        """MATCH (c:Country)-[:HAS_LANGUAGE]->(:Language)
           RETURN DISTINCT c.id AS a, c.name AS country, [c.id] AS anchor_ids, [c.name] AS names ORDER BY a""",
        "MATCH (:Country {id: $a})-[:HAS_LANGUAGE]->(x:Language) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which languages are spoken in {country}?"),
            f("implied", "What do people speak in {country}?"),
            f(
                "context",
                "We're hiring a local guide for a school trip to {country} and the kids are nervous. "
                "Which languages should the guide know?",
            ),
            f("noisy", "languages of {country|typo}"),
            f("plain", "List the languages of {country}."),
        ),
    ),
    Spec(
        "neighbours_of_country",
        "lookup",
        "Country",
        1,
        """MATCH (c:Country)-[:BORDERS]->(:Country)
           RETURN DISTINCT c.id AS a, c.name AS country, c.iso_alpha3 AS iso3, [c.id] AS anchor_ids,
                  [c.name] AS names ORDER BY a""",
        "MATCH (:Country {id: $a})-[:BORDERS]->(x:Country) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which countries share a land border with {country}?"),
            f("plain", "What are the neighbouring countries of {country}?"),
            f("implied", "If you drive out of {country}, where can you end up?"),
            f("context", "For a geography quiz my daughter is preparing: which nations border {country}?"),
            f("noisy", "countries bordering {country|typo}"),
            f("abbrev", "Which countries border {iso3}?"),
        ),
    ),
    Spec(
        "country_of_city",
        "lookup",
        "Country",
        1,
        f"""MATCH (c:City)-[:LOCATED_IN]->(:Country) WHERE {POP.format("c")} >= 300000
            RETURN DISTINCT c.id AS a, c.name AS city, [c.id] AS anchor_ids, [c.name] AS names ORDER BY a""",
        "MATCH (:City {id: $a})-[:LOCATED_IN]->(x:Country) RETURN DISTINCT x.id AS id",
        (
            f("plain", "In which country is {city}?"),
            f("plain", "Which country does the city of {city} belong to?"),
            f("implied", "Where is {city}?"),
            f(
                "context",
                "A colleague of mine just moved to {city} for a job at a children's hospital. "
                "Which country is that in?",
            ),
            f("noisy", "which country is {city|typo} in"),
        ),
    ),
    Spec(
        "state_of_county",
        "lookup",
        "Subdivision",
        1,
        """MATCH (c:County)-[:LOCATED_IN]->(:Subdivision)
           RETURN DISTINCT c.id AS a, c.name AS county, [c.id] AS anchor_ids, [c.name] AS names ORDER BY a""",
        "MATCH (:County {id: $a})-[:LOCATED_IN]->(x:Subdivision) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which US state is {county} in?"),
            f("implied", "{county} belongs to which part of the United States?"),
            f(
                "context",
                "My grandfather's farm was somewhere in {county}; I never went there and the deeds are lost. "
                "What state is it in?",
            ),
            f("noisy", "state of {county|lower}"),
        ),
    ),
    Spec(
        "country_of_subdivision",
        "lookup",
        "Country",
        1,
        """MATCH (s:Subdivision)-[:LOCATED_IN]->(:Country)
           WHERE NOT (s)-[:PART_OF]->(:Subdivision)
             AND s.subdivision_type IN ['Province', 'State', 'Region', 'Canton', 'Prefecture', 'Governorate',
                                        'Department', 'Autonomous community', 'Oblast', 'County']
           RETURN DISTINCT s.id AS a, s.name AS sub, toLower(s.subdivision_type) AS stype, [s.id] AS anchor_ids,
                  [s.name] AS names ORDER BY a""",
        "MATCH (:Subdivision {id: $a})-[:LOCATED_IN]->(x:Country) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which country is the {stype} of {sub} part of?"),
            f("plain", "{sub} is a {stype} of which country?"),
            f(
                "context",
                "I'm reading a detective novel set in {sub} and realised I have no idea where that is. "
                "Which country has it?",
            ),
            f("noisy", "{sub|typo} is in what country"),
        ),
    ),
    Spec(
        "continent_of_country",
        "lookup",
        "Continent",
        1,
        """MATCH (c:Country)-[:LOCATED_IN]->(:Continent)
           RETURN DISTINCT c.id AS a, c.name AS country, c.iso_alpha3 AS iso3, [c.id] AS anchor_ids,
                  [c.name] AS names ORDER BY a""",
        "MATCH (:Country {id: $a})-[:LOCATED_IN]->(x:Continent) RETURN DISTINCT x.id AS id",
        (
            f("plain", "On which continent is {country}?"),
            f("implied", "Where in the world is {country}, roughly?"),
            f("noisy", "continent of {country|lower}"),
            f("abbrev", "{iso3}: which continent?"),
        ),
    ),
    Spec(
        "region_of_country",
        "lookup",
        "Region",
        1,
        """MATCH (c:Country)-[:IN_REGION]->(:Region)
           RETURN DISTINCT c.id AS a, c.name AS country, [c.id] AS anchor_ids, [c.name] AS names ORDER BY a""",
        "MATCH (:Country {id: $a})-[:IN_REGION]->(x:Region) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which UN region does {country} belong to?"),
            f(
                "context",
                "For our report on regional trade figures, under which UN sub-region should {country} be filed?",
            ),
            f("implied", "How do the UN's statistics group {country}?"),
        ),
    ),
    Spec(
        "state_of_us_city",
        "lookup",
        "Subdivision",
        1,
        """MATCH (c:City)-[:LOCATED_IN]->(s:Subdivision)-[:LOCATED_IN]->(:Country {iso_alpha2: $us})
           RETURN DISTINCT c.id AS a, c.name AS city, [c.id] AS anchor_ids, [c.name] AS names ORDER BY a""",
        "MATCH (:City {id: $a})-[:LOCATED_IN]->(x:Subdivision) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which US state is {city} located in?"),
            f("implied", "{city} is in which part of the States?"),
            f(
                "context",
                "Our band has a gig in {city} this Friday and the van is booked. Which state are we driving to?",
            ),
            f("noisy", "what state is {city|lower} in"),
        ),
    ),
    Spec(
        "part_of_european_city",
        "lookup",
        "Subdivision",
        1,
        """MATCH (c:City)-[:LOCATED_IN]->(s:Subdivision)-[:LOCATED_IN]->(k:Country)
           WHERE k.iso_alpha2 IN $europe
           RETURN DISTINCT c.id AS a, c.name AS city, k.name AS country, [c.id] AS anchor_ids, [c.name] AS names
           ORDER BY a""",
        "MATCH (:City {id: $a})-[:LOCATED_IN]->(x:Subdivision) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which first-level division of {country} is {city} in?"),
            f("abbrev", "{city}: which part of the UK, or which Swiss canton or Belgian region, is it in?"),
        ),
    ),
    # ------------------------------------------------------------------------------------------ reverse
    Spec(
        "countries_of_currency",
        "reverse",
        "Country",
        1,
        """MATCH (c:Country)-[:USES_CURRENCY]->(m:Currency) WITH m, count(c) AS n WHERE n >= 2
           RETURN m.id AS a, m.name AS currency, m.iso_code AS code, [m.id] AS anchor_ids, [m.name] AS names
           ORDER BY a""",
        "MATCH (x:Country)-[:USES_CURRENCY]->(:Currency {id: $a}) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which countries use the {currency}?"),
            f("plain", "In which countries is the {currency} legal tender?"),
            f("implied", "Where can I pay with the {currency}?"),
            f(
                "context",
                "An old coin collector left me a tin of {currency} coins. In which countries could I actually "
                "spend them?",
            ),
            f("noisy", "countries using the {currency|typo}"),
            f("abbrev", "Which countries have {code} as their currency?"),
        ),
    ),
    Spec(
        "countries_of_language",
        "reverse",
        "Country",
        1,
        """MATCH (c:Country)-[:HAS_LANGUAGE]->(l:Language) WITH l, count(c) AS n WHERE n >= 2
           RETURN l.id AS a, l.name AS language, l.iso_639_1 AS code, [l.id] AS anchor_ids, [l.name] AS names
           ORDER BY a""",
        "MATCH (x:Country)-[:HAS_LANGUAGE]->(:Language {id: $a}) RETURN DISTINCT x.id AS id",
        (
            f("plain", "In which countries is {language} spoken?"),
            f("plain", "Which countries list {language} among their languages?"),
            f("implied", "Where do people speak {language}?"),
            f(
                "context",
                "I've been learning {language} on an app during my commute for a year now. "
                "Which countries could I use it in?",
            ),
            f("noisy", "{language|lower} speaking countries"),
        ),
    ),
    Spec(
        "countries_of_language_code",
        "reverse",
        "Country",
        1,
        """MATCH (c:Country)-[:HAS_LANGUAGE]->(l:Language) WHERE l.iso_639_1 IS NOT NULL
           WITH l, count(c) AS n WHERE n >= 2
           RETURN l.id AS a, l.iso_639_1 AS code, [l.id] AS anchor_ids, [] AS names ORDER BY a""",
        "MATCH (x:Country)-[:HAS_LANGUAGE]->(:Language {id: $a}) RETURN DISTINCT x.id AS id",
        (
            f("abbrev", "Which countries speak the language whose ISO 639-1 code is '{code}'?"),
            f("abbrev", "countries where lang={code} is used"),
        ),
    ),
    Spec(
        "counties_of_state",
        "reverse",
        "County",
        1,
        """MATCH (c:County)-[:LOCATED_IN]->(s:Subdivision) WITH s, count(c) AS n WHERE n <= 20
           RETURN s.id AS a, s.name AS state, substring(s.iso_code, 3) AS abbr, [s.id] AS anchor_ids,
                  [s.name] AS names ORDER BY a""",
        "MATCH (x:County)-[:LOCATED_IN]->(:Subdivision {id: $a}) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which counties are in {state}?"),
            f("plain", "List the counties of {state}."),
            f("context", "I'm mapping polling places for a civics class project on {state}. What are its counties?"),
            f("abbrev", "Which counties are in the US state abbreviated {abbr}?"),
        ),
    ),
    Spec(
        "cities_of_subdivision",
        "reverse",
        "City",
        1,
        f"""MATCH (c:City)-[:LOCATED_IN]->(s:Subdivision) WHERE {POP.format("c")} >= 50000
            WITH s, count(c) AS n WHERE n >= 2
            RETURN s.id AS a, s.name AS sub, [s.id] AS anchor_ids, [s.name] AS names ORDER BY a""",
        f"""MATCH (x:City)-[:LOCATED_IN]->(:Subdivision {{id: $a}}) WHERE {POP.format("x")} >= 50000
            RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which cities with at least 50,000 people are in {sub}?"),
            f("implied", "What are the places in {sub} with 50,000 or more residents?"),
            f(
                "context",
                "We're relocating within {sub} because of my wife's new job and want somewhere with over "
                "50,000 people. Which cities qualify?",
            ),
            f("noisy", "cities in {sub|typo} with 50000+ people"),
        ),
    ),
    Spec(
        "countries_of_region",
        "reverse",
        "Country",
        1,
        """MATCH (r:Region) RETURN r.id AS a, r.name AS region, [r.id] AS anchor_ids, [r.name] AS names
           ORDER BY a""",
        "MATCH (x:Country)-[:IN_REGION]->(:Region {id: $a}) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which countries are in {region}?"),
            f("plain", "Name the countries that the UN groups under {region}."),
            f("implied", "What belongs to the UN region {region}?"),
            f(
                "context",
                "Our charity is launching a clean-water programme across {region}. Which countries would it cover?",
            ),
            f("noisy", "countries of {region|lower}"),
        ),
    ),
    Spec(
        "children_of_subdivision",
        "reverse",
        "Subdivision",
        1,
        """MATCH (c:Subdivision)-[:PART_OF]->(p:Subdivision) WITH p, count(c) AS n, collect(DISTINCT c.subdivision_type) AS t
           WHERE 2 <= n <= 12 AND size(t) = 1
           RETURN p.id AS a, p.name AS sub, toLower(t[0]) AS ctype, toLower(p.subdivision_type) AS ptype,
                  [p.id] AS anchor_ids, [p.name] AS names ORDER BY a""",
        "MATCH (x:Subdivision)-[:PART_OF]->(:Subdivision {id: $a}) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which subdivisions make up the {ptype} of {sub}?"),
            f("plain", "What are the {ctype|plural} of {sub}?"),
            f(
                "context",
                "I'm planning to cycle through every administrative unit of {sub} this summer. "
                "Which smaller units is it divided into?",
            ),
            f("implied", "What is {sub} divided into?"),
        ),
    ),
    Spec(
        "big_cities_of_country",
        "reverse",
        "City",
        1,
        f"""MATCH (c:City)-[:LOCATED_IN]->(k:Country) WHERE {POP.format("c")} >= 50000
            WITH k, count(c) AS n WHERE n >= 2
            RETURN k.id AS a, k.name AS country, [k.id] AS anchor_ids, [k.name] AS names ORDER BY a""",
        f"""MATCH (x:City)-[:LOCATED_IN]->(:Country {{id: $a}}) WHERE {POP.format("x")} >= 50000
            RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which cities in {country} have at least 50,000 inhabitants?"),
            f("implied", "Where in {country} do 50,000 or more people live in one place?"),
            f("noisy", "cities in {country|typo} over 50000 people"),
        ),
    ),
    # ------------------------------------------------------------------------------------------ two hops
    Spec(
        "languages_of_capitals_country",
        "two_hop",
        "Language",
        2,
        """MATCH (c:City)-[:CAPITAL_OF]->(k:Country)-[:HAS_LANGUAGE]->(:Language)
           RETURN DISTINCT c.id AS a, c.name AS city, [c.id] AS anchor_ids, [c.name] AS names ORDER BY a""",
        """MATCH (:City {id: $a})-[:CAPITAL_OF]->(:Country)-[:HAS_LANGUAGE]->(x:Language)
           RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which languages are spoken in the country whose capital is {city}?"),
            f("implied", "What do people speak in the country that has {city} as its capital?"),
            f(
                "context",
                "Before my posting to {city} I'd like to start an evening course. Which languages are used in "
                "the country it is the capital of?",
            ),
            f("noisy", "languages of the country with capital {city|typo}"),
        ),
    ),
    Spec(
        "currency_of_citys_country",
        "two_hop",
        "Currency",
        2,
        f"""MATCH (c:City)-[:LOCATED_IN]->(:Country)-[:USES_CURRENCY]->(:Currency) WHERE {POP.format("c")} >= 300000
            RETURN DISTINCT c.id AS a, c.name AS city, [c.id] AS anchor_ids, [c.name] AS names ORDER BY a""",
        """MATCH (:City {id: $a})-[:LOCATED_IN]->(:Country)-[:USES_CURRENCY]->(x:Currency)
           RETURN DISTINCT x.id AS id""",
        (
            f("plain", "What currency is used in the country where {city} is located?"),
            f("implied", "If I'm in {city}, what money do I need?"),
            f(
                "context",
                "I land in {city} at midnight and the exchange booth will be closed. Which currency should I "
                "bring from home?",
            ),
            f("noisy", "currency for {city|lower}"),
        ),
    ),
    Spec(
        "capital_of_citys_country",
        "two_hop",
        "City",
        2,
        f"""MATCH (c:City)-[:LOCATED_IN]->(k:Country)<-[:CAPITAL_OF]-(:City)
            WHERE {POP.format("c")} >= 300000 AND NOT (c)-[:CAPITAL_OF]->(:Country)
            RETURN DISTINCT c.id AS a, c.name AS city, [c.id] AS anchor_ids, [c.name] AS names ORDER BY a""",
        """MATCH (:City {id: $a})-[:LOCATED_IN]->(:Country)<-[:CAPITAL_OF]-(x:City) RETURN DISTINCT x.id AS id""",
        (
            f("plain", "What is the capital of the country in which {city} lies?"),
            f("implied", "{city} is in some country; where is that country governed from?"),
            f(
                "context",
                "My pen pal lives in {city} and says the capital of her country is a long train ride away. "
                "Which city is the capital?",
            ),
        ),
    ),
    Spec(
        "neighbours_of_capitals_country",
        "two_hop",
        "Country",
        2,
        """MATCH (c:City)-[:CAPITAL_OF]->(:Country)-[:BORDERS]->(:Country)
           RETURN DISTINCT c.id AS a, c.name AS city, [c.id] AS anchor_ids, [c.name] AS names ORDER BY a""",
        """MATCH (:City {id: $a})-[:CAPITAL_OF]->(:Country)-[:BORDERS]->(x:Country) RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which countries border the country whose capital is {city}?"),
            f("implied", "Name the neighbours of the country governed from {city}."),
            f("noisy", "neighbours of country with capital {city|lower}"),
        ),
    ),
    Spec(
        "currencies_of_neighbours",
        "two_hop",
        "Currency",
        2,
        """MATCH (k:Country)-[:BORDERS]->(:Country)-[:USES_CURRENCY]->(:Currency)
           RETURN DISTINCT k.id AS a, k.name AS country, [k.id] AS anchor_ids, [k.name] AS names ORDER BY a""",
        """MATCH (:Country {id: $a})-[:BORDERS]->(:Country)-[:USES_CURRENCY]->(x:Currency)
           RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which currencies are used by the countries bordering {country}?"),
            f(
                "context",
                "We're planning a road trip around {country} that crosses into every neighbouring country. "
                "What money will we need in those neighbours?",
            ),
            f("noisy", "currencies of {country|typo} neighbours"),
        ),
    ),
    Spec(
        "capitals_of_neighbours",
        "two_hop",
        "City",
        2,
        """MATCH (k:Country)-[:BORDERS]->(:Country)<-[:CAPITAL_OF]-(:City)
           RETURN DISTINCT k.id AS a, k.name AS country, k.iso_alpha3 AS iso3, [k.id] AS anchor_ids,
                  [k.name] AS names ORDER BY a""",
        """MATCH (:Country {id: $a})-[:BORDERS]->(:Country)<-[:CAPITAL_OF]-(x:City) RETURN DISTINCT x.id AS id""",
        (
            f("plain", "What are the capitals of the countries that border {country}?"),
            f("implied", "Capitals of {country|poss} neighbours?"),
            f("abbrev", "capital cities of the countries next to {iso3}"),
        ),
    ),
    Spec(
        "same_currency_countries",
        "two_hop",
        "Country",
        2,
        """MATCH (k:Country)-[:USES_CURRENCY]->(:Currency)<-[:USES_CURRENCY]-(o:Country) WHERE o <> k
           RETURN DISTINCT k.id AS a, k.name AS country, k.iso_alpha3 AS iso3, [k.id] AS anchor_ids,
                  [k.name] AS names ORDER BY a""",
        """MATCH (k:Country {id: $a})-[:USES_CURRENCY]->(:Currency)<-[:USES_CURRENCY]-(x:Country) WHERE x <> k
           RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which other countries use the same currency as {country}?"),
            f("implied", "Where else can I spend the money I use in {country}?"),
            f("noisy", "countries sharing a currency with {country|typo}"),
            f("abbrev", "Which countries share a currency with {iso3}?"),
        ),
    ),
    Spec(
        "cities_in_state_of_county",
        "two_hop",
        "City",
        2,
        f"""MATCH (c:County)-[:LOCATED_IN]->(s:Subdivision)<-[:LOCATED_IN]-(x:City) WHERE {POP.format("x")} >= 50000
            RETURN DISTINCT c.id AS a, c.name AS county, [c.id] AS anchor_ids, [c.name] AS names ORDER BY a""",
        f"""MATCH (:County {{id: $a}})-[:LOCATED_IN]->(:Subdivision)<-[:LOCATED_IN]-(x:City)
            WHERE {POP.format("x")} >= 50000 RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which cities with at least 50,000 people are in the same state as {county}?"),
            f(
                "context",
                "I grew up in {county} and want to move to a bigger place without leaving the state. "
                "Which cities of 50,000+ are there?",
            ),
        ),
    ),
    Spec(
        "continent_of_citys_country",
        "two_hop",
        "Continent",
        2,
        f"""MATCH (c:City)-[:LOCATED_IN]->(:Country)-[:LOCATED_IN]->(:Continent) WHERE {POP.format("c")} >= 300000
            RETURN DISTINCT c.id AS a, c.name AS city, [c.id] AS anchor_ids, [c.name] AS names ORDER BY a""",
        """MATCH (:City {id: $a})-[:LOCATED_IN]->(:Country)-[:LOCATED_IN]->(x:Continent) RETURN DISTINCT x.id AS id""",
        (
            f("plain", "On which continent is the country that contains {city}?"),
            f("implied", "Which part of the world would I be in if I were in {city}?"),
            f("noisy", "{city|typo} continent"),
        ),
    ),
    Spec(
        "capitals_of_language",
        "two_hop",
        "City",
        2,
        """MATCH (l:Language)<-[:HAS_LANGUAGE]-(:Country)<-[:CAPITAL_OF]-(:City) WITH l, count(*) AS n WHERE n >= 2
           RETURN l.id AS a, l.name AS language, [l.id] AS anchor_ids, [l.name] AS names ORDER BY a""",
        """MATCH (:Language {id: $a})<-[:HAS_LANGUAGE]-(:Country)<-[:CAPITAL_OF]-(x:City) RETURN DISTINCT x.id AS id""",
        (
            f("plain", "What are the capitals of the countries where {language} is spoken?"),
            f("implied", "In which national capitals could I get by with {language}?"),
        ),
    ),
    Spec(
        "languages_of_subdivisions_country",
        "two_hop",
        "Language",
        2,
        """MATCH (s:Subdivision)-[:LOCATED_IN]->(:Country)-[:HAS_LANGUAGE]->(:Language)
           WHERE NOT (s)-[:PART_OF]->(:Subdivision)
             AND s.subdivision_type IN ['Province', 'State', 'Region', 'Canton', 'Prefecture', 'Governorate']
           RETURN DISTINCT s.id AS a, s.name AS sub, toLower(s.subdivision_type) AS stype, [s.id] AS anchor_ids,
                  [s.name] AS names ORDER BY a""",
        """MATCH (:Subdivision {id: $a})-[:LOCATED_IN]->(:Country)-[:HAS_LANGUAGE]->(x:Language)
           RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which languages are spoken in the country that the {stype} of {sub} belongs to?"),
            f("noisy", "languages spoken in the country of {sub|typo}"),
        ),
    ),
    # ------------------------------------------------------------------------------------------ conjunctions
    Spec(
        "border_both",
        "conjunction",
        "Country",
        1,
        """MATCH (x:Country)-[:BORDERS]->(:Country)<-[:BORDERS]-(y:Country) WHERE x.id < y.id
             AND NOT (x)-[:BORDERS]->(y)
           RETURN DISTINCT x.id AS a, y.id AS b, x.name AS one, y.name AS two, x.iso_alpha3 AS iso_one,
                  y.iso_alpha3 AS iso_two, [x.id, y.id] AS anchor_ids, [x.name, y.name] AS names ORDER BY a, b""",
        """MATCH (:Country {id: $a})-[:BORDERS]->(x:Country)<-[:BORDERS]-(:Country {id: $b})
           RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which countries border both {one} and {two}?"),
            f("plain", "Which countries lie between {one} and {two}, sharing a border with each?"),
            f("implied", "Which neighbours do {one} and {two} have in common?"),
            f(
                "context",
                "My father was born in {one} and my mother in {two}, and we want a holiday somewhere that "
                "touches both. Which countries border both?",
            ),
            f("noisy", "countries bordering {one|lower} and {two|typo}"),
            f("abbrev", "Which countries are adjacent to both {iso_one} and {iso_two}?"),
        ),
    ),
    Spec(
        "currency_and_language",
        "conjunction",
        "Country",
        1,
        """MATCH (m:Currency)<-[:USES_CURRENCY]-(k:Country)-[:HAS_LANGUAGE]->(l:Language)
           WITH m, l, count(k) AS both
           MATCH (m)<-[:USES_CURRENCY]-(cm:Country) WITH m, l, both, count(cm) AS nm
           MATCH (l)<-[:HAS_LANGUAGE]-(cl:Country) WITH m, l, both, nm, count(cl) AS nl
           WHERE both < nm AND both < nl
           RETURN m.id AS a, l.id AS b, m.name AS currency, l.name AS language, [m.id, l.id] AS anchor_ids,
                  [m.name, l.name] AS names ORDER BY a, b""",
        """MATCH (:Currency {id: $a})<-[:USES_CURRENCY]-(x:Country)-[:HAS_LANGUAGE]->(:Language {id: $b})
           RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which countries use the {currency} and have {language} as one of their languages?"),
            f("implied", "Where do people pay in {currency} and speak {language}?"),
            f(
                "context",
                "My company pays its contractors in {currency} and the team lead only speaks {language}. "
                "In which countries could we recruit?",
            ),
            f("noisy", "{language|lower} speaking countries that use the {currency|lower}"),
        ),
    ),
    Spec(
        "region_and_border",
        "conjunction",
        "Country",
        1,
        """MATCH (r:Region)<-[:IN_REGION]-(x:Country)-[:BORDERS]->(k:Country)
           WITH r, k, count(x) AS both
           MATCH (r)<-[:IN_REGION]-(m:Country) WITH r, k, both, count(m) AS nr WHERE both < nr
           RETURN r.id AS a, k.id AS b, r.name AS region, k.name AS country, [r.id, k.id] AS anchor_ids,
                  [r.name, k.name] AS names ORDER BY a, b""",
        """MATCH (:Region {id: $a})<-[:IN_REGION]-(x:Country)-[:BORDERS]->(:Country {id: $b})
           RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which countries in {region} border {country}?"),
            f("plain", "Of the countries the UN places in {region}, which are neighbours of {country}?"),
            f(
                "context",
                "I'm writing a thesis chapter on migration into {country}, limited to {region}. "
                "Which countries of that region share a border with it?",
            ),
            f("noisy", "{region|lower} countries next to {country|typo}"),
        ),
    ),
    Spec(
        "two_languages",
        "conjunction",
        "Country",
        1,
        """MATCH (l1:Language)<-[:HAS_LANGUAGE]-(k:Country)-[:HAS_LANGUAGE]->(l2:Language) WHERE l1.id < l2.id
           WITH l1, l2, count(k) AS both
           MATCH (l1)<-[:HAS_LANGUAGE]-(c1:Country) WITH l1, l2, both, count(c1) AS n1
           MATCH (l2)<-[:HAS_LANGUAGE]-(c2:Country) WITH l1, l2, both, n1, count(c2) AS n2
           WHERE both < n1 AND both < n2
           RETURN l1.id AS a, l2.id AS b, l1.name AS one, l2.name AS two, [l1.id, l2.id] AS anchor_ids,
                  [l1.name, l2.name] AS names ORDER BY a, b""",
        """MATCH (:Language {id: $a})<-[:HAS_LANGUAGE]-(x:Country)-[:HAS_LANGUAGE]->(:Language {id: $b})
           RETURN DISTINCT x.id AS id""",
        (
            f("plain", "In which countries are both {one} and {two} spoken?"),
            f("implied", "Where would a speaker of {one} and a speaker of {two} both feel at home?"),
            f("noisy", "countries with {one|lower} and {two|typo}"),
        ),
    ),
    Spec(
        "region_and_currency",
        "conjunction",
        "Country",
        1,
        """MATCH (r:Region)<-[:IN_REGION]-(k:Country)-[:USES_CURRENCY]->(m:Currency)
           WITH r, m, count(k) AS both
           MATCH (m)<-[:USES_CURRENCY]-(cm:Country) WITH r, m, both, count(cm) AS nm
           MATCH (r)<-[:IN_REGION]-(cr:Country) WITH r, m, both, nm, count(cr) AS nr
           WHERE both < nm AND both < nr
           RETURN r.id AS a, m.id AS b, r.name AS region, m.name AS currency, m.iso_code AS code,
                  [r.id, m.id] AS anchor_ids, [r.name, m.name] AS names ORDER BY a, b""",
        """MATCH (:Region {id: $a})<-[:IN_REGION]-(x:Country)-[:USES_CURRENCY]->(:Currency {id: $b})
           RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which countries of {region} use the {currency}?"),
            f("abbrev", "{region}: which countries pay in {code}?"),
            f(
                "context",
                "Our fair-trade cooperative only invoices in {currency}, and we sell across {region}. "
                "Which countries there use that currency?",
            ),
        ),
    ),
    Spec(
        "continent_and_language",
        "conjunction",
        "Country",
        1,
        """MATCH (t:Continent)<-[:LOCATED_IN]-(k:Country)-[:HAS_LANGUAGE]->(l:Language)
           WITH t, l, count(k) AS both
           MATCH (l)<-[:HAS_LANGUAGE]-(cl:Country) WITH t, l, both, count(cl) AS nl WHERE both < nl
           RETURN t.id AS a, l.id AS b, t.name AS continent, l.name AS language, [t.id, l.id] AS anchor_ids,
                  [t.name, l.name] AS names ORDER BY a, b""",
        """MATCH (:Continent {id: $a})<-[:LOCATED_IN]-(x:Country)-[:HAS_LANGUAGE]->(:Language {id: $b})
           RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which countries in {continent} have {language} as a language?"),
            f("implied", "Where in {continent} is {language} spoken?"),
            f("noisy", "{language|typo} in {continent|lower}"),
        ),
    ),
    # ------------------------------------------------------------------------------------------ described
    Spec(
        "country_by_demonym",
        "described",
        "Country",
        0,
        """MATCH (k:Country) WHERE k.demonym IS NOT NULL
           RETURN DISTINCT k.demonym AS demonym, collect(k.id) AS anchor_ids, [] AS names ORDER BY demonym""",
        "MATCH (x:Country {demonym: $demonym}) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which country's people are called {demonym}?"),
            f("implied", "Where do {demonym} people come from?"),
            f(
                "context",
                "At the conference dinner I sat next to a lovely {demonym} engineer who talked about home all "
                "evening. What country was she from?",
            ),
            f("noisy", "country of the {demonym|typo} people"),
        ),
    ),
    Spec(
        "country_by_domain",
        "described",
        "Country",
        0,
        """MATCH (k:Country) WHERE k.internet_domain IS NOT NULL
           RETURN DISTINCT k.internet_domain AS tld, collect(k.id) AS anchor_ids, [] AS names ORDER BY tld""",
        "MATCH (x:Country {internet_domain: $tld}) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which country has the internet domain {tld}?"),
            f("implied", "Websites ending in {tld} belong to where?"),
            f("abbrev", "TLD {tld}: which country?"),
        ),
    ),
    Spec(
        "country_by_calling_code",
        "described",
        "Country",
        0,
        """MATCH (k:Country) WHERE k.calling_code IS NOT NULL
           RETURN DISTINCT k.calling_code AS code, collect(k.id) AS anchor_ids, [] AS names ORDER BY code""",
        "MATCH (x:Country {calling_code: $code}) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which country has the international dialling code {code}?"),
            f(
                "context",
                "I got three missed calls last night from a number starting with {code}, and I don't know "
                "anyone abroad. Which country is that code?",
            ),
            f("implied", "Phone numbers starting {code} are from where?"),
        ),
    ),
    Spec(
        "country_by_official_name",
        "described",
        "Country",
        0,
        """MATCH (k:Country) WHERE k.official_name IS NOT NULL AND k.official_name <> k.name
           RETURN k.id AS a, k.official_name AS official, [k.id] AS anchor_ids, [k.official_name] AS names
           ORDER BY a""",
        "MATCH (x:Country {official_name: $official}) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which country is officially called the {official}?"),
            f("implied", "What is the {official} usually called?"),
            f("noisy", "{official|lower} common name"),
        ),
    ),
    Spec(
        "capital_by_demonym",
        "described",
        "City",
        1,
        """MATCH (:City)-[:CAPITAL_OF]->(k:Country) WHERE k.demonym IS NOT NULL
           RETURN DISTINCT k.demonym AS demonym, collect(k.id) AS anchor_ids, [] AS names ORDER BY demonym""",
        "MATCH (x:City)-[:CAPITAL_OF]->(:Country {demonym: $demonym}) RETURN DISTINCT x.id AS id",
        (
            f("plain", "What is the capital of the country whose people are called {demonym}?"),
            f("implied", "Where is the {demonym} government based?"),
            f("noisy", "{demonym|lower} capital city"),
        ),
    ),
    Spec(
        "currency_by_domain",
        "described",
        "Currency",
        1,
        """MATCH (k:Country)-[:USES_CURRENCY]->(:Currency) WHERE k.internet_domain IS NOT NULL
           RETURN DISTINCT k.internet_domain AS tld, collect(k.id) AS anchor_ids, [] AS names ORDER BY tld""",
        "MATCH (:Country {internet_domain: $tld})-[:USES_CURRENCY]->(x:Currency) RETURN DISTINCT x.id AS id",
        (
            f("plain", "What currency is used in the country with the internet domain {tld}?"),
            f(
                "context",
                "I'm ordering a jacket from a shop whose website ends in {tld}, and the price has no symbol. "
                "Which currency is it probably in?",
            ),
        ),
    ),
    Spec(
        "neighbours_by_calling_code",
        "described",
        "Country",
        1,
        """MATCH (k:Country)-[:BORDERS]->(:Country) WHERE k.calling_code IS NOT NULL
           RETURN DISTINCT k.calling_code AS code, collect(DISTINCT k.id) AS anchor_ids, [] AS names ORDER BY code""",
        "MATCH (:Country {calling_code: $code})-[:BORDERS]->(x:Country) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which countries border the country whose dialling code is {code}?"),
            f("noisy", "neighbours of the country with phone code {code}"),
        ),
    ),
    Spec(
        "currency_by_code",
        "described",
        "Currency",
        0,
        """MATCH (m:Currency) RETURN m.id AS a, m.iso_code AS code, [m.id] AS anchor_ids, [] AS names ORDER BY a""",
        "MATCH (x:Currency {iso_code: $code}) RETURN DISTINCT x.id AS id",
        (
            f("abbrev", "Which currency has the ISO 4217 code {code}?"),
            f("abbrev", "What is {code}? (a currency code)"),
            f("abbrev", "the currency abbreviated {code}"),
        ),
    ),
    Spec(
        "county_by_fips",
        "described",
        "County",
        0,
        """MATCH (c:County) RETURN c.id AS a, c.fips_code AS fips, [c.id] AS anchor_ids, [] AS names ORDER BY a""",
        "MATCH (x:County {fips_code: $fips}) RETURN DISTINCT x.id AS id",
        (
            f("abbrev", "Which county has the FIPS code {fips}?"),
            f("abbrev", "FIPS {fips}: which US county is that?"),
        ),
    ),
    Spec(
        "subdivision_by_iso_code",
        "described",
        "Subdivision",
        0,
        """MATCH (s:Subdivision)-[:LOCATED_IN]->(:Country) WHERE NOT (s)-[:PART_OF]->(:Subdivision)
           RETURN s.id AS a, s.iso_code AS code, toLower(s.subdivision_type) AS stype, [s.id] AS anchor_ids,
                  [] AS names ORDER BY a""",
        "MATCH (x:Subdivision {iso_code: $code}) RETURN DISTINCT x.id AS id",
        (
            f("abbrev", "Which {stype} has the ISO 3166-2 code {code}?"),
            f("abbrev", "What does the subdivision code {code} stand for?"),
        ),
    ),
    Spec(
        "country_by_native_name",
        "described",
        "Country",
        0,
        """MATCH (k:Country) WHERE k.native_name IS NOT NULL AND k.native_name =~ $latin
           RETURN k.id AS a, k.native_name AS native, [k.id] AS anchor_ids, [k.native_name] AS names ORDER BY a""",
        "MATCH (x:Country {native_name: $native}) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which country calls itself {native} in its own language?"),
            f("implied", "{native} is the local name of which place?"),
        ),
    ),
    # ------------------------------------------------------------------------------------------ superlatives
    Spec(
        "biggest_city_of_country",
        "superlative",
        "City",
        1,
        """MATCH (c:City)-[:LOCATED_IN]->(k:Country) WITH k, count(c) AS n WHERE n >= 2
            RETURN k.id AS a, k.name AS country, k.iso_alpha3 AS iso3, [k.id] AS anchor_ids, [k.name] AS names
            ORDER BY a""",
        f"""MATCH (c:City)-[:LOCATED_IN]->(:Country {{id: $a}}) WITH max({POP.format("c")}) AS top
            MATCH (x:City)-[:LOCATED_IN]->(:Country {{id: $a}}) WHERE {POP.format("x")} = top
            RETURN DISTINCT x.id AS id""",
        (
            f("plain", "What is the most populous city in {country}?"),
            f("implied", "Where do the most people live in {country}, city-wise?"),
            f(
                "context",
                "Our startup wants to open its first office abroad in {country}, ideally in the biggest market. "
                "Which city has the largest population there?",
            ),
            f("noisy", "largest city {country|typo}"),
            f("abbrev", "biggest city in {iso3} by population"),
        ),
    ),
    Spec(
        "most_populous_in_region",
        "superlative",
        "Country",
        1,
        """MATCH (k:Country)-[:IN_REGION]->(r:Region) WITH r, count(k) AS n WHERE n >= 3
            RETURN r.id AS a, r.name AS region, [r.id] AS anchor_ids, [r.name] AS names ORDER BY a""",
        f"""MATCH (k:Country)-[:IN_REGION]->(:Region {{id: $a}}) WITH max({POP.format("k")}) AS top
            MATCH (x:Country)-[:IN_REGION]->(:Region {{id: $a}}) WHERE {POP.format("x")} = top
            RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which is the most populous country in {region}?"),
            f("implied", "Who has the largest population in {region}?"),
            f("noisy", "most populated country {region|lower}"),
        ),
    ),
    Spec(
        "largest_area_in_region",
        "superlative",
        "Country",
        1,
        """MATCH (k:Country)-[:IN_REGION]->(r:Region) WITH r, count(k) AS n WHERE n >= 3
            RETURN r.id AS a, r.name AS region, [r.id] AS anchor_ids, [r.name] AS names ORDER BY a""",
        f"""MATCH (k:Country)-[:IN_REGION]->(:Region {{id: $a}}) WITH max({AREA.format("k")}) AS top
            MATCH (x:Country)-[:IN_REGION]->(:Region {{id: $a}}) WHERE {AREA.format("x")} = top
            RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which country in {region} covers the largest area?"),
            f("context", "For a mapping app we need the biggest country by land area in {region}. Which one is it?"),
        ),
    ),
    Spec(
        "least_populous_in_region",
        "superlative",
        "Country",
        1,
        """MATCH (k:Country)-[:IN_REGION]->(r:Region) WITH r, count(k) AS n WHERE n >= 3
            RETURN r.id AS a, r.name AS region, [r.id] AS anchor_ids, [r.name] AS names ORDER BY a""",
        f"""MATCH (k:Country)-[:IN_REGION]->(:Region {{id: $a}}) WHERE k.population IS NOT NULL
            WITH min({POP.format("k")}) AS low
            MATCH (x:Country)-[:IN_REGION]->(:Region {{id: $a}}) WHERE {POP.format("x")} = low
            RETURN DISTINCT x.id AS id""",
        (
            f("plain", "What is the least populous country in {region}?"),
            f("implied", "Who has the smallest population in {region}?"),
        ),
    ),
    Spec(
        "biggest_city_of_subdivision",
        "superlative",
        "City",
        1,
        """MATCH (c:City)-[:LOCATED_IN]->(s:Subdivision) WITH s, count(c) AS n WHERE n >= 2
           RETURN s.id AS a, s.name AS sub, [s.id] AS anchor_ids, [s.name] AS names ORDER BY a""",
        f"""MATCH (c:City)-[:LOCATED_IN]->(:Subdivision {{id: $a}}) WITH max({POP.format("c")}) AS top
            MATCH (x:City)-[:LOCATED_IN]->(:Subdivision {{id: $a}}) WHERE {POP.format("x")} = top
            RETURN DISTINCT x.id AS id""",
        (
            f("plain", "What's the largest city in {sub} by population?"),
            f("context", "My nephew is choosing a university in {sub} and wants the biggest city. Which one is it?"),
            f("noisy", "biggest city in {sub|lower}"),
        ),
    ),
    Spec(
        "smallest_neighbour",
        "superlative",
        "Country",
        2,
        """MATCH (k:Country)-[:BORDERS]->(o:Country) WITH k, count(o) AS n WHERE n >= 2
           RETURN k.id AS a, k.name AS country, [k.id] AS anchor_ids, [k.name] AS names ORDER BY a""",
        f"""MATCH (:Country {{id: $a}})-[:BORDERS]->(o:Country) WHERE o.area_km2 IS NOT NULL
            WITH min({AREA.format("o")}) AS low
            MATCH (:Country {{id: $a}})-[:BORDERS]->(x:Country) WHERE {AREA.format("x")} = low
            RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which of {country|poss} neighbouring countries has the smallest area?"),
            f("implied", "Of the countries touching {country}, which is the tiniest by surface?"),
        ),
    ),
    Spec(
        "most_populous_speaker",
        "superlative",
        "Country",
        2,
        """MATCH (k:Country)-[:HAS_LANGUAGE]->(l:Language) WITH l, count(k) AS n WHERE n >= 3
           RETURN l.id AS a, l.name AS language, [l.id] AS anchor_ids, [l.name] AS names ORDER BY a""",
        f"""MATCH (k:Country)-[:HAS_LANGUAGE]->(:Language {{id: $a}}) WITH max({POP.format("k")}) AS top
            MATCH (x:Country)-[:HAS_LANGUAGE]->(:Language {{id: $a}}) WHERE {POP.format("x")} = top
            RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Of the countries where {language} is spoken, which has the largest population?"),
            f("context", "We're translating our game into {language}. Which country speaking it has the most people?"),
        ),
    ),
    Spec(
        "largest_on_continent",
        "superlative",
        "Country",
        1,
        """MATCH (t:Continent) RETURN t.id AS a, t.name AS continent, [t.id] AS anchor_ids, [t.name] AS names
           ORDER BY a""",
        f"""MATCH (k:Country)-[:LOCATED_IN]->(:Continent {{id: $a}}) WITH max({AREA.format("k")}) AS top
            MATCH (x:Country)-[:LOCATED_IN]->(:Continent {{id: $a}}) WHERE {AREA.format("x")} = top
            RETURN DISTINCT x.id AS id""",
        (
            f("plain", "What is the largest country by area in {continent}?"),
            f("noisy", "biggest country in {continent|lower}"),
        ),
    ),
    Spec(
        "most_populous_currency_user",
        "superlative",
        "Country",
        2,
        """MATCH (k:Country)-[:USES_CURRENCY]->(m:Currency) WITH m, count(k) AS n WHERE n >= 3
           RETURN m.id AS a, m.name AS currency, m.iso_code AS code, [m.id] AS anchor_ids, [m.name] AS names
           ORDER BY a""",
        f"""MATCH (k:Country)-[:USES_CURRENCY]->(:Currency {{id: $a}}) WITH max({POP.format("k")}) AS top
            MATCH (x:Country)-[:USES_CURRENCY]->(:Currency {{id: $a}}) WHERE {POP.format("x")} = top
            RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which country using the {currency} has the most inhabitants?"),
            f("abbrev", "most populous country paying in {code}"),
        ),
    ),
    # ------------------------------------------------------------------------------------------ disambiguation
    Spec(
        "states_with_county_name",
        "disambiguation",
        "Subdivision",
        1,
        """MATCH (c:County) WITH c.name AS county, collect(c.id) AS ids WHERE size(ids) >= 2
           RETURN county, ids AS anchor_ids, [] AS names ORDER BY county""",
        "MATCH (:County {name: $county})-[:LOCATED_IN]->(x:Subdivision) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which states have a county called {county}?"),
            f("implied", "Where in the US is there a {county}?"),
            f(
                "context",
                "A letter arrived addressed only to '{county}, USA', and the post office sent it back. "
                "Which states could it have meant?",
            ),
            f("noisy", "states with a {county|lower}"),
        ),
        ambiguous_names_allowed=True,
    ),
    Spec(
        "countries_with_city_name",
        "disambiguation",
        "Country",
        1,
        """MATCH (c:City)-[:LOCATED_IN]->(k:Country) WITH c.name AS city, collect(DISTINCT k.id) AS ks,
                 collect(c.id) AS ids WHERE size(ks) >= 2
           RETURN city, ids AS anchor_ids, [] AS names ORDER BY city""",
        "MATCH (:City {name: $city})-[:LOCATED_IN]->(x:Country) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which countries have a city named {city}?"),
            f("implied", "There are several places called {city}; where are they?"),
            f(
                "context",
                "My flight ticket just says '{city}' and the travel agent has gone home for the weekend. "
                "Which countries could I be flying to?",
            ),
            f("noisy", "countries with a city called {city|lower}"),
        ),
        ambiguous_names_allowed=True,
    ),
    Spec(
        "countries_with_subdivision_name",
        "disambiguation",
        "Country",
        1,
        """MATCH (s:Subdivision)-[:LOCATED_IN]->(k:Country) WITH s.name AS sub, collect(DISTINCT k.id) AS ks,
                 collect(s.id) AS ids WHERE size(ks) >= 2
           RETURN sub, ids AS anchor_ids, [] AS names ORDER BY sub""",
        "MATCH (:Subdivision {name: $sub})-[:LOCATED_IN]->(x:Country) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which countries have a province, state or region called {sub}?"),
            f("implied", "{sub} is the name of a subdivision in more than one place; where?"),
            f("noisy", "countries with a region named {sub|typo}"),
        ),
        ambiguous_names_allowed=True,
    ),
    Spec(
        "country_named_like_subdivision",
        "disambiguation",
        "Currency",
        1,
        """MATCH (k:Country)-[:USES_CURRENCY]->(:Currency), (s:Subdivision) WHERE s.name = k.name
           RETURN DISTINCT k.id AS a, k.name AS name, [k.id] AS anchor_ids, [] AS names ORDER BY a""",
        "MATCH (:Country {id: $a})-[:USES_CURRENCY]->(x:Currency) RETURN DISTINCT x.id AS id",
        (
            f("plain", "What currency does the country {name} use? I mean the country, not the subdivision."),
            f("implied", "What do they pay with in {name}? The country or territory, not the province or state."),
        ),
        ambiguous_names_allowed=True,
    ),
    Spec(
        "subdivision_named_like_country",
        "disambiguation",
        "Country",
        1,
        """MATCH (k:Country), (s:Subdivision) WHERE s.name = k.name
           RETURN DISTINCT s.id AS a, s.name AS name, toLower(s.subdivision_type) AS stype, [s.id] AS anchor_ids,
                  [] AS names ORDER BY a""",
        "MATCH (:Subdivision {id: $a})-[:LOCATED_IN]->(x:Country) RETURN DISTINCT x.id AS id",
        (
            f("plain", "In which country is the {stype} of {name}, not the country of that name?"),
            f("context", "Not the country: the {stype} called {name}. Which country does it belong to?"),
        ),
        ambiguous_names_allowed=True,
    ),
    Spec(
        "city_named_like_foreign_subdivision",
        "disambiguation",
        "Country",
        1,
        f"""MATCH (c:City)-[:LOCATED_IN]->(k:Country), (s:Subdivision)-[:LOCATED_IN]->(o:Country)
            WHERE s.name = c.name AND o <> k AND {POP.format("c")} >= 100000
            RETURN DISTINCT c.id AS a, c.name AS city, [c.id] AS anchor_ids, [] AS names ORDER BY a""",
        "MATCH (:City {id: $a})-[:LOCATED_IN]->(x:Country) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which country is the city of {city} in?"),
            f("implied", "The city {city}, not the region: where is it?"),
        ),
        ambiguous_names_allowed=True,
    ),
    Spec(
        "cities_of_canton_named_like_city",
        "disambiguation",
        "City",
        1,
        f"""MATCH (c:City)-[:LOCATED_IN]->(s:Subdivision), (t:City) WHERE t.name = s.name
              AND {POP.format("c")} >= 50000
            WITH s, count(DISTINCT c) AS n WHERE n >= 1
            RETURN s.id AS a, s.name AS name, toLower(s.subdivision_type) AS stype, [s.id] AS anchor_ids,
                   [] AS names ORDER BY a""",
        f"""MATCH (x:City)-[:LOCATED_IN]->(:Subdivision {{id: $a}}) WHERE {POP.format("x")} >= 50000
            RETURN DISTINCT x.id AS id""",
        (
            f("plain", "Which cities of 50,000 or more people are in the {stype} of {name}?"),
            f("implied", "The {stype} of {name}, not the city: which of its places have 50,000+ residents?"),
        ),
        ambiguous_names_allowed=True,
    ),
    Spec(
        "region_named_like_other",
        "disambiguation",
        "Country",
        1,
        """MATCH (r:Region), (o) WHERE (o:Country OR o:Continent) AND o.name = r.name
           RETURN DISTINCT r.id AS a, r.name AS name, [r.id] AS anchor_ids, [] AS names ORDER BY a""",
        "MATCH (x:Country)-[:IN_REGION]->(:Region {id: $a}) RETURN DISTINCT x.id AS id",
        (
            f("plain", "Which countries make up the UN statistical region called {name}?"),
            f(
                "context",
                "The UN's statistical grouping called {name}, not anything else of that name: which countries are in it?",
            ),
        ),
        ambiguous_names_allowed=True,
    ),
)

# Anchors never drawn: places whose status is contested, where any gold answer would take a side.
EXCLUDED_NAMES = frozenset({"Jerusalem", "Sevastopol", "Avtonomna Respublika Krym"})

# Fixed parameters a few anchor queries need (never built from data).
FIXED_PARAMS: dict[str, Any] = {
    "us": "US",
    "europe": ["GB", "CH", "BE"],
    "latin": r"^[A-Za-z\u00c0-\u024f' .-]+$",
}


# ---------------------------------------------------------------------------------------------------- rendering


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold().strip()


def typo(text: str, rng: random.Random) -> str:
    """Lower case and one slip in the longest word: a dropped, swapped or doubled letter."""
    words = text.split(" ")
    index = max(range(len(words)), key=lambda i: (len(words[i]), -i))
    word = words[index]
    letters = [i for i in range(1, len(word) - 1) if word[i].isalpha()]
    if len(word) >= 5 and letters:
        for _ in range(10):
            i = rng.choice(letters)
            kind = rng.choice(("drop", "swap", "double"))
            if kind == "drop":
                changed = word[:i] + word[i + 1 :]
            elif kind == "swap":
                changed = word[: i - 1] + word[i] + word[i - 1] + word[i + 1 :]
            else:
                changed = word[:i] + word[i] + word[i:]
            if changed != word:
                words[index] = changed
                break
    return " ".join(words).lower()


def plural(text: str) -> str:
    if text.endswith("y") and not text.endswith(("ay", "ey", "oy")):
        return text[:-1] + "ies"
    return text if text.endswith("s") else text + "s"


SLOT = re.compile(r"\{(\w+)(?:\|(\w+))?\}")


def render(frame: Frame, row: dict[str, Any], rng: random.Random) -> str:
    def fill(match: re.Match[str]) -> str:
        value = str(row[match.group(1)])
        modifier = match.group(2)
        if modifier == "lower":
            return value.lower()
        if modifier == "typo":
            return typo(value, rng)
        if modifier == "plural":
            return plural(value)
        if modifier == "poss":
            return value + ("'" if value.endswith("s") else "'s")
        return value

    text = SLOT.sub(fill, frame.text)
    return text[0].upper() + text[1:] if frame.family not in ("noisy",) and text[0].islower() else text


# ---------------------------------------------------------------------------------------------------- sampling


def ambiguous_names(session: Any) -> set[str]:
    """Folded names (and synonyms) that more than one node carries: such an anchor would have two readings."""
    rows = session.run(
        """MATCH (n) WHERE n.name IS NOT NULL
           WITH n, [n.name] + CASE WHEN n.official_name IS NULL THEN [] ELSE [n.official_name] END AS names
           UNWIND names AS name RETURN name, count(DISTINCT n) AS n"""
    ).data()
    counts: Counter[str] = Counter()
    for row in rows:
        counts[fold(row["name"])] += row["n"]
    return {name for name, count in counts.items() if count > 1}


def candidates(session: Any, spec: Spec, ambiguous: set[str]) -> list[dict[str, Any]]:
    rows = session.run(spec.anchors, FIXED_PARAMS).data()
    rows = [row for row in rows if not EXCLUDED_NAMES & {str(value) for value in row.values()}]
    if not spec.ambiguous_names_allowed:
        rows = [row for row in rows if not any(fold(name) in ambiguous for name in row["names"])]
    rng = random.Random(f"{SEED}:{spec.key}")  # per spec: adding a spec leaves the others' draws unchanged
    rng.shuffle(rows)
    return rows


def answers(session: Any, spec: Spec, row: dict[str, Any]) -> list[str]:
    params = {key: value for key, value in row.items() if key not in ("anchor_ids", "names")}
    return sorted({record["id"] for record in session.run(spec.answers, {**FIXED_PARAMS, **params})})


def questions(session: Any) -> Iterator[dict[str, Any]]:
    ambiguous = ambiguous_names(session)
    used: Counter[tuple[str, ...]] = Counter()
    number = 0
    for spec in SPECS:
        pool = candidates(session, spec, ambiguous)
        rng = random.Random(f"{SEED}:{spec.key}:typos")
        for frame in spec.frames:
            while pool:
                row = pool.pop()
                anchor_key = tuple(row["anchor_ids"])
                if used[anchor_key] >= MAX_USES_PER_ANCHOR:
                    continue
                gold = answers(session, spec, row)
                if not 1 <= len(gold) <= MAX_ANSWERS:
                    continue
                used[anchor_key] += 1
                number += 1
                yield {
                    "id": f"geo-{number:04d}",
                    "text": render(frame, row, rng),
                    "answer_ids": gold,
                    "split": "test",
                    "template": spec.kind,
                    "hops": spec.hops,
                    "level": frame.family,
                    "topic_ids": list(row["anchor_ids"]),
                    "target_type": spec.target_type,
                }
                break
            else:
                print(f"warning: {spec.key}: no anchor left for frame {frame.text!r}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description="Write the frozen geo question set from the loaded SKB.")
    parser.add_argument("--out", type=Path, default=PROJECT / "docs/eval/second-skb/questions.jsonl")
    parser.add_argument("--bolt", default="bolt://127.0.0.1:27687")
    parser.add_argument("--password-file", type=Path, default=PROJECT / ".grasp/instances/skb2/password")
    args = parser.parse_args()
    from neo4j import GraphDatabase

    password = args.password_file.read_text(encoding="utf-8").strip()
    with GraphDatabase.driver(args.bolt, auth=("neo4j", password)) as driver, driver.session() as session:
        rows = list(questions(session))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    table = Counter((row["template"], row["level"]) for row in rows)
    kinds = sorted({kind for kind, _ in table})
    families = sorted({family for _, family in table})
    print(f"wrote {len(rows)} questions to {args.out}")
    print(f"{'kind':<15}" + "".join(f"{family:>9}" for family in families) + f"{'total':>8}")
    for kind in kinds:
        counts = [table[(kind, family)] for family in families]
        print(f"{kind:<15}" + "".join(f"{count:>9}" for count in counts) + f"{sum(counts):>8}")
    totals = [sum(table[(kind, family)] for kind in kinds) for family in families]
    print(f"{'total':<15}" + "".join(f"{count:>9}" for count in totals) + f"{sum(totals):>8}")


if __name__ == "__main__":
    main()
