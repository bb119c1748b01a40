"""Which field weights a text branch gets: trained here, else packaged for the SKB + embedder, else the zero-shot
weights (whole-document BM25 leads)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.text_branch.fields import TextBranchError
from grasp_agent.text_branch.from_database import open_weights, pretrained_weights_directory


def packaged_keys(embedder: GraspEmbedder) -> list[tuple[str, str]]:
    manifest = json.loads((pretrained_weights_directory("hpo", embedder.model_id) / "manifest.json").read_text())
    return [(name, scorer) for name, scorer in manifest["keys"]]


def test_the_packaged_hpo_weights_serve_when_none_were_trained(embedder: GraspEmbedder, tmp_path: Path) -> None:
    keys = packaged_keys(embedder)
    settings = Settings(project_root=tmp_path)  # nothing trained under tmp_path/.grasp
    model = open_weights(settings, "hpo", keys, embedder)
    query = np.asarray(embedder.embed_query("Which diseases present with epileptic spasms?"))
    weights = model.weights(query)
    assert len(set(np.round(list(weights.values()), 6))) > 1  # trained: not the uniform 1/K everywhere
    # an explicit folder means exactly what it holds: empty, so zero-shot: the whole document's BM25 leads, the
    # other keys share 1%, whatever the question
    explicit = open_weights(settings.model_copy(update={"field_weights_dir": tmp_path / "mine"}), "hpo", keys, embedder)
    zero_shot = explicit.weights(query)
    assert zero_shot[("doc", "bm25")] == pytest.approx(0.99)
    assert all(
        value == pytest.approx(0.01 / (len(keys) - 1)) for key, value in zero_shot.items() if key != ("doc", "bm25")
    )
    # another schema that happens to be called hpo gets the zero-shot weights, not an error; without a whole
    # document key they are uniform
    other = open_weights(settings, "hpo", keys[:3], embedder)
    assert other.keys == tuple(keys[:3])
    assert set(np.round(list(other.weights(query).values()), 9)) == {round(1 / 3, 9)}
    # weights trained here win, and stale ones are an error rather than silently replaced
    model.save(tmp_path / "trained")
    with pytest.raises(TextBranchError, match="was trained for"):
        open_weights(settings.model_copy(update={"field_weights_dir": tmp_path / "trained"}), "hpo", keys[:3], embedder)
