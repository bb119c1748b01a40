"""All configuration in one pydantic-settings object; every field has a GRASP_ environment override."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_models_cache_dir() -> Path:
    """Where models shipped in slices are joined once (embedders and GGUF planners alike)."""
    return Path.home() / ".cache" / "grasp" / "models"


_PACKAGE_DIR = Path(__file__).resolve().parent
_HOST_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST_NAME = re.compile(rf"{_HOST_LABEL}(?:\.{_HOST_LABEL})*")


def _project_root() -> Path:
    """The source checkout this package runs from, or the working directory for an installed wheel."""
    candidate = _PACKAGE_DIR.parent
    if (candidate / "procedures" / "pom.xml").is_file():
        return candidate
    return Path.cwd()


class Settings(BaseSettings):
    """grasp settings. Pass one instance down explicitly; nothing reads the environment behind your back."""

    model_config = SettingsConfigDict(env_prefix="GRASP_", env_file=None, extra="ignore", frozen=True)

    project_root: Path = Field(default_factory=_project_root)
    runtime_dir: Path | None = Field(
        default=None, description="Built Neo4j home parts (lib/, plugins/). Default: <project_root>/.grasp/neo4j"
    )
    instance: str = Field(
        default="default", pattern=r"^[A-Za-z0-9_-]{1,40}$", description="Name of the local server instance"
    )
    instances_dir: Path | None = Field(
        default=None, description="Where instances keep conf/, data/, logs/. Default: <project_root>/.grasp/instances"
    )
    procedures_dir: Path | None = Field(default=None, description="Maven sources. Default: <project_root>/procedures")

    # External server: when set, grasp never starts a local JVM.
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    neo4j_database: str = "neo4j"
    neo4j_retry_s: float = Field(
        default=5.0, ge=0.0, le=300.0, description="How long the driver retries a transaction that failed transiently"
    )

    listen_address: str = "127.0.0.1"
    bolt_port: int = Field(default=7687, ge=1, le=65535)
    http_port: int = Field(default=7474, ge=1, le=65535)
    heap_size: str | None = Field(default=None, pattern=r"^\d+[kmgKMG]$", description="e.g. 4g; default from RAM")
    pagecache_size: str | None = Field(default=None, pattern=r"^\d+[kmgKMG]$", description="e.g. 3g; default from RAM")
    java_home: Path | None = Field(default=None, description="JDK/JRE 17+ for the server; default JAVA_HOME or PATH")
    maven_command: str = "mvn"
    start_timeout_s: float = Field(default=180.0, gt=0)
    allow_url_loads: bool = Field(
        default=False,
        description="Let LOAD CSV and apoc.load.* read URLs and files "
        "(off: any database user could make the server fetch addresses)",
    )

    # Embeddings
    embedder: Literal["minilm", "mpnet", "openai"] = "minilm"
    embedder_url: str | None = Field(default=None, description="openai: base URL up to /v1, e.g. http://host:8000/v1")
    embedder_model: str | None = Field(default=None, description="openai: model name the server knows")
    embedder_api_key: SecretStr | None = None
    embed_backend: Literal["onnx", "onnx-int8", "numpy"] = Field(
        default="onnx", description="minilm/mpnet: ONNX Runtime fp32, its int8 quantisation, or the numpy encoder"
    )
    embed_batch_size: int = Field(default=32, ge=1)
    embed_max_tokens: int | None = Field(
        default=None,
        ge=8,
        le=512,
        description="Truncation of document texts, in tokens; default: the model's own max_seq_length (MiniLM 256)",
    )
    models_cache_dir: Path | None = Field(default=None, description="Unpacked models. Default: ~/.cache/grasp/models")
    embedding_cache_path: Path | None = Field(
        default=None, description="Vector cache. Default: <project_root>/.grasp/embeddings.sqlite"
    )
    vector_packs: bool = Field(
        default=True,
        description="Look texts up in precomputed vector packs (same model id and exact text only) "
        "before embedding them; the package ships the HPO's for the default model",
    )
    vector_packs_dir: Path | None = Field(
        default=None, description="Folder of vector packs (`grasp skb export-vectors`). Default: the packaged ones"
    )

    # LLM
    llm: Literal["none", "openai", "llama-cpp"] = Field(
        default="none", description="Planner/reranker LLM backend; none = the heuristic planner"
    )
    llm_url: str | None = Field(default=None, description="openai: base URL up to /v1, e.g. http://host:8000/v1")
    llm_model: str | None = Field(default=None, description="openai: model name the server knows")
    llm_api_key: SecretStr | None = None
    llm_gguf: str = Field(
        default="qwen2.5-0.5b", description="llama-cpp: qwen2.5-0.5b, qwen2.5-coder-1.5b, or a path to a .gguf file"
    )
    llm_context_tokens: int = Field(default=4096, ge=256, description="llama-cpp: context window in tokens")
    llm_threads: int | None = Field(default=None, ge=1, description="llama-cpp: CPU threads; default: llama.cpp's")
    llm_timeout_s: float = Field(default=120.0, gt=0, description="openai: seconds to wait for one answer")

    # Planner of the graph branch
    planner: Literal["auto", "heuristic", "llm", "pathbank"] = Field(
        default="auto",
        description="auto: llm when GRASP_LLM is set, else heuristic; pathbank: routes from the "
        "Path-Bank's meta-paths (needs `grasp adapath build-bank`), no LLM call",
    )

    llm_planner_prompt: Literal["auto", "full", "student"] = Field(
        default="auto",
        description="The LLM planner's prompt: full (rules and an example, for untrained models), "
        "student (the short prompt `grasp train planner` fine-tunes on) or auto (student for a GGUF exported by "
        "`grasp train planner export`, which says so in its metadata; full otherwise)",
    )

    # Graph branch (grasp.plan.execute's budget and scoring)
    graph_top_k: int = Field(default=100, ge=1, le=10_000, description="Targets the graph ranking keeps")
    graph_timeout_ms: int = Field(
        default=5000,
        ge=1,
        le=3_600_000,  # the plugin refuses more than an hour
        description="Time budget of one plan execution",
    )
    graph_max_rows: int = Field(default=200_000, ge=1, le=100_000_000, description="Path rows one plan may enumerate")
    graph_dense_weight: float = Field(default=1.0, ge=0.0, description="Weight of cos(relevance_text, doc)")
    graph_lexical_weight: float = Field(
        default=0.5,
        ge=0.0,
        description="Weight of the BM25 of the relevance text's content words under a target's document (divided "
        "by the best document's in the index), added to the graph ranking's score: for questions asking for the "
        "one whose text holds a word (0: off; 0.5 chosen on generated HPO train questions)",
    )
    graph_relax_below: int = Field(
        default=1,
        ge=0,
        le=100_000,
        description="Soft constraints: with fewer targets than this matching the whole plan, rank targets by the "
        "specificity-weighted share of the plan they match (0: never)",
    )
    graph_hierarchy_discount: float = Field(
        default=0.8,
        ge=0.0,
        le=1.0,
        description="In the soft pass, what a bound node's parent term counts of its score, and a neighbour along "
        "a relation whose name does not say which way it runs (0: none)",
    )
    graph_descendant_credit: float = Field(
        default=1.0,
        ge=0.0,
        le=1.0,
        description="In the soft pass, what a bound node's child term counts of its score: an annotation to a more "
        "specific term implies the asked one (the true-path rule; 0: none)",
    )
    graph_relevance_fallback: bool = Field(
        default=False,
        description="A plan without relevance text rescores its "
        "targets by the question (GRASP's rule; off: it cost 0.029 Hit@1 on the "
        "HPO valid split) instead of leaving them in anchor-score order",
    )
    name_dictionary: bool = Field(
        default=True,
        description="Find the loaded SKB's exact names and synonyms in questions (any case, inside hyphen "
        "compounds, plurals) before the embedding linker, and link them as their nodes' names",
    )
    mention_max_spans: int = Field(
        default=256,
        ge=1,
        le=100_000,
        description="Word spans of a question the name-span finder embeds and links, fewest words first "
        "(about 5 ms each; the eval sets' questions have at most 126)",
    )
    mention_budget_s: float = Field(
        default=1.0,
        gt=0.0,
        le=3600.0,
        description="Seconds the name-span finder may spend; no new chunk of 64 spans starts after them",
    )
    doc_anchors: bool = Field(
        default=True,
        description="Link clauses that describe an entity without naming it "
        "through the document index (doc-mode anchors)",
    )
    doc_anchor_min_score: float = Field(
        default=0.5, ge=0.0, le=1.0, description="Least document cosine for a described clause to become an anchor"
    )
    doc_anchor_fields: bool = Field(
        default=True,
        description="Find and bind a described entity by the nodes' documents and their own text fields (a "
        "definition, synonyms; the text branch's field vectors, and the share of a clause's words they hold) together, "
        "not by the documents alone",
    )
    extraction_demos: Path | None = Field(
        default=None,
        description="LLM extraction: demonstrations from a training split (`grasp train demos`). "
        "Default: <project_root>/.grasp/extraction_demos/<skb>.jsonl when it exists",
    )
    extraction_demo_count: int = Field(
        default=3, ge=0, le=16, description="LLM extraction: the nearest demonstrations shown per question; 0: none"
    )
    asked_type_model: bool = Field(
        default=True,
        description="The heuristic planner weighs the asked type from several pieces of evidence with a classifier "
        "fitted on a training split (`grasp train asked-type`) when one exists for the SKB; else one rule decides",
    )
    answer_type_prior: bool = Field(
        default=True,
        description="A question that names no type asks for the type training questions with the same anchor "
        "types asked for (`grasp train answer-types`, shipped for the HPO), not the most populous type",
    )
    bank_loops: bool = Field(
        default=True,
        description="A node of the asked type named with no way back to its type ('X-allelic diseases with P') "
        "walks the route most of the Path-Bank's training questions with such a topic took (none without a bank)",
    )
    route_reading: bool = Field(
        default=True,
        description="A question that names no type, and whose anchor types no training question covers, asks for "
        "the type its words lead to along the schema's relations (names and descriptions against the question, "
        "by the embedder), not the most populous type",
    )

    # Text branch (mFAR): BM25 and dense field indexes on disk, rebuilt only when the SKB content changes
    text_index_dir: Path | None = Field(
        default=None, description="BM25 indexes. Default: <instance folder>/text_index (per instance)"
    )
    dense_index_dir: Path | None = Field(
        default=None, description="Dense field matrices. Default: <instance folder>/dense_index (per instance)"
    )
    field_weights_dir: Path | None = Field(
        default=None, description="Trained field weights. Default: <project_root>/.grasp/field_weights/<skb>/<model>"
    )
    text_top_k: int = Field(default=100, ge=1, le=10_000, description="Nodes the text ranking keeps")

    # Fusion of the graph and text rankings
    fusion: Literal["static", "dynamic"] | None = Field(
        default=None, description="RRF policy; default: the one the fusion tables in force chose on valid, else static"
    )
    fusion_graph_weight: float = Field(default=0.5, ge=0.0, le=1.0, description="static: the graph ranking's weight")
    fusion_k: float = Field(default=60.0, gt=0.0, description="static: RRF's k")
    fusion_graph_lead: float | None = Field(
        default=None,
        ge=0.0,
        description="The graph's first target stays first in the fused list when its score leads the graph's second "
        "by at least this much; off by default: 0.02, best on the HPO's valid splits, lifted its novel wording but "
        "cost the geography SKB (docs/benchmarks.md)",
    )
    fusion_graph_ties: bool = Field(
        default=False,
        description="Targets the graph ranking scores alike keep the graph's order among themselves in the fused list "
        "(the graph orders them by how much their documents are about the anchors; the text ranking's order among "
        "them follows the wording). Off by default: it steadied my development groups but on the frozen sets kept "
        "no more groups steady and cost the HPO test split and the geography SKB a question or two "
        "(docs/benchmarks.md). Whatever this says, they keep it when no target's text holds the question's words "
        "beyond the plan: the text ranking's order among them then follows the wording alone",
    )
    fusion_keyword_lead: bool = Field(
        default=True,
        description="The graph's first target stays first in the fused list when it alone among the graph's targets "
        "holds the relevance text's words (a keyword the question asks of the answer's text)",
    )
    type_policy: Literal["prior", "filter", "none"] = Field(
        default="prior",
        description="When the question asks for a type (the plan's target, else its words): prior "
        "puts the nodes of that type first in the fused and final lists, filter drops text candidates of other "
        "types before fusion, none leaves both lists as fused",
    )
    fusion_tables: Path | None = Field(
        default=None,
        description="dynamic: fitted tables (JSON). Default: <project_root>/.grasp/fusion/<skb>.json, "
        "else the built-in tables",
    )

    # Reranking of the fused head
    reranker: Literal["auto", "none", "bi-encoder", "listwise", "cross-encoder", "llm-judge"] = Field(
        default="auto",
        description="The reranker searches may use. listwise: the MiniLM cross-encoder `grasp train "
        "reranker` fine-tunes (reranker_path, else the one trained here for the SKB, else the packaged one); auto: "
        "listwise when one exists for the SKB, else bi-encoder; llm-judge uses the configured LLM; cross-encoder "
        "needs reranker_path. Searches rerank by default only when the fusion tables in force measured it helping "
        "on valid, or when this is set explicitly",
    )
    reranker_path: Path | None = Field(
        default=None,
        description="listwise: an adapter folder from `grasp train "
        "reranker`; cross-encoder: a local sentence-transformers model",
    )
    rerank_k: int = Field(default=50, ge=1, le=1000, description="Fused candidates the reranker reads")
    rerank_budget_s: float = Field(
        default=3.0,
        ge=0.0,
        le=3600.0,
        description="Seconds one search may spend "
        "scoring with the reranker; past it the fused order is kept (0: no limit, as "
        "`grasp eval` runs)",
    )
    rerank_slots: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Searches that rerank at once; one that finds "
        "them all busy keeps its fused order rather than queue (raise it with the cores)",
    )
    rerank_weight: float = Field(default=0.5, ge=0.0, le=1.0, description="The reranker's weight in the last RRF")
    rerank_rrf_k: float = Field(default=60.0, gt=0.0, description="k of the last RRF (reranker rank, fused rank)")
    result_k: int = Field(default=20, ge=1, le=1000, description="Results a search returns by default")
    max_question_chars: int = Field(
        default=2000, ge=16, le=100_000, description="Longer questions are refused before any work"
    )

    # Demo UI (`grasp ui`)
    ui_concurrency: int = Field(
        default=4,
        ge=1,
        le=64,
        description="Searches the demo runs at once (and as many path searches); later ones wait in the queue",
    )
    ui_queue_size: int = Field(
        default=64, ge=1, le=10_000, description="Requests the demo's queue holds; past it a visitor is told to retry"
    )

    # AdaPath (path answers): Path-Bank retrieval and the guided beam search
    adapath_bank_queries: int = Field(default=20, ge=1, le=1000, description="Similar bank queries that vote")
    adapath_meta_paths: int = Field(default=5, ge=1, le=100, description="Meta-paths the search follows")
    adapath_beam_width: int = Field(default=20, ge=1, le=1000, description="Partial paths kept per depth")
    adapath_scorer: Literal["embedding", "llm"] = Field(
        default="embedding",
        description="Who picks the next frontier: cosine to the question (in the procedure), "
        "or the configured LLM between depths (adapath.expand)",
    )
    adapath_llm_candidates: int = Field(
        default=12, ge=2, le=100, description="llm scorer: candidates per depth it reads (best by cosine)"
    )
    adapath_min_link_score: float = Field(
        default=0.8, ge=0.0, le=1.0, description="Cosine a mention's link needs to be a topic node"
    )
    adapath_timeout_ms: int = Field(default=2000, ge=1, le=3_600_000, description="Time budget of one path search")

    @field_validator("neo4j_uri")
    @classmethod
    def _blank_uri_means_local(cls, value: str | None) -> str | None:
        return value or None

    @field_validator("listen_address")
    @classmethod
    def _host_name_or_ipv4(cls, value: str) -> str:
        """Written into neo4j.conf and the Bolt/HTTP addresses: anything else (a newline) could add conf lines."""
        try:
            address = ipaddress.ip_address(value)
        except ValueError:
            address = None
        if address is not None and address.version == 6:
            raise ValueError(f"IPv6 literals are not supported ({value}); use an IPv4 address or a host name")
        dotted_numbers = value.rsplit(".", 1)[-1].isdigit()  # e.g. 999.0.0.1: a malformed IPv4, not a name
        if address is None and (len(value) > 253 or not _HOST_NAME.fullmatch(value) or dotted_numbers):
            raise ValueError(f"must be a host name or an IPv4 address such as 127.0.0.1, not {value!r}")
        return value

    @property
    def uses_external_server(self) -> bool:
        return self.neo4j_uri is not None

    @property
    def resolved_models_cache_dir(self) -> Path:
        return self.models_cache_dir or default_models_cache_dir()

    @property
    def resolved_runtime_dir(self) -> Path:
        return self.runtime_dir or self.project_root / ".grasp" / "neo4j"

    @property
    def instance_dir(self) -> Path:
        return (self.instances_dir or self.project_root / ".grasp" / "instances") / self.instance

    @property
    def grasp_dir(self) -> Path:
        """Where grasp keeps what it builds for this checkout (indexes, trained weights, fitted tables)."""
        return self.project_root / ".grasp"

    def asked_type_path(self, skb_name: str) -> Path:
        return self.grasp_dir / "asked_type" / f"{skb_name}.json"

    def answer_types_path(self, skb_name: str) -> Path:
        return self.grasp_dir / "answer_types" / f"{skb_name}.json"

    def extraction_demos_path(self, skb_name: str) -> Path:
        return self.extraction_demos or self.grasp_dir / "extraction_demos" / f"{skb_name}.jsonl"

    @property
    def resolved_procedures_dir(self) -> Path:
        return self.procedures_dir or self.project_root / "procedures"

    @property
    def bolt_uri(self) -> str:
        return self.neo4j_uri or f"bolt://{self.listen_address}:{self.bolt_port}"

    @property
    def browser_url(self) -> str:
        return f"http://{self.listen_address}:{self.http_port}/browser/"

    @property
    def password_file(self) -> Path:
        return self.instance_dir / "password"
