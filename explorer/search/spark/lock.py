"""The lock of a checkpoint folder: one run at a time writes (or resumes) a folder.

The lock is ``fcntl.flock`` on the file ``lock`` in the folder, held by the driver for the whole
run. The kernel drops a flock when its holder dies, SIGKILL included, so a killed run never leaves
a stale lock behind and nothing has to judge whether a recorded pid is still alive (which a
pid file cannot do for a driver on another host, and gets wrong when a pid is reused). The file
also holds the owner's host and pid, written after the lock is taken, so a refused run can name
who holds it.

flock is advisory and its reach is the filesystem's: on a local disk it excludes every process of
the host; on NFS (Linux emulates flock with NFS byte-range locks) it excludes other hosts only
when the server supports locking, and some shared filesystems ignore it (docs/spark.md says so).
Executors do not take it: they write a level's files for the run that holds it.
"""

from __future__ import annotations

import fcntl
import os
import socket
from pathlib import Path

from isrcheck.explorer.errors import UserError

LOCK = "lock"


class FolderLock:
    """The held lock of one checkpoint folder; ``release`` (or the process's death) frees it."""

    def __init__(self, directory: Path):
        self.path = directory / LOCK
        self.fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or refuse with the owner's host and pid (UserError, exit 2)."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise UserError(f"cannot open the lock file {self.path} of the checkpoint folder ({exc.strerror}); "
                            "--checkpoint must be a folder this user can write") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = _read_owner(fd)
            os.close(fd)
            raise UserError(
                f"the checkpoint folder {self.path.parent} is in use by another run ({owner}); wait for that run "
                "to end (or stop it), then run this command again, or choose another --checkpoint folder") from None
        except OSError as exc:
            os.close(fd)
            raise UserError(f"cannot lock the checkpoint folder {self.path.parent} ({exc.strerror}); its "
                            "filesystem does not support locks: choose a folder on one that does") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"host={socket.gethostname()} pid={os.getpid()}\n".encode(), 0)
        self.fd = fd

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            os.ftruncate(self.fd, 0)  # no owner named once the run has ended
        except OSError:
            pass
        os.close(self.fd)  # closing the descriptor drops the flock
        self.fd = None


def _read_owner(fd: int) -> str:
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    fields = dict(part.split("=", 1) for part in text.split() if "=" in part)
    if "host" in fields and "pid" in fields:
        return f"pid {fields['pid']} on host {fields['host']}"
    return "its owner is starting and has not written its host and pid yet"
