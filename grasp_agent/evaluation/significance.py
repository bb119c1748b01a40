"""Paired significance of a difference between two systems scored on the same queries.

Both tests pair per query, so they see the variance that matters (query difficulty cancels out):
McNemar for 0/1 outcomes such as Hit@1, a paired bootstrap for graded scores such as MRR or Recall@20.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from grasp_agent.errors import GraspError

EXACT_BELOW = 25  # discordant pairs under this use the exact binomial test; the chi-square is poor for few pairs
CONFIDENCE = 0.95
ROWS_PER_BLOCK_ELEMENTS = 1 << 20  # resampled indices drawn per block, so memory stays ~8 MB for any n

Scores = Sequence[float] | NDArray[Any]


class SignificanceError(GraspError):
    """A significance test got inputs it cannot pair (lengths differ, empty) or a bad parameter."""


@dataclass(frozen=True)
class McNemarResult:
    """McNemar's test on paired hits: only the discordant queries (b, c) carry information.

    `statistic` is min(b, c) for the exact test and the corrected chi-square for "chi2".
    """

    n: int
    b: int  # system A right, system B wrong
    c: int  # system A wrong, system B right
    statistic: float
    p_value: float
    method: Literal["exact", "chi2"]


@dataclass(frozen=True)
class BootstrapResult:
    """Paired bootstrap of the mean score difference (A - B) with a 95% percentile interval."""

    n: int
    mean_a: float
    mean_b: float
    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    resamples: int


def mcnemar(hits_a: Sequence[bool], hits_b: Sequence[bool]) -> McNemarResult:
    """Two-sided McNemar test of "A and B hit equally often" on the same queries.

    Exact binomial when b + c < 25, else chi-square (1 dof) with continuity correction; the corrected
    |b - c| - 1 is floored at 0 so b == c gives p = 1, as the exact test does.

    Raises:
        SignificanceError: the sequences are empty or differ in length.
    """
    _check_pair(len(hits_a), len(hits_b))
    b = sum(1 for a_hit, b_hit in zip(hits_a, hits_b, strict=True) if a_hit and not b_hit)
    c = sum(1 for a_hit, b_hit in zip(hits_a, hits_b, strict=True) if b_hit and not a_hit)
    discordant = b + c
    if discordant < EXACT_BELOW:
        low = min(b, c)
        tail = sum(math.comb(discordant, i) for i in range(low + 1))
        p_value = min(1.0, 2 * tail / 2**discordant)
        return McNemarResult(len(hits_a), b, c, float(low), p_value, "exact")
    statistic = max(0, abs(b - c) - 1) ** 2 / discordant
    return McNemarResult(len(hits_a), b, c, statistic, math.erfc(math.sqrt(statistic / 2)), "chi2")


def paired_bootstrap(scores_a: Scores, scores_b: Scores, *, resamples: int = 10_000, seed: int = 0) -> BootstrapResult:
    """Resample queries with replacement and look at the distribution of the mean difference A - B.

    `p_value` is twice the share of resampled deltas on the other side of 0 from the observed delta
    (0 itself counts as the other side), capped at 1; a delta of exactly 0 gives 1. It is 0.0 when no
    resample crosses 0, i.e. p < 1/resamples. Deterministic for a given seed.

    Raises:
        SignificanceError: the inputs are empty, differ in length, hold NaN/inf, or resamples < 1.
    """
    a = np.asarray(scores_a, dtype=np.float64)
    b = np.asarray(scores_b, dtype=np.float64)
    _check_pair(len(a), len(b))
    if resamples < 1:
        raise SignificanceError(f"resamples must be at least 1, got {resamples}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise SignificanceError("scores must be finite numbers; got NaN or infinity")
    diff = a - b
    delta = float(diff.mean())
    boot = _resampled_means(diff, resamples, seed)
    tail = (1 - CONFIDENCE) / 2 * 100
    ci_low, ci_high = np.percentile(boot, [tail, 100 - tail])
    if delta > 0:
        p_value = min(1.0, 2 * float(np.mean(boot <= 0)))
    elif delta < 0:
        p_value = min(1.0, 2 * float(np.mean(boot >= 0)))
    else:
        p_value = 1.0
    return BootstrapResult(
        len(a), float(a.mean()), float(b.mean()), delta, float(ci_low), float(ci_high), p_value, resamples
    )


def _resampled_means(diff: NDArray[np.float64], resamples: int, seed: int) -> NDArray[np.float64]:
    """Means of `resamples` bootstrap samples of `diff`, drawn in blocks to bound memory."""
    rng = np.random.default_rng(seed)
    n = len(diff)
    rows = max(1, ROWS_PER_BLOCK_ELEMENTS // n)
    means = np.empty(resamples, dtype=np.float64)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        indices = rng.integers(0, n, size=(stop - start, n))  # (rows, n)
        means[start:stop] = diff[indices].mean(axis=1)
    return means


def _check_pair(len_a: int, len_b: int) -> None:
    if len_a != len_b:
        raise SignificanceError(
            f"paired tests need one score per query from each system; got {len_a} for A and {len_b} for B"
        )
    if len_a == 0:
        raise SignificanceError("paired tests need at least one query; got none")


__all__ = ["BootstrapResult", "McNemarResult", "SignificanceError", "mcnemar", "paired_bootstrap"]
