from pathlib import Path

import pytest

from grasp_agent.config import Settings
from grasp_agent.db.conf import java_argfile, java_command, render_apoc_conf, render_conf
from grasp_agent.db.memory import MemoryPlan
from grasp_agent.errors import ConfigError

MEMORY = MemoryPlan(heap="1024m", pagecache="512m")


def _settings(tmp_path: Path, **overrides: object) -> Settings:
    return Settings(project_root=tmp_path, **overrides)


def _conf(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#"))


def test_conf_binds_loopback_with_auth_and_our_procedures_unrestricted(tmp_path: Path) -> None:
    conf = _conf(render_conf(_settings(tmp_path, bolt_port=17001, http_port=17002), MEMORY))
    assert conf["server.default_listen_address"] == "127.0.0.1"
    assert conf["server.bolt.listen_address"] == "127.0.0.1:17001"
    assert conf["server.http.listen_address"] == "127.0.0.1:17002"
    assert conf["dbms.security.auth_enabled"] == "true"
    assert conf["dbms.security.procedures.unrestricted"] == "grasp.*,adapath.*,gds.*,apoc.*"
    assert conf["server.memory.heap.max_size"] == "1024m"
    assert conf["server.memory.pagecache.size"] == "512m"


def test_conf_separates_shared_runtime_from_instance_data(tmp_path: Path) -> None:
    conf = _conf(render_conf(_settings(tmp_path, instance="test"), MEMORY))
    assert conf["server.directories.plugins"] == str(tmp_path / ".grasp/neo4j/plugins")
    assert conf["server.directories.data"] == str(tmp_path / ".grasp/instances/test/data")


def test_java_command_has_heap_opens_and_the_launcher_classpath_order(tmp_path: Path) -> None:
    command = java_command(Path("/jdk/bin/java"), _settings(tmp_path), MEMORY)
    assert command[:3] == ["/jdk/bin/java", "-Xms1024m", "-Xmx1024m"]
    assert "--add-opens=java.base/java.nio=ALL-UNNAMED" in command
    classpath = command[command.index("-cp") + 1].split(":")
    assert [Path(entry).parent.name for entry in classpath] == ["plugins", "conf", "lib"]
    assert command[-3] == "org.neo4j.server.CommunityEntryPoint"
    assert command[-2] == f"--home-dir={tmp_path / '.grasp/instances/default'}"


def test_the_server_fetches_no_urls_unless_the_user_opts_in(tmp_path: Path) -> None:
    closed = _conf(render_conf(_settings(tmp_path), MEMORY))
    assert closed["internal.dbms.cypher_ip_blocklist"] == "0.0.0.0/0,::/0"
    assert _conf(render_apoc_conf(_settings(tmp_path)))["apoc.import.file.enabled"] == "false"
    opened = _settings(tmp_path, allow_url_loads=True)
    assert "internal.dbms.cypher_ip_blocklist" not in _conf(render_conf(opened, MEMORY))
    assert _conf(render_apoc_conf(opened))["apoc.import.file.enabled"] == "true"


@pytest.mark.parametrize(
    "update",
    [
        {"listen_address": "127.0.0.1\ndbms.security.auth_enabled=false"},
        {"instances_dir": Path("/tmp/x\rdbms.security.auth_enabled=false")},
        {"listen_address": "127.0.0.1\x1b]52;c;aGk=\x07"},
    ],
)
def test_a_value_with_a_control_character_never_reaches_neo4j_conf(tmp_path: Path, update: dict[str, object]) -> None:
    # model_copy skips the settings' validators: the writer checks again
    settings = _settings(tmp_path).model_copy(update=update)
    with pytest.raises(ConfigError, match="refusing to write neo4j.conf: the value of .* contains a control character"):
        render_conf(settings, MEMORY)


def test_java_argfile_quotes_each_argument_whole() -> None:
    assert java_argfile(["org.x.Main", "-a b", 'q"\\#']) == '"org.x.Main" "-a b" "q\\"\\\\#"\n'
    with pytest.raises(ConfigError, match="control character"):
        java_argfile(["pass\nword"])
