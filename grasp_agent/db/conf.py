"""neo4j.conf and the JVM command line for a local server; pure functions of the settings."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from grasp_agent.config import Settings
from grasp_agent.db.memory import MemoryPlan
from grasp_agent.errors import ConfigError

ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_MAIN = "org.neo4j.cli.AdminTool"
# C0, DEL and C1 (Unicode category Cc): a newline in a value would start a new neo4j.conf line.
CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f-\x9f]")
UNRESTRICTED_PROCEDURES = "grasp.*,adapath.*,gds.*,apoc.*"
# Every address: LOAD CSV and apoc.load.* then cannot make the server fetch URLs for any database user
# (APOC checks the same list). GRASP_ALLOW_URL_LOADS=true lifts it; grasp itself never loads from URLs.
BLOCK_ALL_ADDRESSES = "0.0.0.0/0,::/0"

# The flags Neo4j 5.26's own launcher passes (server.jvm.additional in its default neo4j.conf), minus
# -XX:+AlwaysPreTouch, which would touch the whole heap at start and slow every start by seconds.
# The opens matter: vector index population stalls without java.nio.
JVM_FLAGS: tuple[str, ...] = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
)


def render_conf(settings: Settings, memory: MemoryPlan) -> str:
    """The whole neo4j.conf; rewritten at every start so GRASP_* settings are the one source of truth."""
    runtime = settings.resolved_runtime_dir
    instance = settings.instance_dir
    address = settings.listen_address
    lines = [
        "# Written by `grasp db start` at every start: change GRASP_* settings instead of editing this file.",
        f"server.default_listen_address={address}",
        f"server.default_advertised_address={address}",
        f"server.bolt.listen_address={address}:{settings.bolt_port}",
        f"server.bolt.advertised_address={address}:{settings.bolt_port}",
        f"server.http.listen_address={address}:{settings.http_port}",
        f"server.http.advertised_address={address}:{settings.http_port}",
        "server.https.enabled=false",
        f"server.directories.lib={runtime / 'lib'}",
        f"server.directories.plugins={runtime / 'plugins'}",
        f"server.directories.data={instance / 'data'}",
        f"server.directories.logs={instance / 'logs'}",
        f"server.directories.run={instance / 'run'}",
        f"server.directories.import={instance / 'import'}",
        "dbms.security.auth_enabled=true",
        f"dbms.security.procedures.unrestricted={UNRESTRICTED_PROCEDURES}",
        f"server.memory.heap.initial_size={memory.heap}",
        f"server.memory.heap.max_size={memory.heap}",
        f"server.memory.pagecache.size={memory.pagecache}",
        "dbms.usage_report.enabled=false",
    ]
    if not settings.allow_url_loads:
        lines.append(f"internal.dbms.cypher_ip_blocklist={BLOCK_ALL_ADDRESSES}")  # 5.26: internal namespace
    for line in lines:
        _refuse_control_characters(line)
    return "\n".join(lines) + "\n"


def _refuse_control_characters(line: str) -> None:
    """Defence in depth behind the settings' own checks (which `model_copy` skips): one value, one line."""
    if CONTROL_CHARACTER.search(line):
        key, _, value = line.partition("=")
        raise ConfigError(
            f"refusing to write neo4j.conf: the value of {key} contains a control character (such as a newline, "
            f"which would add lines to the file): {value!r}"
        )


def render_apoc_conf(settings: Settings) -> str:
    """apoc.conf: file import/export off (APOC's defaults, stated so a copied config cannot turn them on)."""
    enabled = "true" if settings.allow_url_loads else "false"
    return (
        "# Written by `grasp db start`: GRASP_ALLOW_URL_LOADS=true allows imports from files and URLs.\n"
        f"apoc.import.file.enabled={enabled}\n"
        "apoc.export.file.enabled=false\n"
    )


def java_command(java: Path, settings: Settings, memory: MemoryPlan) -> list[str]:
    """The server command line; the classpath order (plugins, conf, lib) is the launcher's."""
    runtime = settings.resolved_runtime_dir
    conf_dir = settings.instance_dir / "conf"
    classpath = ":".join([f"{runtime / 'plugins'}/*", f"{conf_dir}/*", f"{runtime / 'lib'}/*"])
    return [
        str(java),
        f"-Xms{memory.heap}",
        f"-Xmx{memory.heap}",
        *JVM_FLAGS,
        "-cp",
        classpath,
        ENTRY_POINT,
        home_dir_argument(settings.instance_dir),
        f"--config-dir={conf_dir}",
    ]


def home_dir_argument(instance_dir: Path) -> str:
    """The argument that tells one instance's server JVM from every other process (compared whole, never as a
    prefix: `.../probe` is a prefix of `.../probe2`)."""
    return f"--home-dir={instance_dir}"


def admin_command(java: Path, settings: Settings, argfile: Path) -> list[str]:
    """neo4j-admin without its shell script. Its main class and arguments are in `argfile` (see `java_argfile`),
    which the java launcher itself reads (JDK 9+), so a password among them is in no process's command line
    (`ps`, /proc/<pid>/cmdline). -XX:-UsePerfData: no hsperfdata file holds the expanded command either."""
    classpath = f"{settings.resolved_runtime_dir / 'lib'}/*"
    return [str(java), "-XX:-UsePerfData", "-Xmx256m", "-cp", classpath, f"@{argfile}"]


def java_argfile(args: Sequence[str]) -> str:
    """The text of a java launcher @argfile passing `args` verbatim: each in double quotes, with backslash and
    double quote escaped (the launcher's rules); control characters are refused rather than escaped."""
    if any(CONTROL_CHARACTER.search(arg) for arg in args):
        raise ConfigError("an argument for the java launcher contains a control character")
    return " ".join('"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"' for arg in args) + "\n"
