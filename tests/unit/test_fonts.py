"""Characters no installed font can draw: found by asking Fontconfig (``fc-list``), reported in one warning."""

from __future__ import annotations

import logging

import pytest

from reportgen.report import fonts


def _fontconfig_works() -> bool:
    return fonts._fontconfig() is not None


needs_fontconfig = pytest.mark.skipif(not _fontconfig_works(), reason="Fontconfig cannot be asked here")


@needs_fontconfig
def test_a_private_use_character_has_no_font_and_latin_text_needs_no_query():
    # U+E000 is private use: no font of a server has it; ASCII is never looked up
    assert fonts.undrawable(["model a \ue000 b", "\ue000"]) == ["\ue000"]
    assert fonts.undrawable(["champion vs challenger: Gini 0.42 [0.40, 0.44]"]) == []


@needs_fontconfig
def test_the_reports_own_symbols_are_drawable_where_the_pdf_is_made():
    # the templates' own characters (the PDF's fonts must have them, or every report prints boxes)
    assert fonts.undrawable(["Δ ≤ ≥ — – ± × · ² … → ✓ é"]) == []


def test_invisible_characters_need_no_font(monkeypatch):
    asked: list[str] = []
    monkeypatch.setattr(fonts, "_has_font", lambda ch: asked.append(ch) or False)
    # bidi isolates around names, a zero-width joiner, a variation selector, spaces, controls
    assert fonts.undrawable(["\u2068name\u2069 \u200d\ufe0f\u00a0\t\n"]) == []
    assert asked == []


def test_each_character_once_in_order_of_appearance(monkeypatch):
    monkeypatch.setattr(fonts, "_has_font", lambda ch: ch not in "模型者")
    assert fonts.undrawable(["者 模型A", "模型B Модель"]) == ["者", "模", "型"]


def test_the_warning_names_the_characters_and_what_to_install():
    assert fonts.undrawable_warning([]) is None
    text = fonts.undrawable_warning(["挑", "战"])
    assert "挑 (U+6311), 战 (U+6218)" in text and "fonts-noto-cjk" in text and "\n" not in text
    many = fonts.undrawable_warning([chr(0x4E00 + i) for i in range(fonts.SHOWN + 3)])
    assert many.count("(U+") == fonts.SHOWN and "and 3 more" in many


def test_fc_lists_charsets_are_read_as_merged_ranges():
    # two fonts' charsets as fc-list prints them: single code points and ranges, overlapping
    ranges = fonts._ranges("20-7e a0-17f 2010\n41-5a 180-24f 2012-2013\n")
    assert ranges == [(0x20, 0x7E), (0xA0, 0x24F), (0x2010, 0x2010), (0x2012, 0x2013)]
    covered = [
        cp
        for cp in (0x1F, 0x20, 0x7E, 0x7F, 0x24F, 0x250, 0x2010, 0x2011, 0x2013, 0x2014)
        if fonts._covered(ranges, cp)
    ]
    assert covered == [0x20, 0x7E, 0x24F, 0x2010, 0x2013]
    assert not fonts._covered([], 0x41)


def test_no_fontconfig_reports_nothing(monkeypatch):
    monkeypatch.setattr(fonts, "_fontconfig", lambda: None)
    fonts._has_font.cache_clear()
    try:
        assert fonts.undrawable(["\ue000 模型"]) == []
    finally:
        fonts._has_font.cache_clear()


@needs_fontconfig
def test_render_pdf_warns_once_for_a_name_without_font(tmp_path, caplog):
    from reportgen.report import render

    html = "<html><body><h1>Model \ue000\ue001</h1><p>Gini 0.42</p></body></html>"
    with caplog.at_level(logging.WARNING, logger="reportgen.report.render"):
        render.render_pdf(html, tmp_path / "a.pdf")
    warned = [r.getMessage() for r in caplog.records if "no installed font" in r.getMessage()]
    assert len(warned) == 1 and "U+E000" in warned[0] and "U+E001" in warned[0]
    assert (tmp_path / "a.pdf").stat().st_size > 0
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="reportgen.report.render"):
        render.render_pdf("<html><body><p>Модель α</p></body></html>", tmp_path / "c.pdf")
    assert not [r for r in caplog.records if "no installed font" in r.getMessage()]
