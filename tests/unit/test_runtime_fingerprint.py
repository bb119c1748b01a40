from pathlib import Path

from grasp_agent.config import Settings
from grasp_agent.db.runtime import STAMP_NAME, is_built, source_fingerprint


def _procedures(root: Path) -> Path:
    source = root / "procedures" / "plugin" / "src" / "main" / "java" / "grasp"
    source.mkdir(parents=True)
    (root / "procedures" / "pom.xml").write_text("<project/>")
    (source / "A.java").write_text("class A {}")
    return root / "procedures"


def test_fingerprint_follows_sources_but_not_build_outputs(tmp_path: Path) -> None:
    procedures = _procedures(tmp_path)
    before = source_fingerprint(procedures)
    (procedures / "plugin" / "target").mkdir()
    (procedures / "plugin" / "target" / "out.xml").write_text("<generated/>")
    assert source_fingerprint(procedures) == before
    (procedures / "plugin" / "src" / "main" / "java" / "grasp" / "A.java").write_text("class A { int x; }")
    assert source_fingerprint(procedures) != before


def test_runtime_counts_as_built_only_for_the_current_sources(tmp_path: Path) -> None:
    procedures = _procedures(tmp_path)
    settings = Settings(project_root=tmp_path)
    assert not is_built(settings)
    settings.resolved_runtime_dir.mkdir(parents=True)
    (settings.resolved_runtime_dir / STAMP_NAME).write_text(source_fingerprint(procedures))
    assert is_built(settings)
    (procedures / "pom.xml").write_text("<project><version>2</version></project>")
    assert not is_built(settings)
