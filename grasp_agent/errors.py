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


class SchemaError(GraspError):
    """An SKB schema is malformed or does not know a type."""


class SourceFormatError(GraspError):
    """A knowledge base file is malformed; the message names the file and line."""

    def __init__(self, path: object, line: int | None, message: str) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")
        self.path = path
        self.line = line


class EmbeddingError(GraspError):
    """An embedding model could not be loaded or did not answer."""


class DataFileError(GraspError):
    """A data file (questions, queries, tables) is missing or has a malformed line; names the file and line."""

    def __init__(self, path: object, line: int | None, message: str, errors: list[str] | None = None) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")
        self.path = path
        self.line = line
        self.errors = errors or []


class QuestionError(GraspError, ValueError):
    """A question is empty, too long or not valid Unicode; nothing was run."""


def describe(error: BaseException) -> str:
    """A one-line reason for a user: the error type and its message, no traceback."""
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {message}" if message else type(error).__name__
