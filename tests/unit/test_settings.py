import pytest
from pydantic import ValidationError

from grasp_agent.config import Settings


def test_environment_overrides_use_the_grasp_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRASP_BOLT_PORT", "17999")
    monkeypatch.setenv("GRASP_INSTANCE", "ci")
    settings = Settings()
    assert settings.bolt_uri == "bolt://127.0.0.1:17999"
    assert settings.instance_dir.name == "ci"


def test_external_uri_switches_off_the_local_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRASP_NEO4J_URI", "neo4j+s://example.databases.neo4j.io")
    settings = Settings()
    assert settings.uses_external_server
    assert settings.bolt_uri == "neo4j+s://example.databases.neo4j.io"


def test_blank_external_uri_means_local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRASP_NEO4J_URI", "")
    assert not Settings().uses_external_server


def test_defaults_hold_whatever_the_shell_exports() -> None:
    assert Settings().bolt_uri == "bolt://127.0.0.1:7687" and Settings().planner == "auto"


@pytest.mark.parametrize("field,value", [("instance", "../etc"), ("bolt_port", 70000), ("heap_size", "lots")])
def test_bad_values_are_rejected(field: str, value: object) -> None:
    with pytest.raises(ValidationError):
        Settings(**{field: value})
