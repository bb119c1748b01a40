"""Query set readers: JSONL (query and text lines, generated questions), STaRK's QA CSV with split indexes, real STaRK files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from grasp_agent.errors import GraspError
from grasp_agent.evaluation.query_sets import (
    EvalQuery,
    GoldAnchor,
    QueryFileError,
    read_jsonl_queries,
    read_queries,
    read_stark_queries,
    template_exclusions,
    write_queries,
)

SHARED_STARK = Path(__file__).resolve().parents[3] / "shared" / "data" / "stark"

STARK_CSV = (
    "id,query,answer_ids\n"
    '3,"Which drug treats x?",[10]\n'
    '1,"A query that\nspans two lines","[20, 21, 20]"\n'
    "0,Plain query,\"['a7', 5]\"\n"
    "2,Another one,[30]\n"
)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _jsonl(path: Path, *objects: object) -> Path:
    return _write(path, "".join(json.dumps(item) + "\n" for item in objects))


def _stark_dir(root: Path, csv_text: str = STARK_CSV, splits: dict[str, str] | None = None) -> Path:
    """A STaRK QA layout: <root>/stark_qa/stark_qa.csv and <root>/split/*.index; returns the CSV path."""
    splits = splits if splits is not None else {"train": "3\n1\n", "val": "0", "test": "2\n"}
    for name, text in splits.items():
        _write(root / "split" / f"{name}.index", text)
    return _write(root / "stark_qa" / "stark_qa.csv", csv_text)


# --- JSONL ---


def test_jsonl_query_lines_with_metadata(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path / "q.jsonl",
        {
            "id": "q1",
            "query": "Who?",
            "answer_ids": ["7", 8],
            "split": "test",
            "template": "t1",
            "hops": 2,
            "level": "hard",
        },
        {"id": 5, "query": "What?", "answer_ids": [9]},
    )
    _write(path, path.read_text(encoding="utf-8") + "\n   \n")  # trailing blank lines are skipped
    assert read_jsonl_queries(path) == [
        EvalQuery(id="q1", text="Who?", answer_ids=("7", "8"), split="test", template="t1", hops=2, level="hard"),
        EvalQuery(id="5", text="What?", answer_ids=("9",)),
    ]


def test_generated_question_files_read_back_equal(tmp_path: Path) -> None:
    question = EvalQuery(
        id="hpo-1",
        text="Which genes?",
        answer_ids=("NCBIGene:1", "NCBIGene:2"),
        template="disease_genes",
        target_type="Gene",
        anchors=(GoldAnchor(id="OMIM:1", type="Disease", name="D"),),
        split="valid",
    )
    path = tmp_path / "questions.jsonl"
    write_queries(path, [question, EvalQuery(id="q2", text="What?", answer_ids=("9",))])
    assert json.loads(path.read_text(encoding="utf-8").splitlines()[1]) == {
        "id": "q2",
        "text": "What?",
        "answer_ids": ["9"],
    }
    assert read_queries(path) == [question, EvalQuery(id="q2", text="What?", answer_ids=("9",))]


def test_question_files_written_before_the_one_type_still_read(tmp_path: Path) -> None:
    """The lines grasp's generated `Question`s were written as (every field required) are EvalQuery lines."""
    path = _write(
        tmp_path / "old.jsonl",
        json.dumps(
            {
                "id": "hpo-1",
                "text": "Which genes?",
                "answer_ids": ["NCBIGene:1"],
                "template": "disease_genes",
                "target_type": "Gene",
                "anchors": [{"id": "OMIM:1", "type": "Disease", "name": "D"}],
                "split": "valid",
            }
        )
        + "\n",
    )
    assert read_queries(path, "valid")[0].anchors == (GoldAnchor(id="OMIM:1", type="Disease", name="D"),)


def test_read_queries_filters_jsonl_by_split(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path / "q.jsonl",
        {"id": "a", "query": "A", "answer_ids": [1], "split": "train"},
        {"id": "b", "query": "B", "answer_ids": [2], "split": "test"},
    )
    assert [query.id for query in read_queries(path, split="test")] == ["b"]
    with pytest.raises(QueryFileError, match=r"unknown split 'val'; the file has: \['test', 'train'\]"):
        read_queries(path, split="val")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "a", "query": "A", "answer_ids": [1]', r"q.jsonl:2: not valid JSON"),
        ('["a", "A", [1]]', r"q.jsonl:2: expected a JSON object, got list"),
        ('{"id": "a", "answer_ids": [1]}', r"q.jsonl:2: missing 'query' .* keys: \['answer_ids', 'id'\]"),
        ('{"id": "a", "query": "A"}', r"q.jsonl:2: invalid EvalQuery: answer_ids: Field required"),
        ('{"id": "a", "query": "A", "answer_ids": []}', r"q.jsonl:2: invalid EvalQuery: answer_ids: .*at least 1"),
        ('{"id": "a", "query": "", "answer_ids": [1]}', r"q.jsonl:2: invalid EvalQuery: query: .*at least 1"),
        ('{"id": "a", "query": "A", "answer_ids": [true]}', r"answer_ids.0: Input should be a valid string"),
        ('{"id": "a", "query": "A", "answer_ids": [1.5]}', r"answer_ids.0: Input should be a valid string"),
        ('{"id": "a", "query": "A", "answer_ids": [1], "hops": -1}', r"hops: .*greater than or equal to 0"),
        ('{"id": "a", "query": "A", "answer_ids": [1], "answer": 1}', r"answer: Extra inputs are not permitted"),
        ('{"id": "a", "query": "A", "text": "A", "answer_ids": [1]}', r"has both 'query' and 'text'"),
        ('{"id": "a", "text": "", "answer_ids": ["1"]}', r"q.jsonl:2: invalid EvalQuery: text: .*at least 1"),
        ('{"id": "z", "query": "Z", "answer_ids": [1]}', r"q.jsonl:2: duplicate query id 'z' \(first on line 1\)"),
    ],
)
def test_jsonl_malformed_lines_name_file_line_and_problem(tmp_path: Path, line: str, message: str) -> None:
    path = _write(tmp_path / "q.jsonl", '{"id": "z", "query": "Z", "answer_ids": [1]}\n' + line + "\n")
    with pytest.raises(QueryFileError, match=message) as caught:
        read_jsonl_queries(path)
    assert caught.value.line == 2
    assert isinstance(caught.value, GraspError)


def test_missing_file_and_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(QueryFileError, match="query file not found"):
        read_queries(tmp_path / "absent.jsonl")
    with pytest.raises(QueryFileError, match="query file not found"):
        read_queries(tmp_path / "absent.csv")
    with pytest.raises(QueryFileError, match=r"unknown query file suffix '.tsv'; allowed: .csv, .jsonl, .json"):
        read_queries(_write(tmp_path / "q.tsv", ""))


def test_eval_query_is_frozen_and_keeps_first_of_repeated_answers() -> None:
    query = EvalQuery(id=3, text="x", answer_ids=[5, "b", 5])  # type: ignore[arg-type]
    assert (query.id, query.answer_ids) == ("3", ("5", "b"))
    with pytest.raises(ValidationError):
        query.text = "y"  # type: ignore[misc]


# --- STaRK CSV ---


def test_stark_csv_without_splits(tmp_path: Path) -> None:
    path = _write(tmp_path / "qa.csv", STARK_CSV)
    assert read_stark_queries(path) == [
        EvalQuery(id="3", text="Which drug treats x?", answer_ids=("10",)),
        EvalQuery(id="1", text="A query that\nspans two lines", answer_ids=("20", "21")),
        EvalQuery(id="0", text="Plain query", answer_ids=("a7", "5")),
        EvalQuery(id="2", text="Another one", answer_ids=("30",)),
    ]


def test_read_queries_uses_stark_split_folder(tmp_path: Path) -> None:
    path = _stark_dir(tmp_path / "prime")
    queries = read_queries(path)
    assert [(query.id, query.split) for query in queries] == [
        ("3", "train"),
        ("1", "train"),
        ("0", "val"),
        ("2", "test"),
    ]
    assert [query.id for query in read_queries(path, split="train")] == ["3", "1"]
    assert [query.id for query in read_queries(path, split="val")] == ["0"]


def test_queries_missing_from_every_index_have_no_split(tmp_path: Path) -> None:
    path = _stark_dir(tmp_path, splits={"train": "3\n", "val": "", "test": "2\n"})
    assert [query.split for query in read_queries(path)] == ["train", None, None, "test"]


def test_other_stark_csvs_ignore_the_split_folder(tmp_path: Path) -> None:
    _stark_dir(tmp_path)  # ids 0..3 in the indexes; the human file below has other ids
    human = _write(
        tmp_path / "stark_qa" / "stark_qa_human_generated_eval.csv",
        'id,query,answer_ids,answer_ids_source\n0,Human query,"[1, 2]",[1]\n',
    )
    assert read_queries(human) == [EvalQuery(id="0", text="Human query", answer_ids=("1", "2"))]
    with pytest.raises(QueryFileError, match="split 'test' asked for, but there is no split folder"):
        read_queries(human, split="test")


def test_unknown_stark_split_lists_the_allowed_ones(tmp_path: Path) -> None:
    with pytest.raises(QueryFileError, match=r"unknown split 'valid'; allowed: train, val, test"):
        read_queries(_stark_dir(tmp_path), split="valid")


def test_index_id_missing_from_the_csv(tmp_path: Path) -> None:
    path = _stark_dir(tmp_path, splits={"train": "3\n1\n", "val": "0\n99\n", "test": "2"})
    with pytest.raises(QueryFileError, match=r"val.index:2: query id '99' is not in .*stark_qa.csv"):
        read_queries(path)


def test_index_id_in_two_splits(tmp_path: Path) -> None:
    path = _stark_dir(tmp_path, splits={"train": "3\n1\n", "val": "0\n", "test": "2\n3\n"})
    with pytest.raises(QueryFileError, match=r"test.index:2: query id '3' is also in split 'train'"):
        read_queries(path)


def test_missing_index_file(tmp_path: Path) -> None:
    path = _stark_dir(tmp_path, splits={"train": "3\n1\n", "test": "2\n"})
    with pytest.raises(QueryFileError, match=r"val.index: split index not found"):
        read_queries(path)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("9,Q", r"expected 3 fields, got 2"),
        ('9,Q,"[1, 2"', r"answer_ids is not a list literal of ids: '\[1, 2'"),
        ("9,Q,7", r"answer_ids must be a list literal, got int"),
        ('9,Q,"(1, 2)"', r"answer_ids must be a list literal, got tuple"),
        ("9,Q,[]", r"invalid EvalQuery: answer_ids: .*at least 1"),
        ("9,Q,[1.5]", r"invalid EvalQuery: answer_ids.0: Input should be a valid string"),
        ("9,Q,[[1]]", r"invalid EvalQuery: answer_ids.0: Input should be a valid string"),
        ("9,,[1]", r"invalid EvalQuery: query: .*at least 1"),
        ("3,Q,[1]", r"duplicate query id '3' \(first on line 2\)"),
    ],
)
def test_stark_csv_malformed_rows(tmp_path: Path, row: str, message: str) -> None:
    path = _write(tmp_path / "qa.csv", STARK_CSV + row + "\n")
    with pytest.raises(QueryFileError, match=message) as caught:
        read_stark_queries(path)
    assert caught.value.line == 7  # header, 4 rows (one spans two lines), then this row


def test_stark_csv_refuses_code_in_answer_ids(tmp_path: Path) -> None:
    marker = tmp_path / "evaluated"
    payload = f"__import__('os').system('touch {marker}')"
    path = _write(tmp_path / "qa.csv", f'id,query,answer_ids\n1,Q,"{payload}"\n')
    with pytest.raises(QueryFileError, match=r"qa.csv:2: answer_ids is not a list literal of ids: \"__import__"):
        read_stark_queries(path)
    with pytest.raises(QueryFileError, match="not a list literal"):
        read_stark_queries(_write(tmp_path / "qa2.csv", "id,query,answer_ids\n1,Q,\"[__import__('os')]\"\n"))
    assert not marker.exists()


def test_stark_csv_header_must_name_the_columns(tmp_path: Path) -> None:
    path = _write(tmp_path / "qa.csv", "id,question,answers\n1,Q,[1]\n")
    with pytest.raises(QueryFileError, match=r"qa.csv:1: missing columns \['query', 'answer_ids'\]"):
        read_stark_queries(path)


# --- the real STaRK files in shared/ ---


def _record_starts(path: Path) -> int:
    """Rows counted without a CSV parser: every record, and no continuation line, starts with `<id>,`."""
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if re.match(r"\d+,", line))


def _index_sizes(split_dir: Path) -> dict[str, int]:
    return {
        name: sum(1 for line in (split_dir / f"{name}.index").read_text(encoding="utf-8").splitlines() if line.strip())
        for name in ("train", "val", "test")
    }


@pytest.mark.parametrize("skb", ["primekg", "mag", "amazon"])
def test_real_stark_qa_files_load(skb: str) -> None:
    root = SHARED_STARK / skb
    if not root.is_dir():
        pytest.skip(f"STaRK {skb} QA files are not in {root}")
    synthetic = root / "stark_qa" / "stark_qa.csv"
    queries = read_queries(synthetic)
    sizes = _index_sizes(root / "split")
    assert len(queries) == _record_starts(synthetic) == sum(sizes.values())
    assert {name: sum(1 for query in queries if query.split == name) for name in sizes} == sizes
    human = root / "stark_qa" / "stark_qa_human_generated_eval.csv"
    if human.is_file():
        human_queries = read_queries(human)
        assert len(human_queries) == _record_starts(human)
        assert all(query.split is None for query in human_queries)


def test_leave_template_out_hides_every_query_of_the_evaluated_querys_template() -> None:
    every = [
        EvalQuery(id=f"{template}-{i}", text="q", answer_ids=("a",), template=template)
        for template in ("gene_diseases", "disease_genes")
        for i in range(2)
    ]
    untemplated = EvalQuery(id="free", text="q", answer_ids=("a",))
    hidden = template_exclusions([*every, untemplated], [every[0], every[3], untemplated])
    assert hidden == {
        "gene_diseases-0": ["gene_diseases-0", "gene_diseases-1"],
        "disease_genes-1": ["disease_genes-0", "disease_genes-1"],
        "free": [],
    }
