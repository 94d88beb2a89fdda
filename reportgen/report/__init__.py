"""The report layer: everything between a frozen :class:`~reportgen.results.ComparisonResult`
and the files a reader gets (view model, number formats, wording, figures, HTML, PDF, JSON, the
atomic report-set writer). It computes no metric; nothing upstream (config, io, reduce, engine)
imports it."""
