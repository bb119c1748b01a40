import pytest

from grasp_agent.db.smoke import personalized_pagerank


def test_two_nodes_by_hand() -> None:
    # x = 0.15 + 0.85 y and y = 0.85 x  =>  x = 0.15 / (1 - 0.85^2), y = 0.85 x
    scores = personalized_pagerank((("x", "y"),), source="x")
    assert scores["x"] == pytest.approx(0.15 / (1 - 0.85**2))
    assert scores["y"] == pytest.approx(0.85 * 0.15 / (1 - 0.85**2))


def test_mass_never_reaches_another_component() -> None:
    scores = personalized_pagerank((("x", "y"), ("p", "q")), source="x")
    assert scores["p"] == scores["q"] == 0.0
