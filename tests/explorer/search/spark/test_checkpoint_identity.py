"""A checkpoint is resumed only by the run that wrote it: every option of every model family, and
the model file's content, is part of the run's identity (checkpoint.run_identity, registry.origin_of), so a
resume with any one of them changed is refused with exit 2 naming it: never a "complete" run with
another model's counts (issue 31's --split-fetch reproduction)."""

from __future__ import annotations

import json
import textwrap

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.registry import build_model, load_factory, model_options

pytestmark = pytest.mark.spark

SPARK = ["--engine", "spark", "--master", "local[2]"]
# Options the model accepts only together with another (the model refuses them alone).
COMPANIONS = {"min_insync_replicas": {"acks": "all"}, "stops": {"max_crashes": 1},
              "unclean_election": {"max_crashes": 1}, "kip966_unclean_recovery": {"max_crashes": 1},
              "placement": {"azs": 1}, "max_az_failures": {"azs": 3}}
# The KRaft family places replicas on racks only where a reassignment moves them (docs/kraft.md).
KRAFT_COMPANIONS = {"azs": {"max_reassignments": 1}, "placement": {"max_reassignments": 1}}


def flags(options):
    out = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            out.append(flag)
        elif value is False:
            out.append("--no-" + flag[2:])
        else:
            out.extend([flag, str(value)])
    return out


def changes(spec, base):
    """For each option of ``spec``'s factory: (name, options that change it, built) or (name, None,
    the model's refusal) when no other value is valid for this family."""
    found = []
    for opt in model_options(load_factory(spec)):
        if opt.choices:
            values = [c for c in opt.choices if c != base.get(opt.name, opt.default)]
        elif opt.type is bool:
            values = [not base.get(opt.name, opt.default)]
        elif opt.type is int:
            current = base.get(opt.name, opt.default)
            values = [1, 2, 3] if current is None else [current + d for d in (1, 2, -1)]
        else:
            values = ["LogMatching,StrongIsr", "LogMatching,LeaderCompleteness"]  # LogMatching: the one checked
        refusal = None
        for value in values:
            kraft = str(base.get("generation", "")).startswith("kraft")
            companions = {**COMPANIONS.get(opt.name, {}), **(KRAFT_COMPANIONS.get(opt.name, {}) if kraft else {})}
            changed = {**base, **companions, opt.name: value}
            try:
                build_model(spec, changed)
            except UserError as exc:
                refusal = str(exc)
                continue
            found.append((opt.name, changed, None))
            break
        else:
            found.append((opt.name, None, refusal))
    return found


def only(spec):
    """One invariant that holds (a vacuous 'sometimes' property would make the first run exit 1)."""
    return ["--invariant", "LogMatching"] if spec == "classic" else []


def start(spec, options, ckpt, capsys):
    assert main(["check", spec, *flags(options), *SPARK, *only(spec), "--checkpoint", str(ckpt), "--quiet"]) == 0
    capsys.readouterr()


def assert_refused(spec, options, ckpt, capsys, named):
    code = main(["check", spec, *flags(options), *SPARK, *only(spec), "--checkpoint", str(ckpt), "--resume", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{named}: checkpoint has" in err and "another --checkpoint folder" in err, err
    assert "Traceback" not in err


def test_the_issues_split_fetch_resume_is_refused(spark, tmp_path, capsys):
    # issue 31's two commands, verbatim but for the folder: the resume used to exit 0 with 144 states
    ckpt = str(tmp_path / "ck")
    first = ["check", "classic", "--generation", "kraft-3.5", "--replicas", "3", "--invariant", "LogMatching",
             "--engine", "spark", "--master", "local[2]", "--checkpoint", ckpt, "--quiet"]
    assert main(first) == 0
    capsys.readouterr()
    second = ["check", "classic", "--generation", "kraft-3.5", "--replicas", "3", "--split-fetch", "--invariant",
              "LogMatching", "--engine", "spark", "--master", "local[2]", "--checkpoint", ckpt, "--resume", "--json"]
    assert main(second) == 2
    out, err = capsys.readouterr()
    assert "model option split_fetch: checkpoint has 'False', this run has 'True'" in err
    assert "144" not in out and "delete" not in err.lower()


@pytest.mark.parametrize("family, base", [
    ("classic", {}),
    ("kraft", {"generation": "kraft-3.5", "replicas": 3}),
])
def test_each_option_of_the_classic_model_is_part_of_the_identity(spark, tmp_path, capsys, family, base):
    ckpt = tmp_path / family
    start("classic", base, ckpt, capsys)
    checked = []
    for name, changed, refusal in changes("classic", base):
        if changed is None:
            # an option this family does not have: the model refuses every other value of it
            assert "applies to" in refusal or "drop it" in refusal, (name, refusal)
            continue
        assert_refused("classic", changed, ckpt, capsys, f"model option {name}")
        checked.append(name)
    must = {"generation", "replicas", "max_records", "acks", "max_crashes", "min_insync_replicas", "property_set"}
    must |= ({"split_fetch", "init_isr_size", "max_fencings", "hw_over_maximal_isr", "max_reassignments",
              "spare_brokers", "azs"} if family == "kraft" else
             {"log_size", "max_leader_epoch", "truncation", "azs", "placement", "unclean_election"})
    assert must <= set(checked), must - set(checked)


USER_MODEL = '''
from typing import Literal


class Walk:
    def __init__(self, size, wrap, mode):
        self.size, self.wrap, self.mode = size, wrap, mode

    def init_states(self):
        return [0]

    def successors(self, state):
        step = 2 if self.mode == "double" else 1
        nxt = state + step
        if nxt < self.size:
            yield "step", nxt
        elif self.wrap:
            yield "wrap", 0

    def properties(self):
        from isrcheck import Property
        return [Property.always("Small", lambda s: s < 100)]

    def __repr__(self):  # leaves options out on purpose: the identity must not depend on it
        return "Walk()"


def make_model(*, size: int = 4, wrap: bool = False, mode: Literal["single", "double"] = "single"):
    return Walk(size, wrap, mode)
'''


def test_each_option_and_the_content_of_a_model_file_are_part_of_the_identity(spark, tmp_path, capsys):
    path = tmp_path / "walk.py"
    path.write_text(textwrap.dedent(USER_MODEL))
    spec = f"{path}:make_model"
    ckpt = tmp_path / "ck"
    start(spec, {}, ckpt, capsys)
    for changed in ({"size": 5}, {"wrap": True}, {"mode": "double"}):
        assert_refused(spec, changed, ckpt, capsys, f"model option {next(iter(changed))}")
    path.write_text(textwrap.dedent(USER_MODEL).replace("< 100", "< 101"))
    assert_refused(spec, {}, ckpt, capsys, "model source")
    identity = json.loads((ckpt / "manifest.json").read_text())["identity"]
    assert str(path) in identity["model source"] and identity["model option wrap"] == "False"


def test_compiled_sources_are_part_of_the_code_version():
    from isrcheck.explorer.search.spark.checkpoint import code_version, source_files
    from isrcheck.explorer.selection import select_properties

    model = build_model("classic", {})
    files = source_files(model, select_properties(model))
    names = {path.name for path in files}
    # the C hot path and its built extension, beside the Python of explorer/, model/ and properties/
    assert {"_classic.c", "_isr.c", "checkpoint.py", "replication.py"} <= names
    assert any(name.startswith("_classic.") and name.endswith(".so") for name in names) or \
        not any(path.name.endswith(".so") for path in next(p for p in files if p.name == "_classic.c").parent.iterdir())
    assert len(code_version(model, select_properties(model))) == 16


class Wrapper:
    """A model around a registered one (as one adding properties of one's own is)."""

    def __init__(self, model):
        self.model = model

    def __repr__(self):
        return f"Wrapper({self.model!r})"


def test_a_model_wrapping_a_registered_one_is_described_by_the_inner_models_origin():
    from isrcheck.explorer.search.spark.checkpoint import describe_model

    base = {"generation": "kraft-3.5", "replicas": 3}
    plain = describe_model(Wrapper(build_model("classic", base)))
    split = describe_model(Wrapper(build_model("classic", {**base, "split_fetch": True})))
    assert plain != split and "split_fetch=True" in split and "split_fetch=False" in plain
