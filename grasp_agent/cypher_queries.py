"""Named Cypher statements kept in cypher/*.cypher, shared by Python and the Java plugin.

A file is a sequence of blocks, each opened by a `// name: <identifier>` line; the block's statement runs
until the next header, with `//` comment lines and the final `;` dropped. Statements take every value
as a $parameter.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from grasp_agent.errors import CypherFileError
from grasp_agent.identifiers import is_identifier

_HEADER = re.compile(r"^//\s*name:\s*([a-z][a-z0-9_]*)\s*$")
_PLACEHOLDER = re.compile(r"\{\{([a-z_]+)\}\}")
_PACKAGE_DIR = Path(__file__).resolve().parent


def cypher_dir() -> Path:
    """The wheel carries cypher/ as grasp_agent/_cypher; a source checkout has it at the top level."""
    for candidate in (_PACKAGE_DIR / "_cypher", _PACKAGE_DIR.parent / "cypher"):
        if candidate.is_dir():
            return candidate
    raise CypherFileError(f"no cypher/ folder next to {_PACKAGE_DIR}: the installation is incomplete")


def parse_named_statements(text: str, source: str) -> dict[str, str]:
    """Blocks of a .cypher file by name. Pure: `source` only names the file in errors."""
    statements: dict[str, list[str]] = {}
    current: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line.strip())
        if header:
            current = header.group(1)
            if current in statements:
                raise CypherFileError(f"{source}:{number}: statement name '{current}' is used twice")
            statements[current] = []
        elif line.strip().startswith("//") or not line.strip():
            continue
        elif current is None:
            raise CypherFileError(f"{source}:{number}: Cypher before the first '// name: ...' header")
        else:
            statements[current].append(line.rstrip())
    result = {}
    for name, lines in statements.items():
        body = "\n".join(lines).strip().removesuffix(";").strip()
        if not body:
            raise CypherFileError(f"{source}: statement '{name}' is empty")
        result[name] = body
    return result


@cache
def load_statements(file_name: str) -> dict[str, str]:
    """Statements of cypher/<file_name>; cached since the files are part of the installation."""
    path = cypher_dir() / file_name
    if not path.is_file():
        raise CypherFileError(f"missing Cypher file {path}")
    return parse_named_statements(path.read_text(), str(path))


def fill_identifiers(template: str, **identifiers: str) -> str:
    """Put labels, relation types or property names into a template's {{placeholders}}.

    Cypher cannot take identifiers as parameters. Each one must match the SKB identifier alphabet (the
    schema already enforces it; this is the last line of defence) and is backtick-quoted. Values never go
    through here: they stay $parameters.
    """

    def replace(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in identifiers:
            raise CypherFileError(f"no value for identifier placeholder {{{{{key}}}}}")
        value = identifiers[key]
        if not is_identifier(value):
            raise CypherFileError(
                f"'{value}' is not a safe Cypher identifier for {{{{{key}}}}}: "
                "letters, digits and _ only, starting with a letter"
            )
        return f"`{value}`"

    return _PLACEHOLDER.sub(replace, template)
