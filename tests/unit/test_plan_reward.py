"""The planner's reward table on hand-made rankings: buckets, gains, shrinkage toward the row mean, the lowest
reward for invalid plans, and the JSON round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from grasp_agent.errors import GraspError
from grasp_agent.training.plan_reward import (
    LOWEST,
    RewardObservation,
    RewardTable,
    candidate_bucket,
    gold_rank_bucket,
)


def test_buckets_cover_every_rank_and_count() -> None:
    assert [gold_rank_bucket(r) for r in (1, 2, 3, 4, 10, 11, 100, 101, None)] == [
        "1",
        "2-3",
        "2-3",
        "4-10",
        "4-10",
        "11-100",
        "11-100",
        "miss",
        "miss",
    ]
    assert [candidate_bucket(c) for c in (0, 1, 10, 11, 50, 51, 99, 100, 5000)] == [
        "0",
        "1-10",
        "1-10",
        "11-50",
        "11-50",
        "51-99",
        "51-99",
        "100+",
        "100+",
    ]
    with pytest.raises(ValueError):
        gold_rank_bucket(0)
    with pytest.raises(ValueError):
        candidate_bucket(-1)


def test_an_observation_is_the_gain_of_fused_over_text() -> None:
    # graph puts the gold first of three; text had it third; fused moved it to first: gain 1 - 1/3
    seen = RewardObservation.from_rankings(["g", "x", "y"], ["x", "y", "g"], ["g", "x", "y"], {"g"})
    assert (seen.gold_rank, seen.candidates) == (1, 3) and seen.gain == pytest.approx(2 / 3)
    # graph misses it and fusion pushes it from first to second: a loss
    lost = RewardObservation.from_rankings(["x"], ["g", "x"], ["x", "g"], {"g"})
    assert (lost.gold_rank, lost.candidates, lost.gain) == (None, 1, pytest.approx(-0.5))


def test_cells_are_shrunk_toward_their_row_mean_until_they_have_enough_questions() -> None:
    few = [RewardObservation(1, 3, 0.9)] * 5  # (1, 1-10): 5 questions, mean 0.9
    many = [RewardObservation(1, 100, 0.1)] * 45  # (1, 100+): 45 questions, mean 0.1
    misses = [RewardObservation(None, 100, -0.2)] * 60
    table = RewardTable.estimate(few + many + misses, shrink_at=50)
    row_mean = (5 * 0.9 + 45 * 0.1) / 50  # 0.18
    assert table.reward(1, 3) == pytest.approx(0.1 * 0.9 + 0.9 * row_mean)
    assert table.reward(1, 100) == pytest.approx(0.9 * 0.1 + 0.1 * row_mean)
    assert table.reward(1, 30) == pytest.approx(row_mean)  # never seen: the row's mean
    assert table.reward(None, 100) == pytest.approx(-0.2)  # 60 >= 50: the cell's own mean
    overall = (5 * 0.9 + 45 * 0.1 + 60 * -0.2) / 110
    assert table.reward(4, 20) == pytest.approx(overall)  # a row never seen: the overall mean
    # the point of the table: a gold ranked first among few candidates is worth more than among many
    assert table.reward(1, 3) > table.reward(1, 100) > table.reward(None, 100)


def test_invalid_or_failing_plans_get_the_lowest_reward_and_valid_ones_read_the_table() -> None:
    table = RewardTable.estimate([RewardObservation(1, 5, 0.4), RewardObservation(None, 0, 0.0)], shrink_at=1)
    assert table.reward_of_rankings(None, {"g"}) == LOWEST
    assert table.reward_of_rankings(["a", "g"], {"g"}) == table.reward(2, 2)
    assert table.reward_of_rankings([], {"g"}) == pytest.approx(0.0)  # an empty ranking leaves the text as is
    assert all(cell.value > LOWEST for cell in table.cells.values())


def test_the_table_round_trips_and_a_damaged_file_is_refused(tmp_path: Path) -> None:
    table = RewardTable.estimate([RewardObservation(1, 5, 0.4), RewardObservation(12, 80, -0.1)])
    path = tmp_path / "reward.json"
    table.save(path)
    assert RewardTable.load(path) == table
    path.write_text('{"questions": 1, "cells": []}')
    with pytest.raises(GraspError, match="does not have the 25 cells"):
        RewardTable.load(path)
    with pytest.raises(GraspError, match="at least one observation"):
        RewardTable.estimate([])
