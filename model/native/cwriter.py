"""The C successor function written from the step descriptions (``isrcheck.model.steps.described``).

The same writer as the Python one (``isrcheck.model.steps.staging.Writer``: the generation's rules
and the options folded, paths that never emit left out), with C
syntax: the state is read once into arrays (``State`` in ``kernel_frame.h``), loops over replicas
stay loops, the log tables and bounds are the kernel's fields (so one source serves every bound
and replica count of a generation, and the compiled module is reused:
``isrcheck.model.native.compiled``), a rule over two
logs is a lookup in the pair table ``kernel.py`` hands over (``look``: read through the Python
memo once, cached in C), and a successor is a copy of the state tuple with its changed fields set.

Only what the C kernel handles is written: the classic layout without option fields (no stopped
brokers, acknowledgements or flushed offsets), and rules over two logs that are the generation's
own (``isr_rule``, ``hw_rule``, ``truncate_to``) or KIP-279's offset; anything else raises
``Unsupported`` and the configuration keeps the generated Python function.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..steps.described import action_tables, described
from ..steps.staging import Staged, Writer, const, shape, src

# Where each field sits in a replica's block and among the global fields (kernel_frame.h's layout).
REPLICA_FIELD_OFFSET = {"hw": 1, "ep": 2, "ld": 3, "isr": 4}
GLOBAL = {"ql": "k->ql_i", "qisr": "k->qi_i", "nrid": "k->nr_i"}


_SOURCES: dict[tuple, str] = {}  # staging.shape(t) -> the C source


class Unsupported(Exception):
    """The configuration needs something the C kernel does not handle: keep the Python function."""


def c(v: Any) -> str:
    s = src(v)
    return {"True": "1", "False": "0"}.get(s, s)


class CWriter(Writer):
    """``Writer`` with C syntax (see the module docstring)."""

    CLOSE = "}"
    COMMENT = "//"

    def __init__(self, t: Any) -> None:
        super().__init__(t)
        if max(self.dead_i, self.acked_i, self.flushed_i) >= 0:
            raise Unsupported("option fields")
        self.ql, self.qisr, self.nrid, self.nreq = Staged("st.ql"), Staged("st.qi"), Staged("st.nr"), \
            Staged("next_epoch")
        # Bounds are the kernel's fields: the source does not depend on them.
        self.log_size, self.max_records, self.max_leader_epoch = \
            Staged("k->log_size"), Staged("k->max_records"), Staged("k->max_epoch")
        gen = self.gen
        self.caught = {gen.isr_rule: ("isr_caught", "isr_mult"), gen.hw_rule: ("hw_caught", "hw_mult")}
        self.offsets = {"kip279": "first_mismatch"}
        if gen.truncate_to:
            self.offsets[gen.truncate_to] = "truncate_to"

    @staticmethod
    def _if(cond: str) -> str:
        return f"if ({cond}) {{"

    # -- control ---------------------------------------------------------------------------------

    def replicas(self, name: str) -> Iterator[Any]:
        """A loop in C (not unrolled as in Python): the source does not depend on the number of
        replicas, so one compiled module serves every replica count."""
        self._no_updates_before(name)
        at, dead = list(self.at), self.dead
        r = self._name(name)
        self._open(f"for (long {r} = 0; {r} < k->n; {r}++) {{")
        self.updates = []
        yield Staged(r)
        self.at, self.dead = at, dead

    def every(self, fn: Any) -> Any:
        f, ok = self._name("f"), self._name("all")
        cond = fn(Staged(f))
        if const(cond):
            return bool(cond)
        self._line(f"int {ok} = 1;")
        self._line(f"for (long {f} = 0; {f} < k->n && {ok}; {f}++) {ok} = {c(cond)} ? 1 : 0;")
        return Staged(ok)

    def requests(self, name: str) -> Iterator[tuple[Staged, Staged, Staged]]:
        self.uses_requests = True
        at, dead = list(self.at), self.dead
        i, e, ld, isr = self._name("i"), self._name("epoch"), self._name(name), self._name("isr")
        self._open(f"for (int {i} = 0; {i} < nm.count; {i}++) {{")
        self._line(f"long {e} = nm.epoch[{i}], {ld} = nm.leader[{i}], {isr} = nm.isr[{i}];")
        self._open(f"if ({e} > lowest) {{")
        yield Staged(e), Staged(ld), Staged(isr)
        self.at, self.dead = at, dead

    def replica_named(self, name: str, v: Any) -> Iterator[Any]:
        """The replica ``v`` names, if any, as a variable: in C an array index costs nothing, and
        one test beats the unrolled chain of comparisons the Python function uses."""
        at, dead = list(self.at), self.dead
        local = self._name(name)
        self._line(f"long {local} = {c(v)};")
        self.require(Staged(f"({local} >= 0)"))
        yield Staged(local)
        self.at, self.dead = at, dead

    def let(self, v: Any) -> Any:
        if const(v):
            return v
        name = self._name("v")
        self._line(f"long {name} = {c(v)};")
        return Staged(name)

    # -- logic -------------------------------------------------------------------------------------

    AND, OR = " && ", " || "  # Writer.and_/or_ fold constants and join the rest in C's spelling
    _text = staticmethod(c)

    def not_(self, x: Any) -> Any:
        return (not x) if const(x) else Staged(f"(!{c(x)})")

    def ite(self, cond: Any, a: Any, b: Any) -> Any:
        if const(cond):
            return a if cond else b
        return Staged(f"({c(cond)} ? {c(a)} : {c(b)})")

    set_ite = ite

    # -- the state ----------------------------------------------------------------------------------

    def hw(self, r: Any) -> Staged: return Staged(f"st.hw[{c(r)}]")  # noqa: E704
    def ep(self, r: Any) -> Staged: return Staged(f"st.ep[{c(r)}]")  # noqa: E704
    def ld(self, r: Any) -> Staged: return Staged(f"st.ld[{c(r)}]")  # noqa: E704
    def isr(self, r: Any) -> Staged: return Staged(f"st.isr[{c(r)}]")  # noqa: E704
    def _log(self, r: Any) -> str: return f"st.log[{c(r)}]"  # noqa: E704

    def running(self, r: Any) -> Any:
        return True

    def log_end(self, r: Any) -> Staged:
        return Staged(f"(long)k->loglen[{self._log(r)}]")

    def rec_epoch(self, r: Any, k: Any) -> Staged:
        return Staged(f"(long)k->epoch_at[{self._log(r)} * k->log_size + {c(k)}]")

    def rec_id(self, r: Any, k: Any) -> Staged:
        return Staged(f"((long)k->records[{self._log(r)} * k->log_size + {c(k)}] / k->epochs)")

    def caught_up(self, rule: str, lead: Any, f: Any, end: Any) -> Staged:
        if rule not in self.caught:
            raise Unsupported(f"caught-up rule {rule}")
        table, mult = self.caught[rule]
        key = f"{self._log(lead)} * k->{mult} + {self._log(f)}"
        return Staged(f"(look(&k->{table}, {key}, &err) >> {c(end)} & 1)")

    def truncation_offset(self, rule: str, lead: Any, r: Any) -> Staged:
        if rule not in self.offsets:
            raise Unsupported(f"truncation rule {rule}")
        raw = self._name("off")
        self._line(f"long {raw} = offset_in_range(k, look(&k->{self.offsets[rule]}, "
                   f"{self._log(lead)} * k->size + {self._log(r)}, &err), &err);")
        return Staged(f"({raw} == -1 ? {c(self.hw(r))} : {raw})")  # -1: the follower's high watermark

    # -- replica sets (bit masks) --------------------------------------------------------------------

    def has(self, s: Any, r: Any) -> Staged:
        return Staged(f"({c(s)} >> {c(r)} & 1)")

    def with_(self, s: Any, r: Any) -> Staged:
        return Staged(f"({c(s)} | (1L << {c(r)}))")

    def without(self, s: Any, r: Any) -> Staged:
        return Staged(f"({c(s)} & ~(1L << {c(r)}))")

    def only(self, s: Any, r: Any) -> Staged:
        return Staged(f"({c(s)} == (1L << {c(r)}))")

    def empty(self, s: Any) -> Staged:
        return Staged(f"(!{c(s)})")

    def at_least(self, s: Any, m: int) -> Any:
        return True if m <= 0 else Staged(f"(__builtin_popcountl({c(s)}) >= {m})")

    # -- the next state ----------------------------------------------------------------------------

    def _set(self, at: str, v: Any) -> None:
        self.updates.append(f"SET(nxt, {at}, {c(v)});")

    def put(self, field: str, r: Any, v: Any) -> None:
        if field in REPLICA_FIELD_OFFSET:
            self._set(f"FPR * {c(r)} + {REPLICA_FIELD_OFFSET[field]}", v)
        else:
            self._set(GLOBAL[field], v)

    def send_request(self, lead: Any, isr: Any) -> None:
        code = f"((({c(lead)}) + 1) << k->n) | ({c(isr)})"
        self.updates.append(f"if (append_request(k, &st, nxt, {code})) {{ Py_DECREF(nxt); goto fail; }}")

    def append(self, r: Any, rid: Any, epoch: Any) -> None:
        log = self._log(r)
        code = f"{log} + ({c(rid)} * k->epochs + {c(epoch)} + 1) * k->pow_[k->loglen[{log}]]"
        self._set(f"FPR * {c(r)}", Staged(code))

    def copy_next(self, f: Any, lead: Any) -> None:
        log, end = self._log(f), f"k->loglen[{self._log(f)}]"
        self._set(f"FPR * {c(f)}",
                  Staged(f"{log} + (k->records[{self._log(lead)} * k->log_size + {end}] + 1) * k->pow_[{end}]"))

    def truncate(self, r: Any, off: Any) -> None:
        self._set(f"FPR * {c(r)}", Staged(f"{self._log(r)} % k->pow_[{c(off)}]"))
        self.put("hw", r, self.min(off, self.hw(r)))

    def ack(self, rid: Any, when: Any = True) -> None:
        raise Unsupported("acknowledgements")

    def emit(self, *idx: Any, acts: str | None = None) -> None:
        if self.dead:
            return
        if acts is not None:  # only the options' steps name another table, and they add fields
            raise Unsupported(f"the action table {acts}")
        table = action_tables().index(self.acts_table)
        setters = " ".join(f"idx[{i}] = {c(v)};" for i, v in enumerate(idx))
        lines = ["if (err) goto fail;", "NEW(nxt);", *self.updates, setters,
                 f'TRY(emit(out, act(PyTuple_GET_ITEM(k->acts, {table}), {len(idx)}, idx, "{self.acts_table}"), nxt));']
        for line in lines:
            self._line(line)
        for block in self.at:
            block.emits = True
        self.at[-1].body[-1].emits = True
        self.updates = []


def successors_c(t: Any) -> str:
    """The C source of the generation's ``Next`` for tables ``t``: ``successors`` and the module
    around it, to be compiled with ``kernel_frame.h`` (``isrcheck.model.native.compiled``)."""
    key = shape(t)
    if key in _SOURCES:
        return _SOURCES[key]
    w = CWriter(t)
    for name in t.generation.next:
        d = described(t.generation, name)
        w.section(name, d.acts, d.fn)
    head = ["static PyObject *successors(Kernel *k, PyObject *s) {",
            "    State st = {0};",
            "    if (read_state(k, s, &st)) return NULL;",
            "    const long next_epoch = (long)PyTuple_GET_SIZE(st.reqs);",
            "    int err = 0;",
            "    long idx[4];",
            "    PyObject *nxt;",
            "    Named nm;",
            "    nm.count = 0;"]
    if w.uses_requests:
        head += ["    long lowest = st.ep[0];",
                 "    for (int r = 1; r < k->n; r++) if (st.ep[r] < lowest) lowest = st.ep[r];",
                 "    if (lowest < next_epoch - 1 && read_named(k, &st, &nm)) return NULL;"]
    head += ["    PyObject *out = PyList_New(0);", "    if (!out) return NULL;"]
    tail = ["    if (err) goto fail;", "    return out;", "fail:", "    Py_DECREF(out);", "    return NULL;", "}"]
    source = _SOURCES[key] = "\n".join([*head, *w.lines, *tail, ""])
    return source
