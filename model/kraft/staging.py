"""The explicit KRaft steps generated from their one description (``isrcheck.model.kraft.described``).

Each described step is run once per configuration and acting broker with staged values
(``isrcheck.model.steps.staging.Staged``: the source of an expression, not its value) and writes
one function ``(s, b, out)`` of straight-line source: the broker's fields are constant indices of
the state tuple, the generation's rules and the constants are folded (a constant guard
disappears, a path that can never emit writes nothing), the cases are unrolled in their order,
and an action whose arguments are all constant is built once and bound as a constant. The
functions have one signature, so ``KraftSteps`` calls them in the spec's order beside the steps
without a description (the split fetch's, reassignment's; ``successors``).

The constant folding of ``and_``/``or_``/``not_``/``ite`` and the source blocks are the classic
writer's (``isrcheck.model.steps.staging``), reused as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from isrcheck.model.steps.staging import Block, Staged, const, render_body, src

from .described import Described, steps_of
from .described_replica import advance_hw
from .fields import (
    ACKED,
    AP_ACCEPTED,
    AP_REQUEST,
    BROKER_FIELDS,
    CONSUMED,
    GLOBAL_FIELDS,
    METADATA_LOG,
    NACKED,
    NIL,
    NO_FLOOR,
    R_ELR,
    R_ISR,
    R_LEADER,
    R_LEADER_EPOCH,
    R_PARTITION_EPOCH,
    R_REPLICAS,
    SENT,
    STARTING,
    TRUE_HW,
    Layout,
)
from .replica_source import Folding, commit_offsets, last_offsets_for_epoch
from .rules import MaskRules

BROKER_INDEX = {f.name: i for i, f in enumerate(BROKER_FIELDS)}
GLOBAL_INDEX = {f.name: i for i, f in enumerate(GLOBAL_FIELDS)}

Step = Callable[[tuple, int, list], None]


class KraftWriter(Folding):
    """The operations of ``isrcheck.model.kraft.described`` as Python source (see the module
    docstring); one per configuration, ``function`` once per step and acting broker."""

    def __init__(self, config: Any, lay: Layout) -> None:
        self.config, self.gen, self.lay, self.n = config, config.gen, lay, lay.n
        self.namespace: dict[str, Any] = {}
        self.hw_table = MaskRules(config.gen, config.min_isr, lay.n).hw_isr_ok()
        self._consts: dict[tuple[type, Any], str] = {}
        self.lines: list[str] = []
        self.at: list[Block] = []
        self.dead = False
        self.updates: list[str] = []
        self.described: Described | None = None
        self.count = 0  # names of locals
        self.completion = ""  # the local holding a reassignment's completion (completes_reassignment)
        self.electing = False  # inside ``reassignment_completions``' loop: the next state is its ``t``

    # -- writing source ------------------------------------------------------------------------

    def _bind(self, value: Any) -> str:
        """A build-time value the source refers to by name (an action, a tuple, a class)."""
        key = (type(value), value) if not isinstance(value, type) else (type, id(value))
        name = self._consts.get(key)
        if name is None:
            name = self._consts[key] = f"k{len(self._consts)}"
            self.namespace[name] = value
        return name

    def lit(self, v: Any) -> str:
        if isinstance(v, (Staged, bool, int)):
            return src(v)
        return self._bind(v)

    def _open(self, text: str) -> None:
        if not self.dead:
            block = Block(text, [])
            self.at[-1].body.append(block)
            self.at.append(block)

    def _line(self, text: str) -> None:
        if not self.dead:
            self.at[-1].body.append(Block(text))

    def function(self, d: Described, b: int) -> str | None:
        """The source of ``d`` for acting broker ``b`` (None: it can never emit in this configuration)."""
        name = f"{d.method}_{b}"
        root = Block(f"def {name}(s, b, out):", [])
        self.at, self.dead, self.updates, self.described, self.electing = [root], False, [], d, False
        self.acting = b
        d.fn(self, b)
        if not root.emits:
            return None
        out: list[str] = []
        render_body([root], 0, out)
        self.lines += out
        return name

    # -- control ---------------------------------------------------------------------------------

    def require(self, *conds: Any) -> None:
        for c in conds:
            if self.dead or c is True:
                continue
            if const(c):
                if not c:
                    self.dead = True
                continue
            self._open(f"if {src(c)}:")

    def cases(self, name: str) -> Iterator[Any]:
        # Each case starts from the updates made before the split, so a description makes none there.
        if self.updates:
            raise AssertionError(f"{self.described.name}: updates before the case split {name!r}")
        at, dead = list(self.at), self.dead
        for value in self.described.cases[name](self.config, self.acting):
            self.at, self.dead, self.updates = list(at), dead, []
            yield value
        self.at, self.dead = at, dead

    def elected_choices(self) -> Iterator[int]:
        """The controller's choice as build-time branches (-1, then each broker, the explicit
        order): each continues from the step's updates so far, under its own guards."""
        at, dead, updates = list(self.at), self.dead, list(self.updates)
        for c in (-1, *self.lay.brokers):
            self.at, self.dead, self.updates = list(at), dead, list(updates)
            yield c
        self.at, self.dead, self.updates = at, dead, []

    def single(self, c: int, when: Any) -> Any:
        return 0 if c < 0 else self.ite(when, 1 << c, 0)

    def elected_id(self, c: int, stays: Any) -> Any:
        if c >= 0:
            return c + 1
        return Staged(f"(None if {src(stays)} else {self._bind('none')})") if not const(stays) else (
            None if stays else "none")

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        """The classic writer's, with two more folds (both branches the same constant; a negation)."""
        if const(a) and const(b) and type(a) is type(b) and a == b:
            return a
        if a is False and b is True:
            return self.not_(c)
        return Folding.ite(self, c, a, b)

    def one_of(self, v: Any, values: tuple) -> Any:
        return self.or_(*(v == x for x in values))

    # -- the state ---------------------------------------------------------------------------------

    def _bi(self, b: int, name: str) -> int:
        return self.lay.base[b] + BROKER_INDEX[name]

    def get(self, b: int, name: str) -> Staged:
        return Staged(f"s[{self._bi(b, name)}]")

    def glob(self, name: str) -> Staged:
        return Staged(f"s[{self.lay.g + GLOBAL_INDEX[name]}]")

    @staticmethod
    def no_brokers() -> int:
        return 0

    no_floor = NO_FLOOR

    def at_least(self, mask: Any, m: int) -> Any:
        if m <= 0:
            return True
        return Staged(f"({self._bind(self.lay.size)}[{src(mask)}] >= {m})")

    def log_end(self, b: int) -> Staged:
        return Staged(f"len({src(self.get(b, 'log'))})")

    def value_sent(self, v: int) -> Staged:
        return Staged(f"(s[{self.lay.g + SENT}] >> {v} & 1)")

    def let(self, v: Any) -> Any:
        if const(v):
            return v
        self.count += 1
        name = f"v{self.count}"
        self._line(f"{name} = {src(v)}")
        return Staged(name)

    # -- the next state ----------------------------------------------------------------------------

    def put(self, b: int, name: str, v: Any) -> None:
        self.updates.append(f"nxt[{self._bi(b, name)}] = {self.lit(v)}")

    def gput(self, name: str, v: Any) -> None:
        self.updates.append(f"nxt[{self.lay.g + GLOBAL_INDEX[name]}] = {self.lit(v)}")

    def append_record(self, b: int, epoch: Any, value: int) -> None:
        log = self._bi(b, "log")
        self.updates.append(f"nxt[{log}] = s[{log}] + ({src(epoch)} * {self.config.values} + {value},)")

    def mark_sent(self, v: int) -> None:
        self.updates.append(f"nxt[{self.lay.g + SENT}] |= {1 << v}")

    def commit_offset(self, b: int, members: Any, leo: Any, known: bool) -> Staged:
        """``functions.commit_offset`` of leader b through its generated source (``replica_source.py``),
        computed among the updates (``known``: on the followers they wrote)."""
        fi = self._bi(b, "followers")
        followers = f"nxt[{fi}]" if known else f"s[{fi}]"
        commit = self._bind(commit_offsets(self.n)[b])
        return self.later(Staged(f"{commit}({src(members)}, {src(leo)}, {followers})"))

    def later(self, v: Any) -> Any:
        if const(v):
            return v
        self.count += 1
        name = f"u{self.count}"
        self.updates.append(f"{name} = {src(v)}")
        return Staged(name)

    _GHOST = {"acked": ACKED, "nacked": NACKED}

    def ghost(self, name: str, v: int) -> Staged:
        return Staged(f"(s[{self.lay.g + self._GHOST[name]}] >> {v} & 1)")

    def ghost_add(self, name: str, v: int, when: Any) -> None:
        if not (const(when) and not when):
            add = f"nxt[{self.lay.g + self._GHOST[name]}] |= {1 << v}"
            self.updates.append(add if when is True else f"if {src(when)}: {add}")

    def next_log_holds(self, b: int, lo: Any, hi: Any, v: int) -> Staged:
        return Staged(f"any(r % {self.config.values} == {v} for r in nxt[{self._bi(b, 'log')}][{src(lo)}:{src(hi)}])")

    def consume_up_to(self, b: int, hw: Any, when: Any) -> None:
        t, c, log = self.lay.g + TRUE_HW, self.lay.g + CONSUMED, self._bi(b, "log")
        self.updates.append(f"if {src(self.and_(when, Staged(f'({src(hw)} > nxt[{t}])')))}: "
                            f"nxt[{c}] = nxt[{c}] + nxt[{log}][nxt[{t}]:{src(hw)}]; nxt[{t}] = {src(hw)}")

    def hw_isr_ok(self, isr: Any) -> Any:
        """``rules.hw_isr_ok`` of the ISR mask ``isr``: a table lookup, or True where every ISR passes."""
        table = self.hw_table
        return True if all(table) else Staged(f"{self._bind(table)}[{src(isr)}]")

    def last_fetched_epoch(self, f: int) -> Staged:
        log = src(self.get(f, "log"))
        return Staged(f"({log}[-1] // {self.config.values} if {log} else 0)")

    def last_offset_for_epoch(self, b: int, epoch: Any, is_leader: bool) -> tuple[Staged, Staged]:
        self.count += 1
        name = f"d{self.count}"
        answer = self._bind(last_offsets_for_epoch(self.config.values)[is_leader])  # functions.py's, generated
        self._line(f"{name} = {answer}({src(self.get(b, 'log'))}, {src(self.get(b, 'md_leader_epoch'))}, {src(epoch)})")
        return Staged(f"{name}[0]"), Staged(f"{name}[1]")

    def truncate_log(self, f: int, offset: Any) -> None:
        log = self._bi(f, "log")
        self.updates.append(f"nxt[{log}] = s[{log}][:{src(offset)}]")

    def record_follower(self, ld: int, f: int, leo: Any, broker_epoch: Any) -> None:
        fi = self._bi(ld, "followers")
        self.updates.append(f"nxt[{fi}] = s[{fi}][:{f}] + (({src(leo)}, {src(broker_epoch)}),) + s[{fi}][{f + 1}:]")

    def copy_next_record(self, f: int, ld: int, offset: Any) -> None:
        fl, ll = self._bi(f, "log"), self._bi(ld, "log")
        self.updates.append(f"if {src(offset)} < len(s[{ll}]): nxt[{fl}] = s[{fl}] + (s[{ll}][{src(offset)}],)")

    def next_log_end(self, f: int) -> Staged:
        return Staged(f"len(nxt[{self._bi(f, 'log')}])")

    def clear_log(self, b: int) -> None:
        self.put(b, "log", ())

    def blank_leadership(self, b: int) -> None:
        self.put(b, "followers", self.lay.blank_followers)
        self.put(b, "alter_partition", 0)
        self.put(b, "write_floor", NO_FLOOR)

    def keep_registration_in_flight(self, b: int) -> None:
        req, epoch = self._bi(b, "reg_requests"), self._bi(b, "broker_epoch")
        self.updates.append(f"if s[{self._bi(b, 'status')}] == {STARTING}: "
                            f"nxt[{req}] = tuple(sorted(s[{req}] + (s[{epoch}],)))")

    def drop_fetch_sessions(self, b: int) -> None:
        """Every fetch from or to b is dropped (the split fetch's ``DropFetchSessions``)."""
        self.put(b, "fetches", self.lay.no_fetches)
        for p in self.lay.brokers:
            if p != b:
                at = self._bi(p, "fetches")
                self.updates.append(f"if nxt[{at}][{b}]: nxt[{at}] = nxt[{at}][:{b}] + (0,) + nxt[{at}][{b + 1}:]")

    def controller_isr_is(self, b: int) -> Staged:
        return Staged(f"(s[{self.lay.g + METADATA_LOG}][-1][{R_ISR}] == {1 << b})")

    def ap_phase(self, b: int) -> Staged:
        slot = src(self.get(b, "alter_partition"))
        return Staged(f"({slot} and {slot}[0])")

    def ap_proposed(self, b: int) -> Staged:
        return Staged(f"{src(self.get(b, 'alter_partition'))}[1]")

    def ap_replicas(self, b: int) -> Staged:
        return Staged(f"{src(self.get(b, 'alter_partition'))}[3]")

    # -- broker sets (bit masks) --------------------------------------------------------------

    def member(self, mask: Any, f: int) -> Any:
        return bool(mask >> f & 1) if const(mask) else Staged(f"({src(mask)} & {1 << f})")

    def set_of(self, bits: list) -> Any:
        terms = [str(1 << f) if c is True else f"({1 << f} if {src(c)} else 0)"
                 for f, c in enumerate(bits) if not (const(c) and not c)]
        return Staged("(" + " | ".join(terms) + ")") if terms else 0

    def union(self, a: Any, b: Any) -> Any:
        if const(b) and not b:
            return a
        return Staged(f"({src(a)} | {src(b)})")

    def difference(self, a: Any, b: Any) -> Any:
        if const(b) and not b:
            return a
        return Staged(f"({src(a)} & ~{src(b)})")

    def same_set(self, a: Any, b: Any) -> Any:
        return a == b

    def loses(self, a: Any, b: Any) -> Staged:
        return Staged(f"({src(a)} & ~{src(b)})")

    def is_replica(self, b: int, f: int) -> Staged:
        return Staged(f"(s[{self._bi(b, 'md_replicas')}] & {1 << f})")

    def ids(self, mask: Any) -> Staged:
        table = self._bind(tuple(tuple(self.lay.ids(m)) for m in range(1 << self.n)))
        return Staged(f"{table}[{src(mask)}]")

    def follower_leo(self, b: int, f: int) -> Staged:
        return Staged(f"s[{self._bi(b, 'followers')}][{f}][0]")

    def follower_epoch(self, b: int, f: int) -> Staged:
        return Staged(f"s[{self._bi(b, 'followers')}][{f}][1]")

    def put_ap_request(self, b: int, proposed: Any, epochs: list) -> None:
        self.updates.append(f"nxt[{self._bi(b, 'alter_partition')}] = ({AP_REQUEST}, {src(proposed)}, "
                            f"({''.join(src(e) + ', ' for e in epochs)}))")

    def ap_epoch(self, b: int, f: int) -> Staged:
        return Staged(f"{src(self.get(b, 'alter_partition'))}[2][{f}]")

    def put_ap_phase(self, b: int, phase: int) -> None:
        slot = src(self.get(b, "alter_partition"))
        extra = f", {src(self.controller('replicas'))}" if phase == AP_ACCEPTED else ""
        self.updates.append(f"nxt[{self._bi(b, 'alter_partition')}] = ({phase}, {slot}[1], {slot}[2]{extra})")

    _RECORD = {"leader": R_LEADER, "leader_epoch": R_LEADER_EPOCH, "partition_epoch": R_PARTITION_EPOCH,
               "replicas": R_REPLICAS, "isr": R_ISR, "elr": R_ELR}

    def controller(self, name: str) -> Staged:
        return Staged(f"s[{self.lay.g + METADATA_LOG}][-1][{self._RECORD[name]}]")

    def change_partition(self, leader: Any, leader_epoch: Any, isr: Any, elr: Any, when: Any) -> None:
        """``ApplyPartitionChange`` (``controller.Controller.apply_change``: the record's encoding)."""
        if not (const(when) and not when):
            change = f"ctl.apply_change(nxt, {src(leader)}, {src(isr)}, {src(elr)}, {src(leader_epoch)})"
            self.updates.append(change if when is True else f"if {src(when)}: {change}")

    # The rules of rules.py on masks, through the controller's memoised tables (``rules.MaskRules``).
    def update_elr(self, isr: Any, elr: Any, proposed: Any, replicas: Any) -> Staged:
        return Staged(f"R.update_elr({src(isr)}, {src(elr)}, {src(proposed)}, {src(replicas)})")

    def isr_after_fencing(self, isr: Any, b: int) -> Staged:
        return Staged(f"R.isr_after_fencing({src(isr)}, {b})")

    def candidates(self, isr: Any, elr: Any, unfenced: Any) -> Staged:
        return Staged(f"R.candidate_set({src(isr)}, {src(elr)}, {src(unfenced)})")

    def completes_reassignment(self, b: int) -> Staged:
        self.count += 1
        self.completion = f"cp{self.count}"
        self._line(f"{self.completion} = ctl.complete_on_alter_partition(s[{self.lay.g + METADATA_LOG}][-1], "
                   f"{src(self.ap_proposed(b))})")
        return Staged(f"({self.completion} is not None)")

    def reassignment_completions(self, b: int) -> Iterator[Staged]:
        """Each leader of the completed reassignment (``ctl.new_leaders``), the change applied to a
        copy ``t`` of the next state (``controller.Controller.complete_on_alter_partition``)."""
        at, dead = list(self.at), self.dead
        cur, cp = f"s[{self.lay.g + METADATA_LOG}][-1]", self.completion
        for line in ("nxt = list(s)", *self.updates, f"e = ctl.update_elr({cur}, {cp}[0], {cp}[1])"):
            self._line(line)
        self.updates = []
        self._open(f"for ldr in ctl.new_leaders({cur}, {cp}[0]):")
        self._line(f"t = list(nxt); ctl.apply_change(t, ldr, {cp}[0], e, {cur}[{R_LEADER_EPOCH}] + 1, ({cp}[1], 0, 0))")
        self.electing = True
        yield Staged("ldr + 1")
        self.at, self.dead, self.electing = at, dead, False

    def metadata_length(self) -> Staged:
        return Staged(f"len(s[{self.lay.g + METADATA_LOG}])")

    def stale_requests(self, b: int) -> Iterator[tuple[Staged, Staged]]:
        """A loop over b's stale registration requests (sorted), one step per epoch sent."""
        at, dead = list(self.at), self.dead
        self.count += 1
        i, sent, rq = f"i{self.count}", f"sent{self.count}", f"s[{self._bi(b, 'reg_requests')}]"
        self._open(f"for {i}, {sent} in enumerate({rq}):")
        self._open(f"if not {i} or {sent} != {rq}[{i} - 1]:")
        yield Staged(sent), Staged(f"{rq}[:{i}] + {rq}[{i} + 1:]")
        self.at, self.dead = at, dead

    def metadata_records(self, b: int) -> Iterator[tuple[Staged, str]]:
        """A loop over the metadata log from b's offset on; a record is the local naming it."""
        at, dead = list(self.at), self.dead
        self.count += 1
        off, rec, log = f"off{self.count}", f"rec{self.count}", f"s[{self.lay.g + METADATA_LOG}]"
        self._open(f"for {off} in range({src(self.get(b, 'md_offset'))}, len({log})):")
        self._line(f"{rec} = {log}[{off}]")
        yield Staged(off), rec
        self.at, self.dead = at, dead

    def record(self, rec: str, name: str) -> Staged:
        return Staged(f"{rec}[{self._RECORD[name]}]")

    def keep_followers(self, b: int, isr: Any, was_leader: Any) -> None:
        known = src(self.get(b, "followers"))
        kept = ", ".join(f"{known}[{f}] if ({src(was_leader)} and {src(isr)} & {1 << f}) else {self._bind((NIL, 0))}"
                         for f in self.lay.brokers)
        self.updates.append(f"nxt[{self._bi(b, 'followers')}] = ({kept},)")

    def emit(self, cls: type, *args: Any) -> None:
        if self.dead:
            return
        if all(const(a) for a in args):
            action = self._bind(cls(*args))
        else:
            action = f"{self._bind(cls)}({', '.join(self.lit(a) for a in args)})"
        if self.electing:
            if self.updates:
                raise AssertionError(f"{self.described.name}: updates after the controller's election")
            self._line(f"out.append(({action}, tuple(t)))")
        else:
            for line in ("nxt = list(s)", *self.updates, f"out.append(({action}, tuple(nxt)))"):
                self._line(line)
        for block in self.at:
            block.emits = True
        self.at[-1].body[-1].emits = True
        self.updates = []


_CODE: dict[str, Any] = {}  # source -> its code object


def elected(choice: object) -> int | str | None:
    """A controller choice as the action shows it: a broker index as its id (1-based)."""
    return choice + 1 if isinstance(choice, int) else choice


def generated_steps(config: Any, lay: Layout, ctl: Any) -> dict[str, tuple[Step | None, ...]]:
    """Every described step of the configuration as one function per acting broker, by the method
    of ``KraftSteps`` it stands for (None where it can never emit for that broker); ``ctl`` is the
    model's ``controller.Controller`` (the record's encoding, the rules' memoised tables)."""
    w = KraftWriter(config, lay)
    names = {d.method: tuple(w.function(d, b) for b in lay.brokers) for d in steps_of(config.gen).values()}
    source = "\n".join([*w.lines, ""])
    code = _CODE.get(source)
    if code is None:
        code = _CODE[source] = compile(source, f"<isrcheck generated KRaft steps of {config.gen.name}>", "exec")
    namespace = {**w.namespace, "ctl": ctl, "R": ctl.rules, "elected": elected}
    exec(code, namespace)  # the source is ours, written from the descriptions: no user data in it
    return {method: tuple(namespace[f] if f else None for f in fs) for method, fs in names.items()}


def advance_hw_functions(config: Any, lay: Layout) -> tuple[Callable[[list], int], ...]:
    """``described_replica.advance_hw`` of each broker as leader, with what it knows of its followers
    now, as a function ``(s, nxt)`` of the state before the step and the list of the next one it
    writes into, returning the HW after it: for the split fetch's ReceiveFetchRequest, which has
    no description (``steps.py``)."""
    w = KraftWriter(config, lay)
    lines = []
    for b in lay.brokers:
        w.updates = []
        hw = advance_hw(w, b, w.log_end(b), known=True)
        lines += [f"def advance_hw_{b}(s, nxt):", *(f"    {u}" for u in w.updates), f"    return {src(hw)}"]
    source = "\n".join([*lines, ""])
    code = _CODE.get(source)
    if code is None:
        code = _CODE[source] = compile(source, "<isrcheck generated KRaft MaybeAdvanceHighWatermark>", "exec")
    namespace = dict(w.namespace)
    exec(code, namespace)  # the source is ours, written from the description: no user data in it
    return tuple(namespace[f"advance_hw_{b}"] for b in lay.brokers)


def source_of(config: Any, lay: Layout) -> str:
    """The generated source (for reading it: ``python -c`` in docs/architecture.md)."""
    w = KraftWriter(config, lay)
    for d in steps_of(config.gen).values():
        for b in lay.brokers:
            w.function(d, b)
    return "\n".join(w.lines)
