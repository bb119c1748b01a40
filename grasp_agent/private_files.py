"""Files only their owner may read: what grasp writes next to a database (caches, indexes) is as private as the
instance folder (0700), whatever the umask."""

from __future__ import annotations

import os
import stat
from contextlib import suppress
from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def make_private_dirs(directory: Path) -> None:
    """Creates `directory` and its missing parents as 0700 folders; existing ones are left as they are (they
    may be the user's own, such as a home folder)."""
    missing = []
    for folder in (directory, *directory.parents):
        if folder.is_dir():
            break
        missing.append(folder)
    for folder in reversed(missing):
        with suppress(FileExistsError):  # made meanwhile by another process
            folder.mkdir(mode=PRIVATE_DIR)


def tighten(path: Path) -> None:
    """Takes group and other permissions off a file (to 0600) or folder (to 0700) of ours; one we do not own,
    or cannot change, is left as it is."""
    try:
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode) or not mode & 0o077:
            return
        os.chmod(path, PRIVATE_DIR if stat.S_ISDIR(mode) else PRIVATE_FILE)
    except OSError:
        pass


def tighten_tree(directory: Path) -> None:
    """`tighten` on `directory` and everything below it (links are not followed)."""
    tighten(directory)
    for parent, folders, files in os.walk(directory):
        for name in (*folders, *files):
            tighten(Path(parent) / name)


def create_private_file(path: Path) -> None:
    """Makes sure `path` exists as a 0600 file before another library opens it with the umask's mode; an
    existing one is tightened."""
    make_private_dirs(path.parent)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, PRIVATE_FILE))
    except OSError:
        return  # the caller's own open reports the reason (and a FIFO without a reader does not block here)
    tighten(path)
