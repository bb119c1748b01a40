"""Assembles the Neo4j home (lib/, plugins/) from Maven Central with the procedures/ Maven build.

The build is skipped when a stamp file records the fingerprint of the current procedures/ sources, so a
second `grasp db start` reuses the runtime; editing the plugin or a pinned version triggers one rebuild.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grasp_agent.config import Settings
from grasp_agent.db.process import exclusive
from grasp_agent.errors import ConfigError, RuntimeBuildError

log = logging.getLogger(__name__)

STAMP_NAME = "BUILD-FINGERPRINT"
_BUILD_WAIT_S = 3600.0  # a first build downloads ~300 MB
_SOURCE_SUFFIXES = {".java", ".xml", ".properties"}
_PROGRESS_PREFIXES = ("[INFO] Building ", "[ERROR]", "[INFO] BUILD")


@dataclass(frozen=True)
class BuildOutcome:
    built: bool
    seconds: float
    runtime_dir: Path


def source_fingerprint(procedures_dir: Path) -> str:
    """Hash of every build input under procedures/ (poms, Java sources, resources), not of build outputs."""
    digest = hashlib.sha256()
    for path in sorted(procedures_dir.rglob("*")):
        if "target" in path.relative_to(procedures_dir).parts or not path.is_file():
            continue
        if path.suffix in _SOURCE_SUFFIXES:
            digest.update(str(path.relative_to(procedures_dir)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def is_built(settings: Settings) -> bool:
    stamp = settings.resolved_runtime_dir / STAMP_NAME
    procedures = settings.resolved_procedures_dir
    if not stamp.is_file():
        return False
    if not (procedures / "pom.xml").is_file():
        return True  # installed without sources: whatever was built is all there is
    return stamp.read_text().strip() == source_fingerprint(procedures)


def ensure_runtime(
    settings: Settings,
    *,
    force: bool = False,
    run_tests: bool = False,
    on_line: Callable[[str], None] | None = None,
) -> BuildOutcome:
    """Build the runtime unless an up-to-date one exists. `on_line` receives Maven's progress lines.

    `run_tests` also runs the plugin's JUnit/harness tests in the same Maven invocation (the test command).
    """
    runtime_dir = settings.resolved_runtime_dir
    if not force and is_built(settings):
        return BuildOutcome(built=False, seconds=0.0, runtime_dir=runtime_dir)
    _refuse_unbuildable(settings)
    runtime_dir.mkdir(parents=True, exist_ok=True)
    busy = f"another grasp building the Neo4j runtime in {runtime_dir}"
    # Two first `grasp db start`s at once would run two Maven builds into one folder: the second waits instead.
    with exclusive(runtime_dir / "build.lock", _BUILD_WAIT_S, busy, RuntimeBuildError):
        if not force and is_built(settings):
            return BuildOutcome(built=False, seconds=0.0, runtime_dir=runtime_dir)
        return _build(settings, run_tests, on_line)


def _refuse_unbuildable(settings: Settings) -> None:
    procedures = settings.resolved_procedures_dir
    if not (procedures / "pom.xml").is_file():
        raise ConfigError(
            f"cannot build the Neo4j runtime: no Maven project at {procedures}; run grasp from a source "
            "checkout or set GRASP_PROCEDURES_DIR to its procedures/ folder"
        )
    if shutil.which(settings.maven_command) is None:
        raise ConfigError(f"cannot build the Neo4j runtime: Maven command '{settings.maven_command}' is not on PATH")


def _build(settings: Settings, run_tests: bool, on_line: Callable[[str], None] | None) -> BuildOutcome:
    runtime_dir = settings.resolved_runtime_dir
    procedures = settings.resolved_procedures_dir
    started = time.monotonic()
    _run_maven(settings, runtime_dir, run_tests, on_line or (lambda line: None))
    (runtime_dir / STAMP_NAME).write_text(source_fingerprint(procedures) + "\n")
    return BuildOutcome(built=True, seconds=time.monotonic() - started, runtime_dir=runtime_dir)


def _run_maven(settings: Settings, runtime_dir: Path, run_tests: bool, on_line: Callable[[str], None]) -> None:
    command = [
        settings.maven_command,
        "-B",
        "--no-transfer-progress",
        "-f",
        str(settings.resolved_procedures_dir / "pom.xml"),
        f"-Dgrasp.runtime.dir={runtime_dir}",
        "install",
    ]
    if not run_tests:
        command.insert(-1, "-DskipTests")
    build_log = runtime_dir / "build.log"
    env = dict(os.environ)
    if settings.java_home is not None:
        env["JAVA_HOME"] = str(settings.java_home)
    log.info("building the Neo4j runtime: %s", " ".join(command))
    with (
        build_log.open("w") as sink,
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env) as maven,
    ):
        assert maven.stdout is not None  # guaranteed by stdout=PIPE
        for line in maven.stdout:
            sink.write(line)
            if line.startswith(_PROGRESS_PREFIXES) or "Tests run:" in line:
                on_line(line.rstrip())
    if maven.returncode != 0:
        tail = "".join(build_log.read_text().splitlines(keepends=True)[-25:])
        raise RuntimeBuildError(
            f"Maven build of the Neo4j runtime failed (exit {maven.returncode}); full log: {build_log}\n{tail}"
        )
