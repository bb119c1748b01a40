from grasp_agent.ranking import hit_at, ranking_quality, recall_at, reciprocal_rank


def test_measures_on_a_hand_checked_ranking() -> None:
    ranked = ["d", "a", "x", "b", "y", "z"]
    gold = {"a", "b", "c"}
    assert hit_at(ranked, gold, 1) == 0.0 and hit_at(ranked, gold, 2) == 1.0
    assert recall_at(ranked, gold, 5) == 2 / 3 and recall_at(ranked, gold, 1) == 0.0
    assert reciprocal_rank(ranked, gold) == 0.5
    assert reciprocal_rank(["x"], gold) == 0.0 and reciprocal_rank([], gold) == 0.0


def test_quality_averages_over_questions_and_counts_empty_rankings_as_misses() -> None:
    quality = ranking_quality([(["a", "b"], {"a"}), ([], {"q"}), (["x", "y", "z", "w", "v", "b"], {"b"})])
    assert quality.questions == 3
    assert quality.hit_at_1 == 1 / 3 and quality.hit_at_5 == 1 / 3
    assert abs(quality.mrr - (1 + 0 + 1 / 6) / 3) < 1e-12
    assert quality.recall_at_20 == 2 / 3
    assert ranking_quality([]).questions == 0


def test_path_exact_match_reads_the_answer_at_the_end_of_the_first_path() -> None:
    from grasp_agent.ranking import path_exact_match

    paths = [("HP:0011097", "OMIM:619340"), ("HP:0011097", "OMIM:614558")]
    assert path_exact_match(paths, {"OMIM:619340"}) == 1.0
    assert path_exact_match(paths, {"OMIM:614558"}) == 0.0  # only the first path counts
    assert path_exact_match([], {"OMIM:619340"}) == 0.0 and path_exact_match([()], {"x"}) == 0.0
