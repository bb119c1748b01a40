"""Questions with known answers: one model (`EvalQuery`) for query files, STaRK's QA CSV and the questions
grasp generates (`hpo_questions`), which evaluation, field-weight and fusion fitting and the trainers all read.

Formats (STaRK's layout: /work/shared/STARK_FORMAT.md):
- JSONL, one object per line: `{"id", "query", "answer_ids": [...]}` plus optional `split`, `template`,
  `hops`, `level`, `topic_ids`, `target_type`, `anchors`; or the same with `text` instead of `query` (what
  `write_queries` writes, e.g. generated HPO questions).
- STaRK CSV `id,query,answer_ids` (a Python list literal, read with `ast.literal_eval`, never `eval`); other
  columns, such as `answer_ids_source` in the human-generated files, are ignored.

Split names are kept as each source writes them: STaRK's `train`/`val`/`test`, while grasp's generated
questions say `valid`. Ids become strings, so STaRK's integer node ids compare equal to the ids the loader stores.
"""

from __future__ import annotations

import ast
import csv
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from grasp_agent.errors import DataFileError
from grasp_agent.evaluation.questions import json_object_line

STARK_SPLITS = ("train", "val", "test")
STARK_COLUMNS = ("id", "query", "answer_ids")
STARK_QA_FILE = "stark_qa.csv"  # the only STaRK CSV the split/*.index files describe
JSONL_SUFFIXES = (".jsonl", ".json")

M = TypeVar("M", bound=BaseModel)


class QueryFileError(DataFileError):
    """A query file is missing or malformed; the message names the file and line."""


class GoldAnchor(BaseModel):
    """A node the question mentions by name (what an entity linker should find)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    type: str = Field(min_length=1)
    name: str = Field(min_length=1)


class EvalQuery(BaseModel):
    """One question with its gold answer node ids (distinct, in file order) and optional metadata: what it is
    for (`split`), how it was made (`template`, `hops`, `level`) and, for generated questions, the type all its
    answers have (`target_type`) and the nodes it names (`anchors`). A labelled question everywhere: evaluation,
    field-weight and fusion fitting, the planner and reranker trainers."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    answer_ids: tuple[str, ...] = Field(min_length=1)
    split: str | None = None
    template: str | None = None
    hops: int | None = Field(default=None, ge=0)
    level: str | None = None
    # The nodes the query is about (its anchors), as BioStrat-QA records them; AdaPath starts its paths there.
    topic_ids: tuple[str, ...] = ()
    target_type: str | None = Field(default=None, min_length=1)
    anchors: tuple[GoldAnchor, ...] = ()

    @field_validator("id", mode="before")
    @classmethod
    def _int_id_to_str(cls, value: Any) -> Any:
        return _id_text(value)

    @field_validator("answer_ids", "topic_ids", mode="before")
    @classmethod
    def _int_answers_to_str(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return [_id_text(item) for item in value]
        return value

    @field_validator("answer_ids")
    @classmethod
    def _distinct_answers(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        """Repeats say nothing more about the answer set (STaRK prime has a few); keep the first."""
        return tuple(dict.fromkeys(value))


def read_queries(path: Path, split: str | None = None) -> list[EvalQuery]:
    """The queries of a JSONL or STaRK CSV file, in file order, optionally only those of one split.

    For `<dir>/stark_qa/stark_qa.csv` the splits come from `<dir>/split/{train,val,test}.index`.

    Raises:
        QueryFileError: the file is missing, has an unknown suffix or a malformed line, or `split`
            names no split of the file.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        split_dir = path.parent.parent / "split"
        use_splits = path.name == STARK_QA_FILE and split_dir.is_dir()
        return read_stark_queries(path, split_dir if use_splits else None, split)
    if suffix not in JSONL_SUFFIXES:
        raise QueryFileError(
            path, None, f"unknown query file suffix {path.suffix!r}; allowed: .csv, {', '.join(JSONL_SUFFIXES)}"
        )
    queries = read_jsonl_queries(path)
    if split is None:
        return queries
    present = sorted({query.split for query in queries if query.split is not None})
    if split not in present:
        raise QueryFileError(path, None, f"unknown split {split!r}; the file has: {present or 'no splits'}")
    return [query for query in queries if query.split == split]


def read_jsonl_queries(path: Path) -> list[EvalQuery]:
    """The queries of a JSONL file in file order; blank lines are skipped.

    A line names its question `query` (STaRK's word) or `text` (the model's, as `write_queries` writes).

    Raises:
        QueryFileError: the file is missing, a line is not a JSON object or fails validation, or an id repeats.
    """
    path = Path(path)
    if not path.is_file():
        raise QueryFileError(path, None, "query file not found")
    numbered: list[tuple[int, EvalQuery]] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                numbered.append((number, _parse_json_line(path, number, line)))
    return _distinct(path, numbered)


def read_stark_queries(csv_path: Path, split_dir: Path | None = None, split: str | None = None) -> list[EvalQuery]:
    """The queries of a STaRK QA CSV in file order, labelled with their split when `split_dir` is given.

    Raises:
        QueryFileError: a file is missing or malformed, `split` is not train/val/test or is asked for
            without `split_dir`, or an index file names a query the CSV lacks or another index file has.
    """
    csv_path = Path(csv_path)
    if split is not None and split not in STARK_SPLITS:
        raise QueryFileError(csv_path, None, f"unknown split {split!r}; allowed: {', '.join(STARK_SPLITS)}")
    if split is not None and split_dir is None:
        raise QueryFileError(
            csv_path,
            None,
            f"split {split!r} asked for, but there is no split folder (STaRK has one only for {STARK_QA_FILE})",
        )
    queries = _read_stark_csv(csv_path)
    if split_dir is None:
        return queries
    split_of = _read_split_dir(Path(split_dir), csv_path, {query.id for query in queries})
    labelled = [query.model_copy(update={"split": split_of.get(query.id)}) for query in queries]
    return [query for query in labelled if split is None or query.split == split]


def _parse_json_line(path: Path, number: int, line: str) -> EvalQuery:
    data = json_object_line(path, number, line, QueryFileError)
    if "query" in data and "text" in data:
        raise QueryFileError(path, number, "has both 'query' and 'text'; a line names its question once")
    if "query" in data:
        data["text"] = data.pop("query")
        return _validated(path, number, EvalQuery, data, rename={"text": "query"})
    if "text" in data:
        return _validated(path, number, EvalQuery, data, rename={})
    raise QueryFileError(path, number, f"missing 'query' (or 'text'), the question; keys: {sorted(data)}")


def _read_stark_csv(path: Path) -> list[EvalQuery]:
    if not path.is_file():
        raise QueryFileError(path, None, "query file not found")
    numbered: list[tuple[int, EvalQuery]] = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, [])
        missing = [name for name in STARK_COLUMNS if name not in header]
        if missing:
            raise QueryFileError(
                path, 1, f"missing columns {missing}; header: {header}, required: {list(STARK_COLUMNS)}"
            )
        column = {name: header.index(name) for name in STARK_COLUMNS}
        start = reader.line_num + 1
        try:
            for row in reader:
                number, start = start, reader.line_num + 1  # a quoted query may span lines
                if not row:
                    continue
                if len(row) != len(header):
                    raise QueryFileError(path, number, f"expected {len(header)} fields, got {len(row)}")
                data = {
                    "id": row[column["id"]].strip(),
                    "text": row[column["query"]],
                    "answer_ids": _answer_list(path, number, row[column["answer_ids"]]),
                }
                numbered.append((number, _validated(path, number, EvalQuery, data, rename={"text": "query"})))
        except csv.Error as error:
            raise QueryFileError(path, reader.line_num, f"not valid CSV ({error})") from error
    return _distinct(path, numbered)


def _answer_list(path: Path, number: int, text: str) -> list[Any]:
    """The answer_ids cell as a list; `ast.literal_eval` refuses calls such as `__import__('os')`."""
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as error:
        raise QueryFileError(path, number, f"answer_ids is not a list literal of ids: {text[:80]!r}") from error
    if not isinstance(value, list):
        raise QueryFileError(
            path, number, f"answer_ids must be a list literal, got {type(value).__name__}: {text[:80]!r}"
        )
    return value


def _read_split_dir(split_dir: Path, csv_path: Path, known: set[str]) -> dict[str, str]:
    split_of: dict[str, str] = {}
    for name in STARK_SPLITS:
        index = split_dir / f"{name}.index"
        if not index.is_file():
            raise QueryFileError(
                index,
                None,
                f"split index not found; a split folder needs {', '.join(s + '.index' for s in STARK_SPLITS)}",
            )
        for number, line in enumerate(index.read_text(encoding="utf-8").splitlines(), start=1):
            query_id = line.strip()
            if not query_id:
                continue
            if query_id not in known:
                raise QueryFileError(index, number, f"query id {query_id!r} is not in {csv_path}")
            if query_id in split_of:
                raise QueryFileError(
                    index,
                    number,
                    f"query id {query_id!r} is also in split {split_of[query_id]!r}; a query has one split",
                )
            split_of[query_id] = name
    return split_of


def _validated(path: Path, number: int, model: type[M], data: dict[str, Any], rename: dict[str, str]) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        problems = [
            f"{'.'.join(rename.get(str(part), str(part)) for part in item['loc']) or '<line>'}: {item['msg']}"
            for item in error.errors()
        ]
        raise QueryFileError(path, number, f"invalid {model.__name__}: " + "; ".join(problems), problems) from error


def _id_text(value: Any) -> Any:
    """Integer ids (STaRK's) as strings; bools are refused rather than read as 0/1."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


def _distinct(path: Path, numbered: list[tuple[int, EvalQuery]]) -> list[EvalQuery]:
    """The queries, after checking that no id repeats (a repeat would be scored twice)."""
    first_line: dict[str, int] = {}
    for number, query in numbered:
        if query.id in first_line:
            raise QueryFileError(
                path, number, f"duplicate query id {query.id!r} (first on line {first_line[query.id]})"
            )
        first_line[query.id] = number
    return [query for _, query in numbered]


def write_queries(path: Path, queries: Iterable[EvalQuery]) -> None:
    """`queries` as JSONL (UTF-8, one object per line, `text` naming the question, unset fields left out),
    replacing the file; `read_queries` reads it back equal."""
    with Path(path).open("w", encoding="utf-8") as handle:
        handle.writelines(query.model_dump_json(exclude_defaults=True) + "\n" for query in queries)


__all__ = [
    "STARK_SPLITS",
    "EvalQuery",
    "GoldAnchor",
    "QueryFileError",
    "query_set",
    "question_set",
    "read_jsonl_queries",
    "read_queries",
    "read_stark_queries",
    "write_queries",
]


def template_exclusions(every_query: Sequence[EvalQuery], evaluated: Sequence[EvalQuery]) -> dict[str, list[str]]:
    """Per evaluated query, the ids of every query of its template (leave-template-out); none without one."""
    by_template: dict[str, list[str]] = {}
    for query in every_query:
        if query.template:
            by_template.setdefault(query.template, []).append(query.id)
    return {query.id: by_template.get(query.template, []) if query.template else [] for query in evaluated}


def question_set(path: Path | None, count: int, seed: int, subset: list[str] | None) -> list[EvalQuery]:
    """The first `count` questions of a query file, or `count` HPO questions generated with `seed` (from the
    `subset` slice's roots, as loaded, when given)."""
    if path is not None:
        return read_queries(path)[:count]
    from grasp_agent.evaluation.hpo_questions import generate_hpo_questions  # reads the HPO source files
    from grasp_agent.skb.hpo import HpoSource

    return generate_hpo_questions(HpoSource(subset_roots=tuple(subset) if subset else None), count, seed)


def query_set(path: Path | None, count: int, seed: int, subset: list[str] | None) -> list[EvalQuery]:
    """Queries with answers and splits: any query file `grasp eval` reads, or generated HPO questions."""
    if path is not None:
        return read_queries(path)
    return question_set(None, count, seed, subset)
