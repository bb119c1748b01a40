"""One root exception; every message says what failed, the value, and what is allowed."""


class GraspError(Exception):
    """Root of every error grasp raises on purpose."""


class ConfigError(GraspError):
    """A setting is missing or has a value grasp cannot use."""


class RuntimeBuildError(GraspError):
    """The Neo4j runtime (server jars, plugins) could not be assembled."""


class ServerStartError(GraspError):
    """The local Neo4j server did not come up."""


class DatabaseUnavailableError(GraspError):
    """No Neo4j server answers at the configured address."""


class AuthenticationError(GraspError):
    """Neo4j rejected the configured credentials."""


class CypherFileError(GraspError):
    """A .cypher file under cypher/ is missing or malformed."""


class SmokeCheckError(GraspError):
    """A stack smoke check (vector index, GDS, APOC) returned something unexpected."""
