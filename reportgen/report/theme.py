"""How a report is rendered, as whoever renders it chose (:class:`Theme`): a leaf of the report
layer that the views, the writer and the renderer all import, so none of them imports another
for it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen.config import REPORT_SECTIONS, ReportConfig
from reportgen.config_base import InvalidConfig, validated
from reportgen.errors import ResultError
from reportgen.results import DigestStatus
from reportgen.value import Value

SECTIONS = REPORT_SECTIONS


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Provenance(Value):
    """Where a pack is written and, when it is re-rendered from a saved ``metrics.json``, from
    what: given by whoever renders it (the writer, ``reportgen render``), never read from a result,
    so a result renders the same wherever it is written but for these lines."""

    #: the directory the report set is written to (absolute), None when the page is not written
    #: into a report set (a notebook, a test)
    output_dir: str | None = None
    #: a re-render: the ``metrics.json`` rendered (as given), when (ISO 8601, UTC) and its digest
    source: str | None = None
    rendered: str | None = None
    digest: DigestStatus | None = None


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Theme(Value):
    """How a report is rendered, as whoever renders it chose: an optional template directory,
    palette, logo and section list, the layout (``brief``: the sign-off brief first, with
    ``block_on`` its recommendation rule's light), and the pack's provenance (where it is written
    and, for a re-render, from what: the audit trail's lines and the mark on every page of a pack
    from an edited or unverified metrics.json)."""

    template_dir: Path | None = None
    palette: tuple[str, ...] | None = None
    logo: Path | None = None
    sections: tuple[str, ...] = SECTIONS
    provenance: Provenance = Provenance()
    layout: str = "full"
    block_on: str = "red"
    #: ``report.domain``: the report's words (None: by the run, :func:`reportgen.report.wording.vocabulary`)
    domain: str | None = None

    @classmethod
    def from_config(cls, report: dict[str, Any] | None, template_dir: Path | None = None) -> Theme:
        """The theme of a config's ``report`` section, as the user wrote it for this run.

        ``template_dir`` (``--theme``) wins over the config's. A logo or template directory that
        no longer exists is left out. Never call this on a ``report`` section read from a
        received ``metrics.json``: use :meth:`from_saved_result`, which takes no path from it.
        """
        r = report or {}
        tdir = template_dir or (Path(r["template_dir"]) if r.get("template_dir") else None)
        logo = Path(r["logo"]) if r.get("logo") else None
        return cls(
            template_dir=tdir if tdir is None or tdir.is_dir() else None,
            palette=tuple(r["palette"]) if r.get("palette") else None,
            logo=logo if logo is not None and logo.is_file() else None,
            sections=tuple(r["sections"]) if r.get("sections") else SECTIONS,
            layout=r.get("layout") or "full",
            block_on=(r.get("recommendation") or {}).get("block_on") or "red",
            domain=r.get("domain"),
        )

    @classmethod
    def from_saved_result(
        cls,
        report: Any,
        template_dir: Path | None = None,
        logo: Path | None = None,
        source: str = "metrics.json",
        provenance: Provenance = Provenance(),
    ) -> Theme:
        """The theme for re-rendering a saved ``metrics.json`` (``reportgen render``).

        A received file is data: its palette and section list are taken, checked by the config's
        own rules (colours ``#rrggbb``, sections among :data:`REPORT_SECTIONS`; a value that
        breaks them is a :class:`~reportgen.errors.ResultError` naming its JSON path, never a
        crash in the figures nor a section silently left out), but no path in it is ever opened —
        the template directory comes only from ``--theme`` and the logo only from ``--logo``, both
        given by the person running the command, as is ``provenance``.
        """
        if report is None:
            report = {}
        if not isinstance(report, dict):
            raise ResultError(f"{source}: run.config.report: expected an object or null, found {_found_json(report)}")
        looks = {
            k: report[k]
            for k in ("palette", "sections", "layout", "recommendation", "domain")
            if report.get(k) is not None
        }
        try:
            checked = validated(ReportConfig, looks)
        except InvalidConfig as exc:
            p = exc.problems[0]
            where = "run.config.report" + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in p.loc)
            found = f" (found {_found_json(p.found)})" if p.quotes else ""
            raise ResultError(f"{source}: {where}: {p.message}{found}") from None
        return cls(
            template_dir=template_dir,
            palette=tuple(checked.palette) if checked.palette else None,
            logo=logo,
            sections=tuple(checked.sections) if checked.sections else SECTIONS,
            provenance=provenance,
            layout=checked.layout,
            block_on=checked.recommendation.block_on,
            domain=checked.domain,
        )


def _found_json(value: Any) -> str:
    """A found value for a one-line message: its repr, shortened."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


__all__ = ["SECTIONS", "Provenance", "Theme"]
