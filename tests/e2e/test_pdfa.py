"""``--pdf-variant pdf/a-3b`` (issue 21): an archival PDF/A-3b, tagged, with the run's
``metrics.json`` embedded; read back with pypdf. On the small snapshot fixture (a layout of
the demo takes a minute on a loaded machine; the variant changes nothing of the layout)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

import reportgen.cli as cli_module
import reportgen.report.render as render
import reportgen.report.stored_curves as export
from reportgen.report.theme import Theme
from reportgen.report.writer import write_outputs
from reportgen.results import ComparisonResult

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "snapshots"))
from snapshot_fixtures import fixture_path

pytestmark = [pytest.mark.slow]


def _archival(pdf: Path) -> PdfReader:
    reader = PdfReader(pdf)
    root = reader.trailer["/Root"]
    xmp = root["/Metadata"].get_object().get_data()
    # XMP identification (ISO 19005-3, 6.6.4), as an attribute or an element
    assert re.search(rb'pdfaid:part(="|>)3', xmp) and re.search(rb'pdfaid:conformance(="|>)B', xmp)
    assert "/OutputIntents" in root  # the sRGB output intent PDF/A requires
    import weasyprint

    if "pdf_tags" in weasyprint.DEFAULT_OPTIONS:  # WeasyPrint >= 67 tags the structure
        assert "/StructTreeRoot" in root and root["/MarkInfo"]["/Marked"]
    return reader


@pytest.mark.pdf
def test_run_writes_pdf_a_3b_with_its_metrics_json_embedded(no_figures: None, tmp_path: Path) -> None:
    result = ComparisonResult.from_json(json.loads(fixture_path("binary").read_text(encoding="utf-8")))
    out = write_outputs(
        result,
        tmp_path / "out",
        ["pdf", "json"],
        theme=Theme(sections=("summary",)),  # a few pages
        pdf_variant="pdf/a-3b",
    )
    reader = _archival(out["pdf"])
    [attached] = reader.attachments["metrics.json"]
    assert attached == out["json"].read_bytes()  # the very file written beside the PDF
    assert json.loads(attached) == export.for_json(result).to_json()  # the stored (simplified) curves


@pytest.mark.pdf
def test_render_embeds_the_metrics_json_it_was_given_byte_for_byte(no_figures: None, tmp_path: Path, cli) -> None:
    saved = tmp_path / "metrics.json"
    shutil.copyfile(fixture_path("binary"), saved)
    assert cli(["render", str(saved), "--format", "pdf", "--pdf-variant", "pdf/a-3b", "--quiet"]) == 0
    reader = _archival(tmp_path / "report.pdf")
    assert reader.attachments["metrics.json"] == [saved.read_bytes()]


def test_the_variants_agree_and_an_unknown_one_is_refused(tmp_path: Path) -> None:
    assert cli_module.PDF_VARIANTS == render.PDF_VARIANTS
    with pytest.raises(ValueError, match="unknown PDF variant"):
        render.render_pdf("<p>x</p>", tmp_path / "x.pdf", variant="pdf/a-1b")


def test_an_unknown_variant_is_an_argparse_error(cli, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli(["run", "x.yaml", "--pdf-variant", "pdf/x"])
    assert exc.value.code == 2 and "invalid choice" in capsys.readouterr().err
