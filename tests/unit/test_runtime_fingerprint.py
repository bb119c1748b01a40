import subprocess
import sys
from pathlib import Path

from grasp_agent.config import Settings
from grasp_agent.db.runtime import STAMP_NAME, ensure_runtime, is_built, source_fingerprint


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


def test_a_start_waits_for_a_build_under_way_instead_of_running_a_second_one(tmp_path: Path) -> None:
    procedures = _procedures(tmp_path)
    # "false" as Maven: a second build would fail this test with RuntimeBuildError
    settings = Settings(project_root=tmp_path, maven_command="false")
    runtime = settings.resolved_runtime_dir
    runtime.mkdir(parents=True)
    builder = subprocess.Popen(  # holds the build lock, then leaves a finished runtime behind
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time; d = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
            "fcntl.flock(d, fcntl.LOCK_EX); print('building', flush=True); time.sleep(0.5); "
            "open(sys.argv[2], 'w').write(sys.argv[3])",
            str(runtime / "build.lock"),
            str(runtime / STAMP_NAME),
            source_fingerprint(procedures),
        ],
        stdout=subprocess.PIPE,
    )
    assert builder.stdout is not None and builder.stdout.readline() == b"building\n"
    assert ensure_runtime(settings).built is False
    assert builder.wait(timeout=10) == 0
