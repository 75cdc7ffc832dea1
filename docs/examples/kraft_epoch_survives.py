"""A variant of KIP-966 in a user's own file: one step's rule changed (docs/variants.md, "A KRaft variant").

KIP-966 lets the controller tell a broker that lost its log from one that did not by the broker
epoch on disk: a clean shutdown saves it, a lossy one (the log's disk is gone) loses it with the
log, so the broker registers with epoch 0 and the controller removes it from the ISR and the
Eligible Leader Replicas until it has caught up (``ProcessUncleanBroker``). Suppose the epoch is
kept where the log is not (a metadata directory on another disk than the log directories) and
survives the loss of the log. ``DataLossShutdown`` below is KIP-966's
(``isrcheck.model.kraft.described.lossy_shutdown``) with that one rule changed. It is written once,
against the KRaft step operations: ``isrcheck check`` runs the straight-line Python generated from
it, ``isrcheck bmc`` and ``isrcheck prove`` the z3 relation derived from it.
"""

from isrcheck.model.kraft import actions as A
from isrcheck.model.kraft.described import offline, stopped
from isrcheck.model.kraft.described_controller import elections
from isrcheck.model.kraft.variants import step_form, variant, variant_model


@step_form("epoch-survives-data-loss", of="DataLossShutdown")
def data_loss_keeps_epoch(x, b):
    """KIP-966's DataLossShutdown; the broker epoch on disk survives the loss of the log."""
    limit = x.config.lossy_shutdowns
    x.require(limit > 0, x.glob("unclean_shutdowns") < limit, x.not_(offline(x, b)))
    stopped(x, b, lossy=True, keep_epoch=True)  # the change: KIP-966 has keep_epoch=False here
    x.gput("unclean_shutdowns", x.glob("unclean_shutdowns") + 1)
    for elected in elections(x, "broker_fenced", b):
        x.emit(A.Shutdown, x.gen.lossy_shutdown, b + 1, False, elected)


def make_model(*, replicas: int = 2, max_records: int = 1, property_set: str = "all"):
    """KIP-966 with one lossy shutdown and one fencing, min.insync.replicas 2, the epoch kept on data loss.

    replicas: number of brokers (each hosts the partition).
    max_records: how many values producers write.
    property_set: which properties (as the classic model's).
    """
    generation = variant("kraft-kip966", name="kip966-epoch-survives-data-loss",
                         forms=("epoch-survives-data-loss",))
    return variant_model(generation, replicas=replicas, max_records=max_records, min_insync_replicas=2,
                         max_fencings=1, max_crashes=1, stops="lossy", property_set=property_set)
