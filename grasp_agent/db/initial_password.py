"""Sets an instance's generated password before its first start, without putting it on a command line.

neo4j-admin 5.26 takes the password only as an argument (`dbms set-initial-password <password>`). It reaches the
JVM through a java launcher @argfile instead: a documented JDK feature (9+) that leaves Neo4j's own code to check
and hash the password. Setting it over Bolt after a first start would leave the default neo4j/neo4j open to any
local user until the change; writing data/dbms/auth.ini ourselves would copy Neo4j's internal hash format.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from grasp_agent.config import Settings
from grasp_agent.db.conf import ADMIN_MAIN, CONTROL_CHARACTER, admin_command, java_argfile
from grasp_agent.errors import ConfigError, ServerStartError

_ADMIN_TIMEOUT_S = 120.0


def set_initial_password(java: Path, settings: Settings, password: str) -> None:
    """neo4j-admin dbms set-initial-password, its arguments in a file only the owner can read, inside the
    instance's private run/ folder, deleted as soon as neo4j-admin exits. Call it holding the instance lock."""
    if not password or CONTROL_CHARACTER.search(password):
        raise ConfigError(
            f"the password in {settings.password_file} is empty or contains a control character; delete the "
            "file to have a new one generated"
        )
    argfile = settings.instance_dir / "run" / "initial-password.args"
    argfile.unlink(missing_ok=True)  # left by a killed start; O_EXCL below then creates ours, 0600 from birth
    descriptor = os.open(argfile, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        # "--": a password may start with "-"; "@@": picocli reads "@x" as a file of arguments, even after "--"
        literal = "@" + password if password.startswith("@") else password
        handle.write(java_argfile([ADMIN_MAIN, "dbms", "set-initial-password", "--", literal]))
    env = {**os.environ, "NEO4J_HOME": str(settings.instance_dir), "NEO4J_CONF": str(settings.instance_dir / "conf")}
    try:
        result = subprocess.run(
            admin_command(java, settings, argfile),
            env=env,
            cwd=settings.instance_dir,  # where a JVM crash log would go: the private folder, not the user's cwd
            capture_output=True,
            text=True,
            check=False,
            timeout=_ADMIN_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as error:
        raise ServerStartError(
            f"neo4j-admin set-initial-password did not finish in {_ADMIN_TIMEOUT_S:.0f} s"
        ) from error
    finally:
        argfile.unlink(missing_ok=True)
    if result.returncode != 0:
        raise ServerStartError(f"neo4j-admin set-initial-password failed: {result.stdout}{result.stderr}")
