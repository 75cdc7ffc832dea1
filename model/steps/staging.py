"""The Python successor function generated from the step descriptions (``isrcheck.model.steps.described``).

Each described step is run once per configuration with staged values (``Staged``: the source of
an expression, not its value) and writes its section of one function as straight-line source:
loops over replicas are unrolled (a replica's fields are constant indices of the state tuple),
the generation's rules and the options are folded (a guard that is constant disappears, a path
that is constantly disabled writes nothing), rules over two logs become lookups in their memo
tables (``isrcheck.model.steps.rules``, ``isrcheck.model.steps.truncation``), and the action
objects of a fully constant emission are bound as constants. The source is compiled once per
configuration (``successors_source`` shows it). Only the LeaderAndIsr requests are a real loop:
their number changes from state to state.

What is read once per state for every section: the requests and their count, the lowest leader
epoch of any replica and the requests that name a leader when some replica is behind the newest
one (a request every replica has seen enables nothing: each step that adopts a request requires
its epoch above the acting replica's).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..encoding.state import EPOCH, FIELDS_PER_REPLICA, HW, ISR, LEADER
from .controller import NamedRequests
from .described import FORMS, OPTION_STEPS, described, option_step_names, step_options
from .rules import caught_up_table
from .truncation import TRUNCATE_TO, offset_table

REPLICA_FIELD = {"hw": HW, "ep": EPOCH, "ld": LEADER, "isr": ISR}


class Staged:
    """An expression of the generated function, as source. Python control flow on it is a bug in
    a description (it would be decided once at build time), so it refuses ``bool()``."""

    __slots__ = ("src",)
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, src: str) -> None:
        self.src = src

    def __bool__(self) -> bool:
        raise TypeError(f"a step description used the state value {self.src} in Python control flow: "
                        "use x.require, x.and_, x.or_, x.ite")

    def _op(self, op: str, other: Any, swap: bool = False) -> Any:
        a, b = (other, self) if swap else (self, other)
        if op in ("==", "!=") and isinstance(other, Staged) and other.src == self.src:
            return op == "=="  # the same pure expression on both sides
        return Staged(f"({src(a)} {op} {src(b)})")

    def __add__(self, o: Any) -> Staged: return self._op("+", o)  # noqa: E704
    def __radd__(self, o: Any) -> Staged: return self._op("+", o, True)  # noqa: E704
    def __sub__(self, o: Any) -> Staged: return self._op("-", o)  # noqa: E704
    def __rsub__(self, o: Any) -> Staged: return self._op("-", o, True)  # noqa: E704
    def __lt__(self, o: Any) -> Staged: return self._op("<", o)  # noqa: E704
    def __le__(self, o: Any) -> Staged: return self._op("<=", o)  # noqa: E704
    def __gt__(self, o: Any) -> Staged: return self._op(">", o)  # noqa: E704
    def __ge__(self, o: Any) -> Staged: return self._op(">=", o)  # noqa: E704
    def __eq__(self, o: Any) -> Any: return self._op("==", o)  # type: ignore[override]  # noqa: E704
    def __ne__(self, o: Any) -> Any: return self._op("!=", o)  # type: ignore[override]  # noqa: E704


def src(v: Any) -> str:
    if isinstance(v, Staged):
        return v.src
    if isinstance(v, tuple):
        return "(" + "".join(f"{src(e)}, " for e in v) + ")"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return f"({v})" if v < 0 else str(v)
    raise TypeError(f"cannot stage {v!r}")


def const(v: Any) -> bool:
    return not isinstance(v, Staged)


class Block:
    """A line of the generated source and, for an ``if`` or a ``for``, the block under it. A block
    none of whose paths emits a successor is left out (``render``)."""

    __slots__ = ("text", "body", "emits")

    def __init__(self, text: str, body: list | None = None) -> None:
        self.text, self.body, self.emits = text, body, False

    def render(self, depth: int, out: list[str], close: str) -> None:
        out.append("    " * depth + self.text)
        if self.body is not None:
            render_body(self.body, depth + 1, out, close)
            if close:
                out.append("    " * depth + close)


def render_body(body: list[Block], depth: int, out: list[str], close: str = "") -> None:
    last = max((i for i, b in enumerate(body) if b.emits), default=-1)
    for b in body[:last + 1]:
        if b.body is None or b.emits:
            b.render(depth, out, close)


class Writer:
    """The operations of ``isrcheck.model.steps.described`` as source generation (see the module
    docstring); one per configuration, ``section`` once per step. What is Python syntax here is
    overridden by the C writer (``isrcheck.model.native.cwriter``)."""

    CLOSE = ""  # what ends a block
    COMMENT = "#"

    def __init__(self, t: Any) -> None:
        lay, fields, opts, cfg = t.layout, t.fields, t.options, t.config
        self.t = t
        self.n = lay.n
        self.gen = t.generation
        self.opt = step_options(opts, t.consumers, t.az_of)
        self.log_size, self.max_records, self.max_leader_epoch = cfg.log_size, cfg.max_records, cfg.max_leader_epoch
        self.rq_i, self.dead_i, self.acked_i, self.flushed_i = lay.requests_i, fields.dead, fields.acked, fields.flushed
        self.served_i, self.served_conflict = fields.served, fields.served_conflict
        self.ql = Staged(f"s[{lay.q_leader}]")
        self.qisr = Staged(f"s[{lay.q_isr}]")
        self.nrid = Staged(f"s[{lay.next_record_id}]")
        self.nreq = Staged("next_epoch")
        self._globals = {"ql": lay.q_leader, "qisr": lay.q_isr, "nrid": lay.next_record_id, "stopped": fields.dead,
                         "crashes": fields.crashes, "az_failures": fields.az_failed}
        # The options' fields (isrcheck.model.encoding.fields), where present.
        self.stopped, self.crashes, self.az_failures = (
            Staged(f"s[{i}]") if i >= 0 else 0 for i in (fields.dead, fields.crashes, fields.az_failed))
        self.namespace = self.base_namespace(t)
        self._tables: dict[tuple[str, str], str] = {}
        # How each name the sections added to the namespace is found in tables ``t`` (so a cached
        # source serves another model of the same shape: ``namespace_for``).
        self.recipe: list[tuple[str, str, tuple]] = []
        self.lines: list[str] = []
        self.uses_requests = False
        self._count = 0
        # The section being written: the open blocks, whether the path is constantly disabled, the
        # next state's updates so far, the action table.
        self.at: list[Block] = []
        self.dead, self.updates, self.acts_table = False, [], ""

    @staticmethod
    def base_namespace(t: Any) -> dict[str, Any]:
        logs, n = t.logs, t.layout.n
        return {"length": logs.length, "pow_": logs.pow, "records": logs.records, "epoch_at": logs.epoch_at,
                "last_epoch": logs.last_epoch,
                "popcount": tuple(bin(m).count("1") for m in range(1 << n)), "named": NamedRequests(n)}

    # -- writing source ----------------------------------------------------------------------

    def _name(self, stem: str) -> str:
        self._count += 1
        return f"{stem}{self._count}"

    def _line(self, text: str) -> None:
        if not self.dead:
            self.at[-1].body.append(Block(text))

    def _open(self, text: str) -> None:
        if not self.dead:
            block = Block(text, [])
            self.at[-1].body.append(block)
            self.at.append(block)

    def section(self, name: str, acts: str, fn: Callable[[Any], None]) -> None:
        """The source of one step (``fn``, emitting actions of the table ``t.actions.<acts>``)."""
        root = Block(self._if("1") + f"  {self.COMMENT} -- {name}", [])
        self.at, self.dead, self.updates, self.acts_table = [root], False, [], acts
        fn(self)
        render_body([root], 1, self.lines, self.CLOSE)

    @staticmethod
    def _if(cond: str) -> str:
        return f"if {cond}:"

    # -- control ---------------------------------------------------------------------------

    def _no_updates_before(self, name: str) -> None:
        # Each branch starts from no updates (z3's reader keeps those made before a split, this
        # writer would drop them): a description makes its updates inside the split, and one that
        # does not is refused here rather than read two ways.
        if self.updates:
            raise AssertionError(f"updates made before the split {name!r}: make them inside it")

    def replicas(self, name: str) -> Iterator[int]:
        self._no_updates_before(name)
        at, dead = list(self.at), self.dead
        for r in range(self.n):
            self.at, self.dead, self.updates = list(at), dead, []
            yield r
        self.at, self.dead = at, dead

    def requests(self, name: str) -> Iterator[tuple[Staged, Staged, Staged]]:
        self.uses_requests = True
        at, dead = list(self.at), self.dead
        e, ld, isr = self._name("epoch"), self._name(name), self._name("isr")
        self._open(f"for {e}, {ld}, {isr} in requests:")
        self._open(f"if {e} > lowest:")
        yield Staged(e), Staged(ld), Staged(isr)
        self.at, self.dead = at, dead

    def cases(self, name: str, values: Any) -> Iterator[Any]:
        """Each build-time value, in order, each with its own guards (a branch of the source)."""
        self._no_updates_before(name)
        at, dead = list(self.at), self.dead
        for value in values:
            self.at, self.dead, self.updates = list(at), dead, []
            yield value
        self.at, self.dead = at, dead

    def offsets(self, name: str, hi: Any) -> Iterator[int]:
        """Each offset of the log below ``hi``: one build-time case per offset, guarded."""
        for off in self.cases(name, tuple(range(self.log_size))):
            self.require(off < hi)
            yield off

    def require(self, *conds: Any) -> None:
        for c in conds:
            if self.dead or c is True:
                continue
            if const(c):
                if not c:
                    self.dead = True
                continue
            self._open(self._if(src(c)))

    def let(self, v: Any) -> Any:
        if const(v):
            return v
        name = self._name("v")
        self._line(f"{name} = {src(v)}")
        return Staged(name)

    def replica_named(self, name: str, v: Any) -> Iterator[int]:
        """The replica ``v`` names, if any: unrolled, so its fields are constant indices too."""
        self._no_updates_before(name)
        at, dead = list(self.at), self.dead
        for r in range(self.n):
            self.at, self.dead, self.updates = list(at), dead, []
            self.require(v == r)
            yield r
        self.at, self.dead = at, dead

    # -- logic -----------------------------------------------------------------------------

    # The target language's spelling of a conjunction and a disjunction, and of a value in source
    # (CWriter: C's), so that the constant folding below is written once for both languages.
    AND, OR = " and ", " or "
    _text = staticmethod(src)

    def and_(self, *xs: Any) -> Any:
        if any(const(x) and not x for x in xs):
            return False
        rest = [x for x in xs if not const(x)]
        if not rest:
            return True
        return rest[0] if len(rest) == 1 else Staged("(" + self.AND.join(self._text(x) for x in rest) + ")")

    def or_(self, *xs: Any) -> Any:
        if any(const(x) and x for x in xs):
            return True
        rest = [x for x in xs if not const(x)]
        if not rest:
            return False
        return rest[0] if len(rest) == 1 else Staged("(" + self.OR.join(self._text(x) for x in rest) + ")")

    def not_(self, x: Any) -> Any:
        return (not x) if const(x) else Staged(f"(not {src(x)})")

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        if const(c):
            return a if c else b
        return Staged(f"({src(a)} if {src(c)} else {src(b)})")

    set_ite = ite

    def min(self, a: Any, b: Any) -> Any:
        return min(a, b) if const(a) and const(b) else self.ite(a < b, a, b)

    def every(self, fn: Callable[[int], Any]) -> Any:
        return self.and_(*(fn(r) for r in range(self.n)))

    # -- the state ---------------------------------------------------------------------------

    @staticmethod
    def _at(r: Any, offset: int) -> str:
        return str(FIELDS_PER_REPLICA * r + offset) if const(r) else f"{src(r)} * {FIELDS_PER_REPLICA} + {offset}"

    def hw(self, r: Any) -> Staged: return Staged(f"s[{self._at(r, HW)}]")  # noqa: E704
    def ep(self, r: Any) -> Staged: return Staged(f"s[{self._at(r, EPOCH)}]")  # noqa: E704
    def ld(self, r: Any) -> Staged: return Staged(f"s[{self._at(r, LEADER)}]")  # noqa: E704
    def isr(self, r: Any) -> Staged: return Staged(f"s[{self._at(r, ISR)}]")  # noqa: E704
    def _log(self, r: Any) -> str: return f"s[{self._at(r, 0)}]"  # noqa: E704

    def running(self, r: Any) -> Any:
        if self.dead_i < 0:
            return True
        return Staged(f"(not s[{self.dead_i}] & {1 << r})" if const(r) else f"(not s[{self.dead_i}] >> {src(r)} & 1)")

    def log_end(self, r: Any) -> Staged:
        return Staged(f"length[{self._log(r)}]")

    def last_epoch(self, r: Any) -> Staged:
        return Staged(f"last_epoch[{self._log(r)}]")

    def flushed(self, r: Any) -> Staged:
        return Staged(f"s[{self.flushed_i + r}]")

    def served(self, off: int) -> Staged:
        return Staged(f"s[{self.served_i + off}]")

    def rec_epoch(self, r: Any, k: Any) -> Staged:
        return Staged(f"epoch_at[{self._log(r)}][{src(k)}]")

    def rec_id(self, r: Any, k: Any) -> Staged:
        return Staged(f"(records[{self._log(r)}][{src(k)}] // {self.t.logs.epochs})")

    def _table(self, kind: str, rule: str) -> str:
        key = (kind, rule)
        if key not in self._tables:
            name = self._tables[key] = f"{kind}{len(self._tables)}"
            self._add(name, kind, (rule,))
        return self._tables[key]

    def _add(self, name: str, kind: str, args: tuple) -> None:
        self.recipe.append((name, kind, args))
        self.namespace.update(bind(self.t, name, kind, args))

    def caught_up(self, rule: str, lead: Any, f: Any, end: Any) -> Staged:
        name = self._table("caught", rule)
        mult = self.namespace[name + "_mult"]
        key = self._log(f) if mult == 0 else f"{self._log(lead)} * {mult} + {self._log(f)}"
        return Staged(f"({name}[{key}] >> {src(end)} & 1)")

    def truncation_offset(self, rule: str, lead: Any, r: Any) -> Staged:
        name = self._table("offset", rule)
        raw = self._name("off")
        self._line(f"{raw} = {name}[{self._log(lead)} * {self.t.logs.size} + {self._log(r)}]")
        # FOLLOWER_HW (-1): the rule truncates to the follower's high watermark
        return Staged(f"({src(self.hw(r))} if {raw} == -1 else {raw})")

    # -- replica sets (bit masks) ------------------------------------------------------------

    def has(self, s: Any, r: Any) -> Staged:
        return Staged(f"({src(s)} & {1 << r})" if const(r) else f"({src(s)} >> {src(r)} & 1)")

    def with_(self, s: Any, r: Any) -> Staged:
        return Staged(f"({src(s)} | {1 << r})" if const(r) else f"({src(s)} | 1 << {src(r)})")

    def without(self, s: Any, r: Any) -> Staged:
        return Staged(f"({src(s)} & {~(1 << r)})" if const(r) else f"({src(s)} & ~(1 << {src(r)}))")

    def only(self, s: Any, r: Any) -> Staged:
        return Staged(f"({src(s)} == {1 << r})" if const(r) else f"({src(s)} == 1 << {src(r)})")

    def empty(self, s: Any) -> Staged:
        return Staged(f"(not {src(s)})")

    def single(self, r: Any) -> Any:
        return 1 << r if const(r) else Staged(f"(1 << {src(r)})")

    def subset(self, a: Any, b: Any) -> Staged:
        return Staged(f"(not {src(a)} & ~{src(b)})")

    def at_least(self, s: Any, m: int) -> Any:
        return True if m <= 0 else Staged(f"(popcount[{src(s)}] >= {m})")

    # -- the next state ------------------------------------------------------------------------

    def put(self, field: str, r: Any, v: Any) -> None:
        if field in REPLICA_FIELD:
            at = self._at(r, REPLICA_FIELD[field])
        elif field == "flushed":
            at = str(self.flushed_i + r)
        elif field == "served":
            at = str(self.served_i + r)
        elif field == "requests":
            at = str(self.rq_i)
        else:
            at = str(self._globals[field])
        self.updates.append(f"nxt[{at}] = {src(v)}")

    def send_request(self, lead: Any, isr: Any) -> None:
        code = src((lead + 1) << self.n) if const(lead) else f"(({src(lead)} + 1) << {self.n})"
        self.updates.append(f"nxt[{self.rq_i}] = reqs + (({code} | {src(isr)}),)")

    def request(self, lead: Any, isr: Any, when: Any = True) -> Any:
        """The requests after the controller sends one (if ``when``), as a value: ``let`` it to
        compute it once for several successors (``put("requests", None, v)``)."""
        if const(when) and not when:
            return Staged("reqs")
        code = src((lead + 1) << self.n) if const(lead) else f"(({src(lead)} + 1) << {self.n})"
        sent = f"reqs + (({code} | {src(isr)}),)"
        return Staged(f"({sent})" if when is True else f"(({sent}) if {src(when)} else reqs)")

    def append(self, r: Any, rid: Any, epoch: Any) -> None:
        log = self._log(r)
        self.updates.append(f"nxt[{self._at(r, 0)}] = {log} + ({src(rid)} * {self.t.logs.epochs} + {src(epoch)} + 1)"
                            f" * pow_[length[{log}]]")

    def copy_next(self, f: Any, lead: Any) -> None:
        log = self._log(f)
        self.updates.append(f"nxt[{self._at(f, 0)}] = {log} + (records[{self._log(lead)}][length[{log}]] + 1)"
                            f" * pow_[length[{log}]]")

    def truncate(self, r: Any, off: Any) -> None:
        self.updates.append(f"nxt[{self._at(r, 0)}] = {self._log(r)} % pow_[{src(off)}]")
        self.put("hw", r, self.min(off, self.hw(r)))
        # The recovery point never exceeds the log end (truncating to it leaves it).
        if self.flushed_i >= 0 and src(off) != src(self.flushed(r)):
            at = self.flushed_i + r if const(r) else f"{self.flushed_i} + {src(r)}"
            self.updates.append(f"if nxt[{at}] > {src(off)}: nxt[{at}] = {src(off)}")

    def ack(self, rid: Any, when: Any = True) -> None:
        if const(when) and not when:
            return
        stmt = f"nxt[{self.acked_i}] |= 1 << {src(rid)}"
        self.updates.append(stmt if when is True else f"if {src(when)}: {stmt}")

    def emit(self, *idx: Any, acts: str | None = None) -> None:
        if self.dead:
            return
        acts = acts or self.acts_table
        keyed = isinstance(getattr(self.t.actions, acts), dict)  # made on first use, by key
        if all(const(i) for i in idx) and not keyed:
            action = self._name("act")
            self._add(action, "act", (acts, tuple(idx)))
        else:
            table = f"acts_{acts}"
            self._add(table, "acts", (acts,))
            action = table + (f"[{src(tuple(idx))}]" if keyed else "".join(f"[{src(i)}]" for i in idx))
        for line in ("nxt = list(s)", *self.updates, f"out.append(({action}, tuple(nxt)))"):
            self._line(line)
        for block in self.at:
            block.emits = True
        self.at[-1].body[-1].emits = True
        self.updates = []


def bind(t: Any, name: str, kind: str, args: tuple) -> dict[str, Any]:
    """What ``name`` of a generated function's namespace is in tables ``t`` (``Writer.recipe``)."""
    if kind == "caught":
        table, mult = rule_table(t, "caught", args[0])
        return {name: table, name + "_mult": mult}
    if kind == "offset":
        return {name: rule_table(t, "offset", args[0])}
    acts = getattr(t.actions, args[0])
    if kind == "acts":
        return {name: acts}
    for i in args[1]:
        acts = acts[i]
    return {name: acts}


def rule_table(t: Any, kind: str, rule: str) -> Any:
    """The memo table of a rule over two logs for tables ``t``, built once per model (the Python
    and the C successor functions share it, and so its entries)."""
    memo = vars(t).setdefault("_rule_tables", {})
    if (kind, rule) not in memo:
        memo[kind, rule] = caught_up_table(t, rule) if kind == "caught" else offset_table(t, TRUNCATE_TO[rule])
    return memo[kind, rule]


def shape(t: Any) -> tuple:
    """Everything a generated source depends on (two models of one shape share it): the generation
    (its rules, its Next, its forms and their functions), the option steps' functions, the layout
    and the option fields, the options the steps read, the bounds and the log encoding."""
    lay, f, c, gen = t.layout, t.fields, t.config, t.generation
    opt = step_options(t.options, t.consumers, t.az_of)
    forms = tuple(id(FORMS[name].fn) for name in gen.forms if name in FORMS)
    forms += tuple(id(OPTION_STEPS[name].fn) for name in option_step_names(opt))
    return (gen, forms, lay.n, lay.requests_i, lay.q_leader, lay.q_isr, lay.next_record_id, f.dead, f.acked,
            f.flushed, f.crashes, f.served, f.az_failed, opt,
            c.log_size, c.max_records, c.max_leader_epoch, t.logs.epochs, t.logs.size)


_SOURCES: dict[tuple, tuple[str, list]] = {}  # shape -> (source, recipe)
_CODE: dict[str, Any] = {}  # source -> its code object


def successors_source(t: Any) -> tuple[str, dict[str, Any]]:
    """The generated source of the generation's ``Next`` for tables ``t`` and its namespace."""
    key = shape(t)
    if key not in _SOURCES:
        w = Writer(t)
        _SOURCES[key] = _write(w, t), w.recipe
    source, recipe = _SOURCES[key]
    namespace = Writer.base_namespace(t)
    for entry in recipe:
        namespace.update(bind(t, *entry))
    return source, namespace


def _write(w: Writer, t: Any) -> str:
    for name in t.generation.next:
        d = described(t.generation, name)
        w.section(name, d.acts, d.fn)
    for name in option_step_names(w.opt):  # the options' steps, described the same way
        d = OPTION_STEPS[name]
        w.section(name, d.acts, d.fn)
    body = w.lines
    n, head = t.layout.n, ["def successors(s):", "    out = []", f"    reqs = s[{t.layout.requests_i}]",
                           "    next_epoch = len(reqs)"]
    if w.uses_requests:
        epochs = ", ".join(f"s[{FIELDS_PER_REPLICA * r + EPOCH}]" for r in range(n))
        head += [f"    lowest = min({epochs})" if n > 1 else f"    lowest = {epochs}",
                 "    requests = named[reqs] if lowest < next_epoch - 1 else ()"]
    return "\n".join([*head, *body, "    return out", ""])


def generated_successors(t: Any) -> Callable[[tuple], list]:
    """The generation's ``Next``, then the options' steps, as one compiled function."""
    source, namespace = successors_source(t)
    code = _CODE.get(source)
    if code is None:
        code = _CODE[source] = compile(source, f"<isrcheck generated Next of {t.generation.name}>", "exec")
    exec(code, namespace)  # the source is ours, built from the descriptions: no user data in it
    fn = namespace["successors"]
    fn.source = source
    return fn
