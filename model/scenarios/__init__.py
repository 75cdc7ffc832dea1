"""The bug catalogue (docs/bugs.md) as named scenarios, registered in the ``isrcheck.scenarios``
entry-point group: ``classic`` (the protocol generations' holes), ``durability`` (acks, stops,
unclean election) and ``consumers`` (consumer reads, truncation on fetch, racks)."""
