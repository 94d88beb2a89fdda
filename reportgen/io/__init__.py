"""The one reading-and-validation layer every engine uses (memory, stream, dask; both tasks).

* :mod:`reportgen.io.files`: file kinds, the columns a file has, Parquet datasets and their
  parts (each part must hold every column read), CSV read options with explicit column types,
  record batches, hashing and the audit record of an input;
* :mod:`reportgen.io.validate`: the columns a model reads, label and id keys (one
  normalisation rule), numbers, and the row rules with their one-line messages;
* :mod:`reportgen.io.align`: the id join (``id_mismatch: error | intersect``) and the notes
  that say why rows could not be paired.

It imports :mod:`reportgen.config` and :mod:`reportgen.errors` only, never an engine or the
report, so every source module can import it without cycles.
"""
