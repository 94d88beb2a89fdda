"""Reductions of loaded rows to :mod:`reportgen.engine.evidence` (one contract for every engine).

The package imports nothing itself (so importing one of its modules never runs another):
:mod:`~reportgen.reduce.accumulators` (add · merge · finish), :mod:`~reportgen.reduce.local`
(the local runner: memory, each file one batch; stream, record batches), :mod:`~reportgen.reduce.dask` (the Dask runner) and
:mod:`~reportgen.reduce.evidence_of` (runner output → evidence; ``ModelRows``, ``compare_rows``).
"""
