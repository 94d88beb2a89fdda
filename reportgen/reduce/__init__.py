"""Reductions of loaded rows to :mod:`reportgen.engine.evidence` (one contract for every engine).

The package imports nothing itself (so importing one of its modules never runs another):
:mod:`~reportgen.reduce.accumulators` (add · merge · finish; :mod:`~reportgen.reduce.class_counts`
for multiclass, :mod:`~reportgen.reduce.cells` the weight cells of both), :mod:`~reportgen.reduce.local`
(the local runner: memory, each file one batch; stream, record batches),
:mod:`~reportgen.reduce.dask` (the Dask runner), :mod:`~reportgen.reduce.evidence_of` (the
runners' finished accumulators → evidence) and :mod:`~reportgen.reduce.rows` (models given as
arrays: ``ModelRows``, ``evidence_of_rows``, ``compare_rows``).
"""
