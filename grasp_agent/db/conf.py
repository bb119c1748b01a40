"""neo4j.conf and the JVM command line for a local server; pure functions of the settings."""

from __future__ import annotations

from pathlib import Path

from grasp_agent.config import Settings
from grasp_agent.db.memory import MemoryPlan

ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
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
    return "\n".join(lines) + "\n"


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
        f"--home-dir={settings.instance_dir}",
        f"--config-dir={conf_dir}",
    ]


def admin_command(java: Path, settings: Settings, *args: str) -> list[str]:
    """neo4j-admin without its shell script, e.g. ("dbms", "set-initial-password", pw)."""
    classpath = f"{settings.resolved_runtime_dir / 'lib'}/*"
    return [str(java), "-Xmx256m", "-cp", classpath, "org.neo4j.cli.AdminTool", *args]
