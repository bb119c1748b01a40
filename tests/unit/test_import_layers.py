"""Layers point down: a module may import its own package, the same layer, or lower ones, never a higher one.
Fails with every offending import (file, line, what it imports) so a new upward edge is caught where it is made."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "grasp_agent"
# Lowest first. A package not listed fails the test: place it when it is created.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "errors",
        "config",
        "identifiers",
        "ranking",
        "question_text",
        "terminal_text",
        "http_json",
        "package_parts",
        "cypher_queries",
        "optional_imports",
        "process_memory",
        "private_files",
    ),
    ("db", "embed", "llm"),
    ("skb",),
    ("fusion",),  # pure ranking math: the text branch's hybrid baseline uses its RRF
    ("text_branch", "graph_branch"),
    ("rerank", "adapath"),
    ("pipeline",),
    ("api",),
    ("evaluation", "training", "integrations", "ui"),
    ("cli",),
)
LAYER = {name: level for level, names in enumerate(LAYERS) for name in names}
# Upward imports on purpose, each with its reason.
ALLOWED = {
    ("api", "integrations"): "Grasp.as_tool/as_path_tool/as_retriever build the integrations, imported inside "
    "those methods; the integrations themselves only use Grasp",
}


def _unit(path: Path) -> str:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else Path(parts[0]).stem


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = (
            [node.module]
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
            else [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else []
        )
        found += [(node.lineno, name) for name in names if name.startswith("grasp_agent.")]
    return found


def test_every_package_has_a_layer() -> None:
    units = {_unit(path) for path in PACKAGE.rglob("*.py")} - {"__init__", "__main__"}
    assert units <= set(LAYER), f"place these in LAYERS: {sorted(units - set(LAYER))}"


def test_no_module_imports_a_higher_layer() -> None:
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _unit(path)
        if source not in LAYER:
            continue
        for line, module in _imports(path):
            target = module.split(".")[1]
            if target in LAYER and LAYER[target] > LAYER[source] and (source, target) not in ALLOWED:
                upward.append(
                    f"{path.relative_to(PACKAGE.parent)}:{line} imports {module} "
                    f"({source}, layer {LAYER[source]} -> {target}, layer {LAYER[target]})"
                )
    assert not upward, "imports pointing up:\n" + "\n".join(upward)
