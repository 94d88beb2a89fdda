"""The public packs of configs/public/ (issue 40): every config loads with its files present, and
the brief of each pack (German credit scorecard vs PD model; breast-cancer diagnosis with three
classifiers) takes at most four PDF pages before the full report starts."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pypdf import PdfReader

from reportgen.config import load_config

PUBLIC = Path(__file__).resolve().parents[2] / "configs" / "public"
#: The most pages a brief may take before the full report (report.layout: brief).
BRIEF_PAGES = 4


def test_every_public_config_loads_and_its_files_exist() -> None:
    found = sorted(PUBLIC.glob("*.yaml"))
    assert {p.stem for p in found} >= {"german_credit", "german_credit_brief", "breast_cancer", "breast_cancer_brief"}
    for path in found:
        cfg, _ = load_config(path)
        for m in cfg.models:
            assert Path(m.file).exists(), (path, m.file)
            assert m.reference is None or Path(m.reference).exists(), (path, m.reference)


def _brief_pages(pdf: Path) -> int:
    """Pages before the one where the full report starts ("The full report" heading)."""
    pages = PdfReader(str(pdf)).pages
    return next(i for i, p in enumerate(pages) if "The full report" in (p.extract_text() or ""))


@pytest.mark.slow
@pytest.mark.pdf
@pytest.mark.parametrize("pack", ["german_credit_brief", "breast_cancer_brief"])
def test_a_public_pack_brief_fits_four_pages(pack: str, tmp_path: Path, cli) -> None:
    """The shipped brief config, its files made absolute, 100 resamples (the pack has 500: the
    same text, a quarter of the time) and the full report's summary only: the brief comes before
    the contents and the full report, so its pages do not depend on the sections after it."""
    cfg = yaml.safe_load((PUBLIC / f"{pack}.yaml").read_text(encoding="utf-8"))
    for m in cfg["models"]:
        for key in ("file", "reference"):
            if key in m:
                m[key] = str((PUBLIC / m[key]).resolve())
    cfg["bootstrap"]["resamples"] = 100
    cfg["report"]["sections"] = ["summary"]
    config = tmp_path / f"{pack}.yaml"
    config.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
    out = tmp_path / "out"
    assert cli(["run", str(config), "--out", str(out), "--format", "pdf", "--quiet"]) == 0  # the page count only
    assert 1 <= _brief_pages(out / "report.pdf") <= BRIEF_PAGES
