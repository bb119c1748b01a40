"""The bundled plugin jars: relocation left no reference to a class that is not in the jar."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from grasp_agent.config import Settings

pytestmark = pytest.mark.neo4j


def _dangling_relocated_references(jar: Path, prefix: str) -> dict[str, str]:
    """Class names under the shade prefix that some class mentions but the jar does not contain."""
    with zipfile.ZipFile(jar) as archive:
        names = set(archive.namelist())
        packages = {name.rsplit("/", 1)[0] for name in names if "/" in name}
        pattern = re.compile(re.escape(prefix.encode()) + rb"[A-Za-z0-9_/$]+")
        dangling: dict[str, str] = {}
        for name in names:
            if not name.endswith(".class"):
                continue
            for match in pattern.findall(archive.read(name)):
                reference = match.decode()
                reference = reference.rstrip("/")
                if reference.endswith("/package") or reference in packages or f"{reference}.class" in names:
                    continue
                dangling.setdefault(reference, name)
    return dangling


# Optional service bindings that the libraries look up and tolerate being absent (slf4j 1.x static
# binders; asm's debug tracer); annotation-only types (immutables) are never loaded at run time.
TOLERATED = re.compile(r"/org/slf4j/impl/Static\w+Binder$|/org/objectweb/asm/util/|/org/immutables/")


@pytest.mark.parametrize(
    "jar_glob,prefix", [("apoc-*-core.jar", "dev/grasp/shaded/apoc/"), ("open-gds-*.jar", "dev/grasp/shaded/gds/")]
)
def test_no_relocated_reference_dangles(
    running_server: object, test_settings: Settings, jar_glob: str, prefix: str
) -> None:
    jars = list((test_settings.resolved_runtime_dir / "plugins").glob(jar_glob))
    assert len(jars) == 1, f"expected one {jar_glob} in plugins/, found {jars}"
    dangling = {
        ref: src for ref, src in _dangling_relocated_references(jars[0], prefix).items() if not TOLERATED.search(ref)
    }
    assert dangling == {}


def test_plugins_folder_holds_exactly_the_pinned_plugins(running_server: object, test_settings: Settings) -> None:
    plugins = sorted(path.name for path in (test_settings.resolved_runtime_dir / "plugins").glob("*.jar"))
    assert plugins == ["apoc-5.26.18-core.jar", "grasp-procedures-0.1.0.jar", "open-gds-2.13.9.jar"]
