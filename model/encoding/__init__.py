"""How a state of the replication model is stored and shown: the field table (``fields``), the
classic fields' index arithmetic (``state``), logs as integer codes (``logs``), replica symmetry
(``symmetry``), the named view for traces and ITF (``view``) and operator signals (``signals``)."""
