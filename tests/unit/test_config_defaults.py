"""Nested config defaults are built without validation (``model_construct``, so no model is built at
import): each must equal the same model validated from its own dump, fields set included."""

from __future__ import annotations

from pydantic import BaseModel

import reportgen.config as C


def _defaults(model: type[BaseModel]):
    for name, f in model.model_fields.items():
        if isinstance(f.default, BaseModel):
            yield f"{model.__name__}.{name}", f.default


def test_model_defaults_equal_validated_models():
    models = [v for v in vars(C).values() if isinstance(v, type) and issubclass(v, C.Strict)]
    found = [d for m in models for d in _defaults(m)]
    assert len(found) >= 8
    for where, d in found:
        again = type(d).model_validate(d.model_dump(exclude_unset=True))
        assert again == d, where
        assert again.model_fields_set == d.model_fields_set, where
        assert type(d).model_validate(d.model_dump()) == d, where


def test_default_config_sections_equal_explicit_empty_ones():
    base = {"title": "t", "label": "y", "models": [{"name": "a", "file": "a.csv", "score": "s"}]}
    a = C.Config.model_validate(base)
    b = C.Config.model_validate(base | {k: {} for k in ("bootstrap", "output", "report", "stream")} | {"costs": {}})
    assert a == b
