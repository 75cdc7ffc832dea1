"""Files isrcheck writes (traces, regressions, HTML, graphs): checked before a run, written atomically.

A counterexample that took an hour to find must not be lost to an output path that could have
been refused in the first second, and writing it must not destroy what was there. So:

* ``check_output_path(path, what)``, called before the search starts, refuses (UserError, exit 2)
  a target that exists but is not a regular file (a directory, a device such as /dev/full, a
  FIFO), a missing parent folder (never created silently: a typo would plant folders anywhere),
  and a folder where a file cannot actually be created (read-only, /proc, no permission: tried
  with a real temporary file, because ``os.access`` says yes to root everywhere).
* ``write_atomically(path, data)`` writes a temporary file beside the target and renames it over
  the target, so a reader never sees half a file. A symlink is written through (its target is
  replaced, the link stays). The new file's mode follows the umask (0666 minus the umask), as
  ``open()`` would give, not ``mkstemp``'s private 0600.
* ``check_output_dir(path, what)``: the same checks for a folder a run writes into (a checkpoint).

Any module that writes a user-named file should call both; ``isrcheck.explorer.cli.main`` does for
``--trace-json`` and ``--regression``.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from isrcheck.explorer.errors import UserError


def _resolve(path: str | os.PathLike) -> Path:
    """The file a write to ``path`` lands in: symlinks followed (also dangling ones), so the
    write goes through the link rather than replacing it."""
    return Path(os.path.realpath(os.fspath(path)))


def _probe(directory: Path, what: str, shown: str) -> None:
    """Create and remove a temporary file in ``directory``: the only test that is right for root,
    read-only mounts and pseudo-file systems alike."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".isrcheck-probe-", dir=directory)
    except OSError as exc:
        raise UserError(
            f"cannot write {what} {shown!r}: files cannot be created in {str(directory)!r} ({exc.strerror}); "
            "choose a folder you can write to"
        ) from None
    os.close(fd)
    os.unlink(tmp)


def check_output_path(path: str | os.PathLike, what: str) -> Path:
    """Refuse, before any work is done, an output file that could not be written or whose writing
    would destroy something that is not a regular file. Returns the resolved target.

    ``what`` names the option for the message, e.g. ``"--trace-json"``."""
    shown = os.fspath(path)
    if not shown:
        raise UserError(f"{what} needs a file name")
    target = _resolve(path)
    if target.exists() or target.is_symlink():
        mode = os.stat(target).st_mode if target.exists() else 0
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a device, a pipe or a socket)"
            example = "test_cex.py" if "regression" in what else "cex.itf.json"
            raise UserError(
                f"{what} {shown!r} is {kind}; isrcheck writes a regular file there and will not replace it. "
                f"Give a file name (e.g. {example})" + (" inside that folder" if stat.S_ISDIR(mode) else "")
            )
        if not os.access(target, os.W_OK):
            raise UserError(f"{what} {shown!r} exists and is read-only; remove it or choose another name")
    parent = target.parent
    if not parent.is_dir():
        raise UserError(
            f"{what} {shown!r}: the folder {str(Path(shown).parent)!r} does not exist; create it first "
            "(isrcheck does not create folders for output files)"
        )
    _probe(parent, what, shown)
    return target


def check_output_dir(path: str | os.PathLike, what: str, *, must_exist: bool = False) -> Path:
    """Refuse a folder a run will write into: an existing non-folder, a missing parent (or a
    missing folder when ``must_exist``), a folder where nothing can be created."""
    shown = os.fspath(path)
    target = _resolve(path)
    if target.exists() and not target.is_dir():
        raise UserError(f"{what} {shown!r} is a file, not a folder; name a folder (new or empty) for it")
    if not target.exists():
        if must_exist:
            raise UserError(f"{what} {shown!r} does not exist")
        if not target.parent.is_dir():
            raise UserError(
                f"{what} {shown!r}: the folder {str(Path(shown).parent)!r} does not exist; create it first")
        _probe(target.parent, what, shown)
    else:
        _probe(target, what, shown)
    return target


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomically(path: str | os.PathLike, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file and a rename: complete or not at all.

    Follows a symlink to its target; the file's mode is 0666 minus the umask. Raises OSError
    when the write fails (a full disk, a folder removed meanwhile); the caller decides what to
    say, because the result itself must still be printed."""
    target = _resolve(path)
    if target.exists() and not target.is_file():
        raise IsADirectoryError(f"{os.fspath(path)!r} is not a regular file")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
