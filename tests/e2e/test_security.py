"""Untrusted input must stay data: YAML tags, HTML in names, mathtext, URLs, template paths.

Config files, model names and custom themes come from users; none of them may run code,
inject markup, fetch from the network or the file system, or read files outside a theme.
"""

from __future__ import annotations

import html
import json
import socket
from pathlib import Path
from typing import Any

import pytest
import yaml

from reportgen import cli
from reportgen.errors import ThemeError
from reportgen.report import figures, render
from reportgen.results import ComparisonResult

SCRIPT = "<script>alert(1)</script>"
MATH = r"$x^2$ \alpha \\ back"


def _write_run(tmp_path: Path, names: tuple[str, str]) -> Path:
    data = "id,y,s\n" + "".join(f"{i},{i % 2},{(i * 37 % 101) / 101:.3f}\n" for i in range(1, 41))
    (tmp_path / "a.csv").write_text(data)
    cfg = {
        "title": "security",
        "label": "y",
        "id": "id",
        "bootstrap": {"resamples": 0},
        "report": {"sections": ["summary", "metrics"]},  # names in prose and a table; the rest reads no name
        "models": [
            {"name": names[0], "file": "a.csv", "score": "s"},
            {"name": names[1], "file": "a.csv", "score": "s", "direction": "lower"},
        ],
    }
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _one_error_line(err: str) -> str:
    lines = [x for x in err.splitlines() if not x.startswith("reportgen: warning: ")]  # the run's warnings
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def hostile_result(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """metrics.json of a run whose model names are HTML and mathtext."""
    tmp = tmp_path_factory.mktemp("hostile")
    cfg = _write_run(tmp, (SCRIPT, MATH))
    assert cli.main(["run", str(cfg), "--out", str(tmp / "out"), "--format", "json", "-q"]) == 0
    return tmp / "out" / "metrics.json"


def _result(path: Path) -> ComparisonResult:
    return ComparisonResult.from_json(json.loads(path.read_text()))


# ---- YAML ----------------------------------------------------------------------------


def test_python_yaml_tags_are_refused_and_not_executed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "pwned"
    cfg = tmp_path / "evil.yaml"
    cfg.write_text(f'title: !!python/object/apply:os.system ["touch {marker}"]\nmodels: []\n')
    assert cli.main(["run", str(cfg), "--out", str(tmp_path / "out")]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "evil.yaml:1" in line and "not allowed" in line
    assert not marker.exists()
    assert not (tmp_path / "out").exists()


# ---- HTML and PDF escaping -------------------------------------------------------------


@pytest.mark.slow
def test_model_names_are_escaped_in_html(hostile_result: Path, tmp_path: Path) -> None:
    out = tmp_path / "html"
    assert cli.main(["render", str(hostile_result), "--out", str(out), "--format", "html", "-q"]) == 0
    page = (out / "report.html").read_text()
    assert SCRIPT not in page
    assert html.escape(SCRIPT, quote=False) in page or html.escape(SCRIPT) in page


@pytest.mark.pdf
@pytest.mark.slow
def test_model_names_are_literal_text_in_the_pdf(hostile_result: Path, tmp_path: Path) -> None:
    from pypdf import PdfReader

    out = tmp_path / "pdf"
    assert cli.main(["render", str(hostile_result), "--out", str(out), "--format", "pdf", "-q"]) == 0
    text = "".join(page.extract_text() for page in PdfReader(out / "report.pdf").pages)
    assert SCRIPT in text.replace("\n", "")


# ---- matplotlib mathtext ---------------------------------------------------------------


def test_safe_text_escapes_mathtext() -> None:
    assert figures.safe_text("$x^2$") == r"\$x^2\$"
    assert figures.safe_text("a\\b") == "a\\b"  # outside math, matplotlib keeps backslashes


@pytest.mark.slow
def test_figure_text_shows_names_literally(hostile_result: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # long names are shown by key (M1, M2) in figures; here the names themselves are drawn
    import reportgen.plot

    monkeypatch.setattr(reportgen.plot, "KEY_AFTER", 100)  # the drawing's home reads it
    svgs = figures.render_figures(_result(hostile_result))
    assert svgs
    legend = "\n".join(svgs.values())
    assert html.escape(MATH, quote=False) in legend or MATH in legend
    assert html.escape(SCRIPT, quote=False) in legend and SCRIPT not in legend


@pytest.mark.slow
def test_figures_show_long_names_by_key(hostile_result: Path) -> None:
    result = _result(hostile_result)
    assert figures.uses_keys(list(result.models))  # SCRIPT is longer than KEY_AFTER
    text = "\n".join(figures.render_figures(result).values())
    assert "M1" in text and "M2" in text and SCRIPT not in text and html.escape(SCRIPT, quote=False) not in text


# ---- WeasyPrint URL fetcher ------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/x.png",
        "https://example.com/x.css",
        "file:///etc/passwd",
        "ftp://example.com/x",
        "/etc/passwd",
        "x.png",
    ],
)
def test_url_fetcher_refuses_everything_but_data(url: str) -> None:
    with pytest.raises(ValueError, match="does not fetch"):
        render._refuse_urls(url)


def test_url_fetcher_serves_data_urls() -> None:
    got = render._refuse_urls("data:text/plain;base64,aGk=")
    assert (got["string"], got["mime_type"]) == (b"hi", "text/plain")
    assert render._refuse_urls("data:,a%20b")["string"] == b"a b"


@pytest.mark.slow
def test_weasyprint_fetcher_object_refuses_files_and_network() -> None:
    fetcher = render._url_fetcher()
    for url in ("file:///etc/passwd", "http://example.com/x.png"):
        with pytest.raises(ValueError):
            fetcher(url)


@pytest.mark.slow
@pytest.mark.pdf
def test_theme_with_external_urls_renders_without_fetching(
    no_figures: None, hostile_result: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "report.html").write_text(
        "<html><head><style>{{ css }}</style></head><body><h1>{{ view.title }}</h1>"
        '<img src="http://example.com/x.png"><img src="file:///etc/passwd">'
        '<img src="data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=">'
        '<link rel="stylesheet" href="https://example.com/evil.css"></body></html>\n'
    )
    asked: list[str] = []
    real_fetcher = render._refuse_urls

    def spy(url: str, *a: Any, **k: Any) -> dict[str, Any]:
        asked.append(url)
        return real_fetcher(url, *a, **k)

    def no_network(*a: Any, **k: Any) -> Any:
        raise AssertionError("rendering opened a network connection")

    monkeypatch.setattr(render, "_refuse_urls", spy)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)

    out = tmp_path / "out"
    assert (
        cli.main(["render", str(hostile_result), "--theme", str(theme), "--out", str(out), "--format", "pdf", "-q"])
        == 0
    )
    assert (out / "report.pdf").read_bytes().startswith(b"%PDF")
    # every URL went through reportgen's fetcher, which refuses all but data: URLs
    assert "http://example.com/x.png" in asked and "file:///etc/passwd" in asked
    assert any(u.startswith("data:") for u in asked)


# ---- template confinement --------------------------------------------------------------


@pytest.mark.parametrize("include", ["../secret.html", "/etc/passwd", "sections/../../secret.html", "..\\secret.html"])
def test_theme_cannot_include_files_outside_itself(
    no_figures: None, include: str, hostile_result: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "secret.html").write_text("TOP SECRET\n")
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "report.html").write_text(f'<p>{{% include "{include}" %}}</p>\n')
    out = tmp_path / "out"
    code = cli.main(["render", str(hostile_result), "--theme", str(theme), "--out", str(out), "--format", "html"])
    line = _one_error_line(capsys.readouterr().err)
    assert code == 2
    assert "outside the template directory" in line
    assert not (out / "report.html").exists()


def test_theme_symlink_out_of_the_directory_is_refused(
    no_figures: None, hostile_result: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "secret.html").write_text("TOP SECRET\n")
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "leak.html").symlink_to(tmp_path / "secret.html")
    (theme / "report.html").write_text('<p>{% include "leak.html" %}</p>\n')
    code = cli.main(
        ["render", str(hostile_result), "--theme", str(theme), "--out", str(tmp_path / "out"), "--format", "html"]
    )
    assert code == 2
    assert "outside the template directory" in _one_error_line(capsys.readouterr().err)


def test_theme_syntax_error_is_a_user_error(
    no_figures: None, hostile_result: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "report.html").write_text("<p>\n{% if %}\n</p>\n")
    code = cli.main(
        ["render", str(hostile_result), "--theme", str(theme), "--out", str(tmp_path / "out"), "--format", "html"]
    )
    line = _one_error_line(capsys.readouterr().err)
    assert code == 2
    assert "report.html:2" in line and "template syntax error" in line


def test_confined_loader_raises_theme_error(tmp_path: Path) -> None:
    env = render.make_environment(render.Theme(template_dir=tmp_path))
    with pytest.raises(ThemeError):
        env.get_template("../x.html")


# ---- the sandbox: no code from data (issue 18) -----------------------------------------

SSTI_PAYLOADS = [
    "{{ cycler.__init__.__globals__.os.popen('touch MARKER').read() }}",
    "{{ joiner.__init__.__globals__['os'].system('touch MARKER') }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ view.__class__.__init__.__globals__ }}",
    "{% set x = view.update({'title': 'mutated'}) %}{{ x }}",
]


@pytest.mark.parametrize("payload", SSTI_PAYLOADS)
def test_hostile_theme_runs_no_code(
    no_figures: None, payload: str, hostile_result: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "pwned"
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "report.html").write_text("<p>" + payload.replace("MARKER", str(marker)) + "</p>\n")
    out = tmp_path / "out"
    code = cli.main(["render", str(hostile_result), "--theme", str(theme), "--out", str(out), "--format", "html"])
    assert not marker.exists()
    assert code == 2
    line = _one_error_line(capsys.readouterr().err)
    assert str(theme) in line
    assert not (out / "report.html").exists()


@pytest.mark.parametrize(
    "payload", ["{{ 'a' * 100000000 }}", "{{ 100000000 * 'ab' }}", "{{ [0] * 10**8 }}", "{{ 10 ** 100000000 }}"]
)
def test_a_theme_cannot_build_a_huge_value(
    no_figures: None, payload: str, hostile_result: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Jinja's sandbox bounds range() only: a theme's 'a' * 10^8 wrote a 100 MB report, exit 0."""
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "report.html").write_text("<p>" + payload + "</p>\n")
    out = tmp_path / "out"
    code = cli.main(["render", str(hostile_result), "--theme", str(theme), "--out", str(out), "--format", "html"])
    line = _one_error_line(capsys.readouterr().err)
    assert code == 2 and str(theme) in line and ("repetition" in line or "power" in line)
    assert not (out / "report.html").exists()


def test_a_theme_may_still_repeat_a_little(no_figures: None, hostile_result: Path, tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "report.html").write_text("<p>{{ '-' * 40 }}{{ 2 ** 10 }}{{ 3 * 4 }}</p>\n")
    out = tmp_path / "out"
    assert cli.main(["render", str(hostile_result), "--theme", str(theme), "--out", str(out), "--format", "html"]) == 0
    assert "-" * 40 + "1024" + "12" in (out / "report.html").read_text()


def test_hostile_metrics_json_template_dir_is_never_used(
    no_figures: None, hostile_result: Path, tmp_path: Path
) -> None:
    """A received metrics.json naming a template directory: render ignores it (only --theme counts)."""
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil_theme"
    evil.mkdir()
    (evil / "report.html").write_text(
        "{{ cycler.__init__.__globals__.os.popen('touch " + str(marker) + "').read() }}EVIL THEME\n"
    )
    logo_secret = tmp_path / "secret.png"
    logo_secret.write_bytes(b"\x89PNG\r\n\x1a\nTOP-SECRET-BYTES")
    doc = json.loads(hostile_result.read_text())
    doc["run"]["config"].setdefault("report", {})
    doc["run"]["config"]["report"]["template_dir"] = str(evil)
    doc["run"]["config"]["report"]["logo"] = str(logo_secret)
    received = tmp_path / "received.json"
    received.write_text(json.dumps(doc))
    out = tmp_path / "out"
    # an edited file (its digest no longer matches): rendered only when asked, and even then no path in it is opened
    assert cli.main(["render", str(received), "--out", str(out), "--format", "html", "-q", "--allow-edited"]) == 0
    page = (out / "report.html").read_text()
    assert not marker.exists()
    assert "EVIL THEME" not in page
    assert "data:image/png" not in page  # the logo named in the JSON is not opened


def test_config_template_dir_is_sandboxed(no_figures: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "pwned"
    cfg = _write_run(tmp_path, ("a", "b"))
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "report.html").write_text(
        "{{ cycler.__init__.__globals__.os.popen('touch " + str(marker) + "').read() }}\n"
    )
    doc = yaml.safe_load(cfg.read_text())
    doc["report"]["template_dir"] = "theme"
    cfg.write_text(yaml.safe_dump(doc))
    code = cli.main(["run", str(cfg), "--out", str(tmp_path / "out"), "--format", "html"])
    assert not marker.exists()
    assert code == 2
    _one_error_line(capsys.readouterr().err)


def test_html_carries_a_policy_that_fetches_nothing(no_figures: None, hostile_result: Path, tmp_path: Path) -> None:
    """Even a theme whose page has no <head> gets the Content-Security-Policy, first."""
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "report.html").write_text('<img src="https://example.com/x.png"><style>{{ css }}</style>\n')
    out = tmp_path / "out"
    assert (
        cli.main(["render", str(hostile_result), "--theme", str(theme), "--out", str(out), "--format", "html", "-q"])
        == 0
    )
    page = (out / "report.html").read_text()
    assert page.startswith('<meta http-equiv="Content-Security-Policy" content="default-src \'none\';')
    out2 = tmp_path / "out2"
    assert cli.main(["render", str(hostile_result), "--out", str(out2), "--format", "html", "-q"]) == 0
    shipped = (out2 / "report.html").read_text()
    head = shipped[: shipped.index("</head>")]
    assert "Content-Security-Policy" in head and "script-src 'sha256-" in head


# ---- the logo (issue 18) ---------------------------------------------------------------


def _logo_run(tmp_path: Path, logo: str) -> Path:
    cfg = _write_run(tmp_path, ("a", "b"))
    doc = yaml.safe_load(cfg.read_text())
    doc["report"]["logo"] = logo
    cfg.write_text(yaml.safe_dump(doc))
    return cfg


def test_logo_symlink_to_a_secret_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path.parent / f"{tmp_path.name}-secret.txt"
    secret.write_text("password=hunter2\n")
    (tmp_path / "logo.png").symlink_to(secret)
    cfg = _logo_run(tmp_path, "logo.png")
    code = cli.main(["run", str(cfg), "--out", str(tmp_path / "out"), "--format", "html"])
    assert code == 2
    assert "outside the config's directory" in _one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("name", "data", "expect"),
    [
        ("logo.png", b"password=hunter2\n", "not a PNG, JPEG, GIF or SVG"),
        ("logo.svg", b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "active or external"),
        (
            "logo.svg",
            b'<svg xmlns="http://www.w3.org/2000/svg"><image href="file:///etc/passwd"/></svg>',
            "active or external",
        ),
        ("logo.svg", b'<svg onload="alert(1)" xmlns="http://www.w3.org/2000/svg"/>', "active or external"),
        ("logo.png", b"\x89PNG\r\n\x1a\n" + b"0" * 1_000_001, "at most"),
    ],
)
def test_logo_bytes_are_checked(
    name: str, data: bytes, expect: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / name).write_bytes(data)
    cfg = _logo_run(tmp_path, name)
    code = cli.main(["run", str(cfg), "--out", str(tmp_path / "out"), "--format", "html"])
    assert code == 2
    assert expect in _one_error_line(capsys.readouterr().err)


def test_plain_svg_logo_is_inlined(no_figures: None, tmp_path: Path) -> None:
    (tmp_path / "logo.svg").write_bytes(
        b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" '
        b'height="10"><rect width="10" height="10" fill="#036"/></svg>'
    )
    cfg = _logo_run(tmp_path, "logo.svg")
    assert cli.main(["run", str(cfg), "--out", str(tmp_path / "out"), "--format", "html", "-q"]) == 0
    assert "data:image/svg+xml;base64," in (tmp_path / "out" / "report.html").read_text()


@pytest.mark.slow
@pytest.mark.pdf
def test_pdf_rendering_leaves_other_libraries_loggers_as_configured(
    no_figures: None, hostile_result: Path, tmp_path: Path
) -> None:
    """render_pdf set the weasyprint and fontTools loggers to ERROR for the whole process (issue 18)."""
    import logging

    for name in ("weasyprint", "fontTools"):
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        assert cli.main(["render", str(hostile_result), "--out", str(tmp_path / "o"), "--format", "pdf", "-q"]) == 0
        assert logging.getLogger("weasyprint").level == logging.DEBUG
        assert logging.getLogger("fontTools").level == logging.DEBUG
    finally:
        for name in ("weasyprint", "fontTools"):
            logging.getLogger(name).setLevel(logging.NOTSET)
