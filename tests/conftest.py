"""Hypothesis settings profiles for the whole suite, chosen with ``--hypothesis-profile``.

- ``ci`` (the default): derandomized, so every run generates the same examples and a green
  build stays green; no example database, so nothing left behind by an earlier run changes what
  is tried; no deadline and no too-slow health check, because a busy 2-core runner (Spark tests
  beside these) must not turn timing into failures.
- ``dev``: random seeds, the default directory example database (``.hypothesis/``, git-ignored),
  so a failure found once is replayed first on the next run until it is fixed.
- ``nightly``: random seeds and twenty times the examples; failures print a reproduce blob.

Stateful tests over the replication model set their own ``max_examples`` (the budget that finds
a bug) on top of the loaded profile, so the profile decides determinism and the database, the test
decides the budget; a slow-marked test scales with the profile's ``max_examples``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=50,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev",
    derandomize=False,
    # database left at Hypothesis's default: a directory database under .hypothesis/examples
    deadline=None,
    max_examples=100,
)
settings.register_profile(
    "nightly",
    derandomize=False,
    deadline=None,
    max_examples=2000,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)

# Hypothesis's pytest plugin loads the profile named by --hypothesis-profile after this file is
# imported; without the option, HYPOTHESIS_PROFILE or "ci" applies.
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
