"""isrcheck's pytest plugin (the ``pytest11`` entry point ``isrcheck``), as Hypothesis ships one.

- Options: ``--isrcheck-engine local|spark``, ``--isrcheck-workers N`` (local engine processes;
  0: every core; default 1), ``--isrcheck-max-depth N``, ``--isrcheck-artifacts DIR`` (where
  ``isrcheck.assert_holds`` writes a failing test's ITF trace and HTML report, one folder per
  test; default ``isrcheck-artifacts`` under pytest's rootdir). They set ``isrcheck.testing.SETTINGS``.
- Under CI (the ``CI`` environment variable, as GitHub Actions, GitLab and most CI services set
  it) and when no Hypothesis profile was chosen (``--hypothesis-profile``, ``HYPOTHESIS_PROFILE``,
  or a conftest loading one), users' Hypothesis tests, the stateful bridge's included
  (``isrcheck.explorer.stateful``), run derandomized: the same examples on every run, no example
  database, no deadline, so a green CI run stays green. Recent Hypothesis releases load their own
  ``ci`` profile under CI; where the profile is still ``default``, this plugin loads ``isrcheck-ci``.

Abstracted away: nothing; the checking itself is ``isrcheck.testing``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from isrcheck import testing

CI_PROFILE = "isrcheck-ci"


def _count(minimum: int, what: str) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise pytest.UsageError(f"{what} takes a whole number, not {text!r}") from None
        if value < minimum:
            raise pytest.UsageError(f"{what} {text!r}: must be at least {minimum}")
        return value

    return parse


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("isrcheck", "isrcheck model checks (isrcheck.assert_holds)")
    group.addoption("--isrcheck-engine", choices=["local", "spark"], default="local",
                    help="engine of isrcheck.assert_holds (default local)")
    group.addoption("--isrcheck-workers", type=_count(0, "--isrcheck-workers"), default=1, metavar="N",
                    help="local engine processes for isrcheck.assert_holds (0: every core; default 1)")
    group.addoption("--isrcheck-max-depth", type=_count(1, "--isrcheck-max-depth"), default=None, metavar="N",
                    help="do not expand states at depth N in isrcheck.assert_holds (default: no bound)")
    group.addoption("--isrcheck-artifacts", default=None, metavar="DIR",
                    help="where failing checks write their ITF trace and HTML report (default: "
                         "<rootdir>/isrcheck-artifacts)")


def ci_profile() -> None:
    """Register and load the derandomized profile, unless one was chosen (see the docstring)."""
    from hypothesis import HealthCheck, settings

    settings.register_profile(CI_PROFILE, derandomize=True, database=None, deadline=None, print_blob=True,
                              suppress_health_check=[HealthCheck.too_slow])
    if settings.get_current_profile_name() == "default":
        settings.load_profile(CI_PROFILE)


@pytest.hookimpl(trylast=True)  # after Hypothesis's own plugin has loaded --hypothesis-profile
def pytest_configure(config: pytest.Config) -> None:
    artifacts = config.getoption("isrcheck_artifacts")
    workers = config.getoption("isrcheck_workers")
    testing.SETTINGS.engine = config.getoption("isrcheck_engine")
    testing.SETTINGS.workers = None if workers == 0 else workers
    testing.SETTINGS.max_depth = config.getoption("isrcheck_max_depth")
    testing.SETTINGS.artifacts = Path(artifacts).resolve() if artifacts else config.rootpath / "isrcheck-artifacts"
    chosen = config.getoption("hypothesis_profile", None) or os.environ.get("HYPOTHESIS_PROFILE")
    if os.environ.get("CI") and not chosen:
        ci_profile()


def pytest_runtest_setup(item: pytest.Item) -> None:
    testing.SETTINGS.test = item.nodeid


def pytest_runtest_teardown(item: pytest.Item) -> None:
    testing.SETTINGS.test = ""
