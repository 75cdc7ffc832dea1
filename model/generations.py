"""Each protocol generation as data: the steps that make up its ``Next`` and the rules that differ.

A generation reproduces the ``Next`` of one module of hachikuji/kafka-specification. Its steps are
named by their TLA+ actions (the builders are in ``isrcheck.model.steps``), in the order of the module's
disjuncts, which fixes the (deterministic) order of successors. Each step is written once and
reads its generation's rule from here:

- ``isr_rule`` / ``hw_rule``: when the leader counts a follower as caught up to an offset, for ISR
  changes and for advancing the high watermark (``isrcheck.model.steps.rules``);
- ``fenced``: KIP-320's epoch fencing: a follower counts, fetches and truncates only against a
  leader at its own leader epoch;
- ``expand_waits_for_epoch_start``: ``HasHighWatermarkReachedCurrentEpoch`` guards ISR expansion
  (the fix for bug K6; the ``expand_before_epoch_start`` option turns it off);
- ``truncate_to``: where ``BecomeFollowerAndTruncateTo`` truncates (``isrcheck.model.steps.truncation``);
  empty for generations that truncate lazily, on a fetch response;
- ``fetch_matches_last_epoch``: a fetch appends only if the follower's last record has the
  leader's epoch for that offset (else the follower must truncate first);
- ``forms``: steps replaced by a form of one's own (a user's variant: ``isrcheck.model.variants.step_form``),
  by the registered form's name; none in a built-in generation;
- ``hw_bound``, ``hw_vacuous_with_empty_isr``: the literal quirks of each module's HW rule (its
  bound is ``LogSize`` or the leader's log end; in ``Kip320.tla`` the leadership test sits inside
  the quantifier over the cached ISR, so an empty cached ISR makes it vacuous).

The ``truncation`` option's on-fetch forms derive a variant of ``kip320`` (``on_fetch``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

# The steps every generation starts with: controller, LeaderAndIsr and ISR changes, producer.
HEAD = ("ControllerElectLeader", "ControllerShrinkIsr", "BecomeLeader", "LeaderExpandIsr", "LeaderShrinkIsr",
         "LeaderWrite", "LeaderIncHighWatermark")
_EAGER = (*HEAD, "BecomeFollowerAndTruncateTo", "FollowerReplicate")
_LAZY = (*HEAD, "BecomeFollower", "FollowerReplicate", "FollowerTruncate")


@dataclass(frozen=True)
class Generation:
    name: str
    module: str  # the TLA+ module whose Next this reproduces
    next: tuple[str, ...]
    isr_rule: str
    hw_rule: str
    fenced: bool = False
    expand_waits_for_epoch_start: bool = False
    truncate_to: str = ""
    fetch_matches_last_epoch: bool = False
    hw_bound: str = "log-size"  # "log-size" (LogSize) or "log-end" (the leader's end offset)
    hw_vacuous_with_empty_isr: bool = False
    forms: tuple[str, ...] = ()  # registered step forms (isrcheck.model.steps.described.FORMS) replacing steps

    def on_fetch(self, hw_first: bool) -> Generation:
        """Truncation on fetch with a diverging epoch (Kafka 2.7+) on top of KIP-320's fencing: the
        follower becomes follower without truncating, fetches only while its last record matches,
        truncates on the diverging response; the leader counts a follower only where their logs
        match. ``hw_first``: bug K13 (KAFKA-14704), the response's HW applied before truncating."""
        steps = (*_LAZY, "FollowerUpdateHighWatermark") if hw_first else _LAZY
        return replace(self, next=steps, isr_rule="matching-prefix", hw_rule="matching-prefix", truncate_to="",
                       fetch_matches_last_epoch=True)


GENERATIONS: dict[str, Generation] = {
    g.name: g
    for g in (
        # Pre-0.11: a follower truncates to its own HW (KafkaTruncateToHighWatermark.tla).
        Generation("truncate-to-hw", "KafkaTruncateToHighWatermark", _EAGER, "log-end", "follower-end",
                   truncate_to="high-watermark"),
        # KIP-101 (0.11): truncation by OffsetsForLeaderEpoch.
        Generation("kip101", "Kip101", _EAGER, "log-end", "follower-end", truncate_to="kip101"),
        # KIP-279 (2.0): walk back to the last offset holding the leader's record.
        Generation("kip279", "Kip279", _EAGER, "log-end", "follower-end", truncate_to="kip279"),
        # The rejected first draft of KIP-320: lazy truncation, epochs compared record by record (bug K5).
        Generation("kip320-first-try", "Kip320FirstTry", _LAZY, "leader-epoch", "leader-epoch",
                   expand_waits_for_epoch_start=True, fetch_matches_last_epoch=True, hw_bound="log-end"),
        # KIP-320 (2.1): fencing by the current leader epoch.
        Generation("kip320", "Kip320", _EAGER, "follower-end", "follower-end", fenced=True,
                   expand_waits_for_epoch_start=True, truncate_to="kip279", hw_bound="log-end",
                   hw_vacuous_with_empty_isr=True),
    )
}
