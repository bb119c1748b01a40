"""Saved runs, kept apart from scoring (as pyserini and trec_eval keep them): a new metric or significance test
re-scores what the systems returned without running them again (`grasp eval score`).

`grasp eval --out DIR` writes `DIR/runs/`:
- `<system>.jsonl`: one line per query, everything scoring reads: the ranked ids (their JSON types kept, so a
  STaRK integer id stays an integer), latency, failure, worded answer and stage timings. This is what
  `read_runs` reads back.
- `<system>.trec`: the same rankings in TREC run format (`qid Q0 docid rank score tag`, score = 1 / rank, since
  the systems' own scores are not comparable across them) for trec_eval, ranx or pyserini's tools.
- `gold_names.json` when AdaPath's worded answers were scored: query id -> the gold answers' names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grasp_agent.evaluation.runner import SYSTEMS, EvaluationError, QueryRun, SystemRuns

RUNS_DIR = "runs"
GOLD_NAMES = "gold_names.json"
_FILE_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def run_file_stem(system: str) -> str:
    """A file name for a system name ('grasp+rerank' -> 'grasp_rerank')."""
    return _FILE_SAFE.sub("_", system)


def write_runs(
    results: Mapping[str, SystemRuns], folder: Path, gold_names: Mapping[str, set[str]] | None = None
) -> Path:
    """Writes `folder/runs/` (see the module docstring) and returns it."""
    runs_dir = folder / RUNS_DIR
    runs_dir.mkdir(parents=True, exist_ok=True)
    for system, runs in results.items():
        stem = run_file_stem(system)
        with (runs_dir / f"{stem}.jsonl").open("w", encoding="utf-8") as jsonl:
            for run in runs.runs:
                jsonl.write(
                    json.dumps(
                        {
                            "system": system,
                            "query_id": run.query_id,
                            "ranked": list(run.ranked),
                            "latency_ms": run.latency_ms,
                            "failure": run.failure,
                            "answer": run.answer,
                            "stages_ms": run.stages_ms,
                        }
                    )
                    + "\n"
                )
        with (runs_dir / f"{stem}.trec").open("w", encoding="utf-8") as trec:
            for run in runs.runs:
                for rank, node_id in enumerate(run.ranked, start=1):
                    trec.write(f"{_token(run.query_id)} Q0 {_token(str(node_id))} {rank} {1.0 / rank:.6f} {stem}\n")
    if gold_names is not None:
        (runs_dir / GOLD_NAMES).write_text(
            json.dumps({key: sorted(names) for key, names in gold_names.items()}), encoding="utf-8"
        )
    return runs_dir


def _token(value: str) -> str:
    """TREC fields are whitespace-separated: ids holding whitespace would break the columns."""
    return re.sub(r"\s", "_", value)


def read_runs(folder: Path) -> tuple[dict[str, SystemRuns], dict[str, set[str]] | None]:
    """The systems' runs saved by `write_runs` (`folder` or `folder/runs`), in `grasp eval`'s system order,
    and the gold names when they were saved."""
    runs_dir = folder / RUNS_DIR if (folder / RUNS_DIR).is_dir() else folder
    files = sorted(runs_dir.glob("*.jsonl"))
    if not files:
        raise EvaluationError(f"{runs_dir} holds no run files (*.jsonl); allowed: a folder `grasp eval --out` wrote")
    results: dict[str, SystemRuns] = {}
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                record = _record(path, number, line)
                results.setdefault(record["system"], SystemRuns(record["system"])).runs.append(
                    QueryRun(
                        str(record["query_id"]),
                        tuple(record["ranked"]),
                        float(record["latency_ms"]),
                        record.get("failure"),
                        record.get("answer"),
                        dict(record.get("stages_ms") or {}),
                    )
                )
    order = {name: index for index, name in enumerate(SYSTEMS)}
    ordered = dict(sorted(results.items(), key=lambda item: order.get(item[0], len(order))))
    names_path = runs_dir / GOLD_NAMES
    return ordered, _gold_names(names_path) if names_path.is_file() else None


def _gold_names(path: Path) -> dict[str, set[str]]:
    try:
        names = json.loads(path.read_text(encoding="utf-8"))
    except RecursionError as error:
        raise EvaluationError(f"{path}: JSON nested too deeply") from error
    except ValueError as error:
        raise EvaluationError(f"{path}: not JSON ({error})") from error
    if not isinstance(names, dict) or not all(
        isinstance(value, list) and all(isinstance(name, str) for name in value) for value in names.values()
    ):
        raise EvaluationError(f"{path}: expected an object of query id -> list of answer names")
    return {key: set(value) for key, value in names.items()}


def _record(path: Path, number: int, line: str) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except RecursionError as error:  # past Python's recursion limit (~1,000 levels)
        raise EvaluationError(f"{path}:{number}: JSON nested too deeply") from error
    except ValueError as error:
        raise EvaluationError(f"{path}:{number}: not JSON ({error})") from error
    missing = (
        [key for key in ("system", "query_id", "ranked", "latency_ms") if key not in record]
        if isinstance(record, dict)
        else ["all"]
    )
    if missing or not isinstance(record.get("ranked"), list):
        raise EvaluationError(
            f"{path}:{number}: a run line needs system, query_id, ranked (a list) and latency_ms; missing {missing}"
        )
    return record


__all__ = ["GOLD_NAMES", "RUNS_DIR", "read_runs", "run_file_stem", "write_runs"]
