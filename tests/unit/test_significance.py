"""McNemar and the paired bootstrap on hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from grasp_agent.errors import GraspError
from grasp_agent.evaluation import significance
from grasp_agent.evaluation.significance import (
    SignificanceError,
    mcnemar,
    paired_bootstrap,
)


def _pairs(both: int, only_a: int, only_b: int, neither: int) -> tuple[list[bool], list[bool]]:
    """Hit lists with the given counts of (A, B) outcomes."""
    a = [True] * both + [True] * only_a + [False] * only_b + [False] * neither
    b = [True] * both + [False] * only_a + [True] * only_b + [False] * neither
    return a, b


def test_exact_one_sided_discordance() -> None:
    # b=5, c=0: 2 * C(5,0) / 2^5 = 2/32
    result = mcnemar(*_pairs(both=7, only_a=5, only_b=0, neither=3))
    assert (result.n, result.b, result.c, result.method) == (15, 5, 0, "exact")
    assert result.statistic == 0.0
    assert result.p_value == pytest.approx(0.0625)


def test_exact_mixed_discordance() -> None:
    # b=1, c=3: 2 * (C(4,0) + C(4,1)) / 2^4 = 2 * 5/16
    result = mcnemar(*_pairs(both=0, only_a=1, only_b=3, neither=0))
    assert (result.b, result.c, result.statistic) == (1, 3, 1.0)
    assert result.p_value == pytest.approx(0.625)


def test_exact_p_is_capped_at_one() -> None:
    # b=c=10: twice P(X <= 10) for X ~ Bin(20, 1/2) exceeds 1
    assert mcnemar(*_pairs(both=2, only_a=10, only_b=10, neither=2)).p_value == 1.0


def test_identical_systems_give_p_one() -> None:
    hits = [True, False, True, True, False]
    result = mcnemar(hits, hits)
    assert (result.b, result.c, result.p_value, result.method) == (0, 0, 1.0, "exact")


def test_chi_square_with_continuity_correction() -> None:
    # b=20, c=8: (|20-8| - 1)^2 / 28 = 121/28 = 4.3214; sqrt = 2.0788;
    # two-sided normal tail: 2 * (1 - Phi(2.0788)) = 2 * (1 - 0.98118) = 0.0376 (table interpolation)
    result = mcnemar(*_pairs(both=30, only_a=20, only_b=8, neither=12))
    assert result.method == "chi2"
    assert result.statistic == pytest.approx(121 / 28)
    assert result.p_value == pytest.approx(0.0376, abs=2e-4)


def test_chi_square_balanced_discordance_gives_p_one() -> None:
    # b=c=15: the correction is floored at 0, matching the exact test's p = 1
    result = mcnemar(*_pairs(both=0, only_a=15, only_b=15, neither=0))
    assert (result.method, result.statistic, result.p_value) == ("chi2", 0.0, 1.0)


def test_switch_from_exact_to_chi_square_at_25_discordant() -> None:
    assert mcnemar(*_pairs(both=0, only_a=24, only_b=0, neither=0)).method == "exact"
    assert mcnemar(*_pairs(both=0, only_a=25, only_b=0, neither=0)).method == "chi2"
    # b=24, c=0 exact: 2 / 2^24
    assert mcnemar(*_pairs(both=0, only_a=24, only_b=0, neither=0)).p_value == pytest.approx(2 / 2**24)


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        ([True], [True, False], "got 1 for A and 2 for B"),
        ([], [], "at least one query"),
    ],
)
def test_mcnemar_refuses_unpaired_input(a: list[bool], b: list[bool], message: str) -> None:
    with pytest.raises(SignificanceError, match=message):
        mcnemar(a, b)


def test_bootstrap_of_a_constant_difference() -> None:
    # every query gains exactly 0.25: every resample has delta 0.25, none crosses 0
    result = paired_bootstrap([0.5, 0.75, 1.0], [0.25, 0.5, 0.75], resamples=200)
    assert (result.n, result.resamples) == (3, 200)
    assert result.mean_a == pytest.approx(0.75)
    assert result.mean_b == pytest.approx(0.5)
    assert result.delta == pytest.approx(0.25)
    assert result.ci_low == pytest.approx(0.25)
    assert result.ci_high == pytest.approx(0.25)
    assert result.p_value == 0.0


def test_bootstrap_is_deterministic_for_a_seed() -> None:
    rng = np.random.default_rng(7)
    a, b = rng.random(40), rng.random(40)
    first = paired_bootstrap(a, b, resamples=500, seed=3)
    assert paired_bootstrap(a, b, resamples=500, seed=3) == first
    assert paired_bootstrap(a, b, resamples=500, seed=4) != first


def test_bootstrap_interval_contains_the_observed_delta() -> None:
    rng = np.random.default_rng(11)
    a, b = rng.random(60), rng.random(60)
    result = paired_bootstrap(a, b, resamples=2000)
    assert result.delta == pytest.approx(float(np.mean(a - b)))
    assert result.ci_low < result.delta < result.ci_high


def test_clearly_better_system_is_significant() -> None:
    # 40 queries gain 0.3, 10 lose 0.1: mean gain 0.22, and no resample of 50 comes near 0
    a = [0.5] * 40 + [0.1] * 10
    b = [0.2] * 50
    result = paired_bootstrap(a, b, resamples=2000)
    assert result.delta == pytest.approx(0.22)
    assert result.p_value < 0.05
    assert result.ci_low > 0


def test_identical_scores_give_p_one() -> None:
    scores = [0.1, 0.4, 0.9, 0.0]
    result = paired_bootstrap(scores, scores, resamples=100)
    assert (result.delta, result.ci_low, result.ci_high, result.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_worse_system_gets_a_negative_delta_and_the_mirrored_p() -> None:
    rng = np.random.default_rng(5)
    a, b = rng.random(30), rng.random(30)
    forward = paired_bootstrap(a, b, resamples=1000, seed=9)
    backward = paired_bootstrap(b, a, resamples=1000, seed=9)
    assert backward.delta == pytest.approx(-forward.delta)
    assert backward.ci_low == pytest.approx(-forward.ci_high)
    assert backward.p_value == pytest.approx(forward.p_value)


def test_bootstrap_blocks_do_not_change_the_sample_count(monkeypatch: pytest.MonkeyPatch) -> None:
    # 7 elements per block with n=3: two resamples per block, and 5 is not a multiple of 2
    monkeypatch.setattr(significance, "ROWS_PER_BLOCK_ELEMENTS", 7)
    means = significance._resampled_means(np.array([0.0, 1.0, 2.0]), 5, seed=0)
    assert means.shape == (5,)
    assert np.all((means >= 0.0) & (means <= 2.0))


@pytest.mark.parametrize(
    ("a", "b", "kwargs", "message"),
    [
        ([1.0, 2.0], [1.0], {}, "got 2 for A and 1 for B"),
        ([], [], {}, "at least one query"),
        ([1.0], [0.0], {"resamples": 0}, "resamples must be at least 1, got 0"),
        ([1.0, math.nan], [0.0, 0.0], {}, "finite"),
    ],
)
def test_bootstrap_refuses_bad_input(a: list[float], b: list[float], kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(SignificanceError, match=message) as caught:
        paired_bootstrap(a, b, **kwargs)
    assert isinstance(caught.value, GraspError)
