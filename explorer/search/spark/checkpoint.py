"""Checkpoints of a distributed run: every completed BFS level on disk, so a killed run resumes.

Layout of a checkpoint folder::

    manifest.json          written last, atomically (temp file + rename): the run's identity,
                           the partition count, per-level statistics, the driver's bookkeeping
                           (counts, pending properties, violations found) after the last complete level,
                           and the size and checksum of every level file it needs
    manifest.prev.json     the manifest of the level before (to step back when the last is damaged)
    level-000001/          one folder per complete level, renamed into place only when whole:
        driver.bin           a level computed in the driver: its parent records and new states
        parents-00003.bin    a level computed on executors: each partition's parent records
        frontier-00003.bin   and new states, written by the executor that computed the
                             partition, each file whole then renamed
    lock                   the run holding the folder (``lock``: an flock, and its host and pid)

The files are data only (``blocks``: a magic and a count, then sorted 16-byte fingerprints,
parents' fingerprints, uint32 action indices; the new states as marshal of plain values, checked
by ``plain`` before it is read): reading a checkpoint runs no code and unpickles nothing. A model
whose states are not plain values is refused when --checkpoint is asked (``not_data``).
The manifest is validated field by field with bounds (``manifest``) before anything is sized from
it. Formats 1 (pickled dicts) and 2 (pickled states of a user's classes) are refused with a
message naming both versions.

A level folder that the manifest does not name (a run killed while writing it) is never read and
is replaced when the level is computed again. The frontier of a level is deleted once the level
two after it is complete (so the previous level can still be resumed from); parents stay, since
traces are walked back through them.

On resume, every file the run will read is checked against the size and checksum the manifest
recorded before Spark reads any of it: a truncated or altered file is named with its level, and
the message says whether the previous level can be resumed instead, rather than an executor
failing on it with pages of Java and Python traces. The checksums catch damage, not forgery (they
are not keyed): a writer of the folder can make a resume report wrong counts, never run code.

The identity (the model's origin and every option, properties, options that change the result,
the code version of Python and compiled sources) is compared field by field on resume, and a
difference is refused with the field named.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import sys
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from isrcheck.explorer.errors import UserError
from isrcheck.explorer.registry import origin_of
from isrcheck.explorer.search.spark.blocks import (
    NotPlain,
    checkpoint_states,
    encode_states,
    frontier_bytes,
    parents_bytes,
    read_checkpoint_states,
    read_frontier,
    read_parents,
)
from isrcheck.explorer.search.spark.lock import FolderLock
from isrcheck.explorer.search.spark.manifest import MAX_BYTES, ManifestError, check_names, needed_count, validate
from isrcheck.explorer.search.spark.tasks import part_name, split_fps

FORMAT = "isrcheck-spark-checkpoint/3"
_DRIVER = struct.Struct("<8sQ")  # magic, length of the parents part
MANIFEST = "manifest.json"
PREVIOUS = "manifest.prev.json"


# -- identity -----------------------------------------------------------------------------------------


def run_identity(model: Any, props: Any, *, symmetry: bool, check_deadlock: bool, stop_at_first: bool,
                 max_depth: int | None) -> dict[str, str]:
    """What must be equal for a checkpoint to be continued by this run.

    A model the registry built is named by its origin (``registry.origin_of``): the registered name, or the
    model file's path and content digest, and one field per option of its factory, defaults filled
    from the factory's signature, so an option is part of the identity whether or not the model's
    ``repr`` prints it. A model a program built is described by its ``repr`` and its attributes."""
    identity = {"model": f"{type(model).__module__}.{type(model).__qualname__}"}
    origin = origin_of(model)
    if origin is None:
        identity["model options"] = describe_model(model)
    else:
        identity["model source"] = origin.source
        identity.update((f"model option {name}", _describe(value)) for name, value in origin.options)
    identity.update({
        "properties": ", ".join(props.names) or "(none)",
        "symmetry": str(symmetry),
        "deadlock check": str(check_deadlock),
        "stop at first violation": str(stop_at_first),
        "max depth": str(max_depth),
        "code version": code_version(model, props),
    })
    return identity


def describe_model(model: Any) -> str:
    """The model's ``repr`` when its class defines one, and its public attributes (a repr may leave
    some out)."""
    attrs = getattr(model, "__dict__", {})
    text = "(" + ", ".join(f"{k}={_describe(v)}" for k, v in sorted(attrs.items()) if not k.startswith("_")) + ")"
    if type(model).__repr__ is not object.__repr__:
        return f"{model!r} {text}"
    return text


def _describe(value: Any) -> str:
    if value is None or isinstance(value, int | float | str | bytes | bool):
        return repr(value)
    origin = origin_of(value)
    if origin is not None:  # a registry-built model inside another (a wrapper adding properties)
        return f"<{origin.source} " + ", ".join(f"{k}={_describe(v)}" for k, v in origin.options) + ">"
    if isinstance(value, tuple | list | frozenset | set):
        items = [_describe(v) for v in value]
        return "[" + ", ".join(sorted(items) if isinstance(value, frozenset | set) else items) + "]"
    if is_dataclass(value) and not isinstance(value, type):
        return f"{type(value).__qualname__}(" + ", ".join(
            f"{f.name}={_describe(getattr(value, f.name))}" for f in fields(value)) + ")"
    if type(value).__repr__ is not object.__repr__ and " at 0x" not in repr(value):
        return repr(value)
    return f"<{type(value).__qualname__}>"


def code_version(model: Any, props: Any) -> str:
    """A digest of every file ``source_files`` names: a checkpoint of other code may hold other
    states under the same fingerprints."""
    digest = hashlib.sha256()
    for path in sorted(source_files(model, props)):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def source_files(model: Any, props: Any) -> set[Path]:
    """The explorer's sources, the model's, the properties' and the model's helper modules', with
    their C sources and built extensions (``SOURCE_SUFFIXES``): everything the search runs."""
    # The explorer package's folder, found from this file (explorer/search/spark/checkpoint.py), not
    # by importing the package: isrcheck.explorer's __init__ is a front door above this engine.
    files = set(_sources(Path(__file__).resolve().parents[2]))
    modules = {type(model).__module__}
    for prop in (*props.always, *props.sometimes, *props.transition):
        modules.add(getattr(prop.predicate, "__module__", None) or "")
    for name in modules:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if not path:
            continue
        path = Path(path)
        if not name.startswith("isrcheck_user_model_") and (path.parent / "__init__.py").exists():
            files.update(_sources(path.parent))
        else:
            files.add(path)
    from isrcheck.explorer.search.spark.session import helper_modules

    files.update(path for _, path in helper_modules().values())  # helpers beside a model file or script
    files.update(Path(p) for p in _loaded_extensions(modules))
    return files


# What the search runs besides Python: C sources and the extensions built from them.
SOURCE_SUFFIXES = (".py", ".c", ".h", ".so", ".pyd")


def _sources(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file()]


def _loaded_extensions(modules: set[str]) -> list[str]:
    """The compiled modules already imported from the model's and the properties' packages, wherever
    they were installed (a wheel's extension need not sit beside its sources)."""
    tops = {name.split(".")[0] for name in modules if name}
    found = []
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if path.endswith((".so", ".pyd")) and any(name == t or name.startswith(t + ".") for t in tops):
            found.append(path)
    return found


# -- the folder -------------------------------------------------------------------------------------


class Checkpoint:
    def __init__(self, directory: str | os.PathLike):
        self.dir = Path(directory).resolve()
        # {path relative to dir: [size, checksum]} of every level file on disk, saved in the manifest
        self.files: dict[str, list] = {}
        self._lock = FolderLock(self.dir)

    def level_dir(self, level: int) -> Path:
        return self.dir / f"level-{level:06d}"

    # manifest

    def exists(self) -> bool:
        return (self.dir / MANIFEST).exists()

    def read_manifest(self, name: str = MANIFEST) -> dict[str, Any]:
        path = self.dir / name
        if not path.exists():
            raise UserError(f"no checkpoint to resume in {self.dir} (it has no {MANIFEST}); run without --resume "
                            "to start a new run there")
        try:
            size = path.stat().st_size
            if size > MAX_BYTES:
                raise ValueError(f"it holds {size:,} bytes, more than the {MAX_BYTES:,} this version writes")
            manifest = json.loads(path.read_bytes())
            found = manifest.get("format") if isinstance(manifest, dict) else None
            if isinstance(found, str) and found.startswith("isrcheck-spark-checkpoint/") and found != FORMAT:
                raise UserError(
                    f"the checkpoint in {self.dir} has format {found!r}, written by another version of isrcheck; "
                    f"this version reads {FORMAT!r} only (its fingerprints and files differ). Start the run "
                    "again without --resume in another --checkpoint folder (or move this one aside), or resume "
                    "it with the version that wrote it")
            validate(manifest, FORMAT)
            if needed_count(manifest) > len(manifest["files"]):
                raise ValueError(f"it names {needed_count(manifest):,} level files to read but records only "
                                 f"{len(manifest['files']):,}")
        except ManifestError as exc:
            raise UserError(f"the checkpoint manifest {path} is corrupt or unreadable: {exc}. It was not written "
                            "by this version of isrcheck as it stands; start a new run in another --checkpoint "
                            "folder") from None
        except (ValueError, TypeError, AttributeError, OSError, RecursionError) as exc:
            raise UserError(f"the checkpoint manifest {path} is corrupt or unreadable ({_summary(exc)}); start a "
                            "new run in another --checkpoint folder (or move this one aside)") from None
        return manifest

    def check_names(self, manifest: dict[str, Any], props: Any) -> None:
        """The manifest's property names are this run's (``manifest.check_names``)."""
        try:
            check_names(manifest, {p.name for p in props.always}, {p.name for p in props.transition},
                        {p.name for p in props.sometimes})
        except ManifestError as exc:
            raise UserError(f"the checkpoint manifest {self.dir / MANIFEST} is corrupt: {exc}; start a new run in "
                            "another --checkpoint folder") from None

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        manifest = {"format": FORMAT, **manifest, "files": self.files}
        current = self.dir / MANIFEST
        if current.exists():  # kept as the previous level's manifest, itself written whole then renamed
            tmp = self.dir / f"{PREVIOUS}.tmp"
            shutil.copyfile(current, tmp)
            os.replace(tmp, self.dir / PREVIOUS)
        tmp = self.dir / f"{MANIFEST}.tmp"
        with open(tmp, "w") as fh:
            json.dump(manifest, fh, indent=1)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.dir / MANIFEST)

    def check_identity(self, manifest: dict[str, Any], identity: dict[str, str]) -> None:
        stored = manifest["identity"]
        if not isinstance(stored, dict):
            stored = {}
        differ = [k for k in (*identity, *(k for k in stored if k not in identity)) if stored.get(k) != identity.get(k)]
        if differ:
            lines = "; ".join(f"{k}: checkpoint has {stored.get(k, '(none)')!r}, this run has "
                              f"{identity.get(k, '(none)')!r}" for k in differ)
            raise UserError(
                f"cannot resume the checkpoint in {self.dir}: it is a run of other settings ({lines}). Resume with the "
                "same model, options and code, or start a new run in another --checkpoint folder")

    def lock(self, *, create: bool) -> None:
        """Hold the folder for this run (``lock.py``), creating it when ``create``; a folder another
        run holds is refused naming its host and pid. A resume of a folder that does not exist takes
        no lock: ``read_manifest`` says there is nothing to resume."""
        if not create and not self.dir.is_dir():
            return
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot create the checkpoint folder {self.dir} ({exc.strerror}); choose a "
                            "--checkpoint folder this user can write") from None
        self._lock.acquire()

    def unlock(self) -> None:
        self._lock.release()

    def prepare_new(self) -> None:
        if self.exists():
            raise UserError(f"{self.dir} already holds a checkpointed run; pass --resume to continue it, or choose "
                            "an empty --checkpoint folder")
        self.dir.mkdir(parents=True, exist_ok=True)

    # levels

    def _fresh_tmp(self, level: int) -> Path:
        tmp = self.dir / f"level-{level:06d}.tmp"
        if tmp.exists():
            shutil.rmtree(tmp)
        return tmp

    def discard_unfinished(self) -> None:
        """Remove the folders of levels that were begun and never committed (a cancelled level).
        Resume would replace them anyway; removing them now leaves only complete levels on disk."""
        for tmp in self.dir.glob("level-*.tmp"):
            shutil.rmtree(tmp, ignore_errors=True)

    def _commit(self, tmp: Path, level: int) -> None:
        final = self.level_dir(level)
        if final.exists():  # left by a run killed after the rename, before the manifest named it
            shutil.rmtree(final)
        os.rename(tmp, final)

    def write_driver_level(self, level: int, parents: dict[bytes, tuple], frontier: list[tuple[bytes, Any]]) -> None:
        from isrcheck.explorer.search.spark.store import parents_block

        try:
            states = checkpoint_states(encode_states([p for _, p in frontier]))
        except NotPlain as exc:
            raise not_data(exc) from None
        tmp = self._fresh_tmp(level)
        tmp.mkdir()
        par = parents_bytes(*parents_block(parents))
        front = frontier_bytes(b"".join(fp for fp, _ in frontier), states)
        data = _DRIVER.pack(b"ISRDRV03", len(par)) + par + front
        with open(tmp / "driver.bin", "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        self._commit(tmp, level)
        self.files[f"{self.level_dir(level).name}/driver.bin"] = [len(data), _checksum(data)]

    def begin_spark_level(self, level: int) -> str:
        """The folder where executors write a level's partitions (``level.write_part``)."""
        tmp = self._fresh_tmp(level)
        tmp.mkdir()
        return str(tmp)

    def commit_spark_level(self, level: int, partitions: int) -> None:
        tmp = self.dir / f"level-{level:06d}.tmp"
        missing = [k for i in range(partitions) for k in ("parents", "frontier")
                   if not (tmp / part_name(k, i)).exists()]
        if missing:
            raise UserError(f"level {level} was computed but {len(missing)} of its checkpoint files are missing in "
                            f"{tmp}; --checkpoint must be a folder that every executor can write at the same path "
                            "(a shared filesystem on a cluster)")
        records = {}
        for i in range(partitions):
            for kind in ("parents", "frontier"):
                data = (tmp / part_name(kind, i)).read_bytes()
                records[f"{self.level_dir(level).name}/{part_name(kind, i)}"] = [len(data), _checksum(data)]
        self._commit(tmp, level)
        self.files.update(records)

    def drop_frontier(self, level: int) -> None:
        for path in self.level_dir(level).glob("frontier-*.pkl"):
            path.unlink(missing_ok=True)
            self.files.pop(f"{path.parent.name}/{path.name}", None)

    # checking a checkpoint before Spark reads it

    def needed_files(self, manifest: dict[str, Any]) -> list[tuple[int, str]]:
        """(level, path relative to the folder) of every file a resume of ``manifest`` reads."""
        needed = []
        levels = manifest["levels"]
        for lv in levels:
            name = self.level_dir(lv["level"]).name
            if lv["where"] == "driver":
                needed.append((lv["level"], f"{name}/driver.bin"))
                continue
            kinds = ("parents", "frontier") if lv is levels[-1] else ("parents",)
            needed.extend((lv["level"], f"{name}/{part_name(kind, i)}")
                          for kind in kinds for i in range(manifest["partitions"]))
        return needed

    def first_damage(self, manifest: dict[str, Any]) -> tuple[int, str, str] | None:
        """(level, file, what is wrong) of the first needed file that is missing or differs from
        what the run wrote; None when every one is whole."""
        recorded = manifest.get("files", {})
        for level, rel in self.needed_files(manifest):
            path = self.dir / rel
            if not path.is_file():
                return level, rel, "is missing"
            if rel not in recorded:
                return level, rel, "is not recorded in the manifest"
            size, checksum = recorded[rel]
            actual = path.stat().st_size
            if actual != size:
                return level, rel, f"holds {actual:,} bytes where the run wrote {size:,} (truncated or overwritten)"
            if _file_checksum(path) != checksum:
                return level, rel, "does not hold what the run wrote (its checksum differs)"
        return None

    def verify_files(self, manifest: dict[str, Any]) -> None:
        """Refuse a checkpoint with a missing, truncated or altered level file, naming the file, its
        level and whether the previous level can be resumed instead."""
        self.files = dict(manifest.get("files", {}))
        damage = self.first_damage(manifest)
        if damage is None:
            return
        level, rel, what = damage
        last = manifest["last_level"]
        text = f"the checkpoint in {self.dir} is damaged: {rel} (level {level} of the checkpoint) {what}."
        if level == last and self._previous_is_whole(manifest):
            text += (f" Level {last - 1} before it is whole: to resume from there, run "
                     f"mv {self.dir / PREVIOUS} {self.dir / MANIFEST} and then the same command with --resume "
                     f"(level {last} is computed again); or start the run again without --resume in another "
                     "--checkpoint folder.")
        else:
            text += (f" Levels {level} to {last} cannot be resumed from it: start the run again without --resume "
                     "in another --checkpoint folder (or move this one aside).")
        raise UserError(text)

    def _previous_is_whole(self, manifest: dict[str, Any]) -> bool:
        if not (self.dir / PREVIOUS).exists():
            return False
        try:
            previous = self.read_manifest(PREVIOUS)
        except UserError:
            return False
        return (previous["last_level"] == manifest["last_level"] - 1
                and previous["identity"] == manifest["identity"] and self.first_damage(previous) is None)

    def read_driver_level(self, level: int) -> dict[str, Any]:
        path = self.level_dir(level) / "driver.bin"
        try:
            data = path.read_bytes()
            magic, size = _DRIVER.unpack_from(data)
            if magic != b"ISRDRV03":
                raise ValueError(f"not a driver level file (it starts with {magic!r})")
            fps, parents, actions = read_parents(data[_DRIVER.size:_DRIVER.size + size])
            front_fps, states = read_frontier(data[_DRIVER.size + size:])
            keys = split_fps(fps)
            table = {fp: (parents[16 * i:16 * i + 16], int.from_bytes(actions[4 * i:4 * i + 4], "little"))
                     for i, fp in enumerate(keys)}
            front = list(zip(split_fps(front_fps), read_checkpoint_states(states), strict=True))
            return {"parents": table, "frontier": front}
        except Exception as exc:
            raise self.corrupt(level, exc) from None

    def spark_level_dir(self, level: int, partitions: int, *, frontier: bool) -> str:
        """A checkpointed level's folder, after checking that every partition's files are there."""
        path = self.level_dir(level)
        kinds = ("parents", "frontier") if frontier else ("parents",)
        for kind in kinds:
            for i in range(partitions):
                if not (path / part_name(kind, i)).exists():
                    raise self.corrupt(level, FileNotFoundError(f"{path / part_name(kind, i)} is missing"))
        return str(path)

    def corrupt(self, level: int | None, exc: BaseException) -> UserError:
        """A level file that passed ``verify_files`` and still could not be read (changed since, or a
        checkpoint without checksums). ``level`` None: one of several levels read in one Spark job."""
        where = f"level {level} of the checkpoint" if level is not None else "a level of the checkpoint"
        return UserError(f"{where} in {self.dir} is unreadable ({_summary(exc)}); the checkpoint is damaged: "
                         "start the run again without --resume in another --checkpoint folder (or move this one "
                         "aside)")


def not_data(exc: BaseException) -> UserError:
    """A model whose states a checkpoint cannot hold as data (``plain``)."""
    return UserError(
        f"--checkpoint keeps states as data only (no pickles, so reading a checkpoint runs no code), and this "
        f"model's states are not plain data ({_summary(exc)}). Give the model pack(state)/unpack(packed) methods "
        "whose packed values are None, bools, numbers, strings, bytes and tuples or frozensets of them "
        "(docs/spark.md, Checkpoints), or run without --checkpoint")


def _checksum(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _file_checksum(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _summary(exc: BaseException) -> str:
    """One line of an exception: for an error raised on an executor, the Python error it carries,
    not the Java stack trace around it."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    errors = [line for line in lines if line.split(":")[0].endswith(("Error", "Exception")) and
              not line.startswith(("org.apache", "py4j", "java."))]
    return (errors[-1] if errors else lines[0] if lines else type(exc).__name__)[:300]
