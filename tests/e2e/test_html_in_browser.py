"""The HTML report in a real browser: Debian's Chromium driven by Playwright.

The demo reports (binary and multiclass), rendered through the CLI, are opened from disk as a
reader opens them. The browser is the system's (``chromium`` on PATH, Debian's package;
``.ci/run`` installs it): Playwright is given its ``executable_path`` and never downloads one.

What is protected: the page loads and is used without a console error or a script error; it asks
for nothing but its own file (a report is read offline, and sent as one file); the sortable tables
sort numbers as numbers both ways (minus signs, thin-space thousands, %, n/a last) and keep rows
whole; every in-page link lands on an element that exists and scrolls it into view, and the inline
figures' references each resolve to one drawing; printed, the page shows every part of the report
the screen shows, and Chromium's PDF of it has every section in order.
"""

from __future__ import annotations

import math
import re
import shutil
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright
from pypdf import PdfReader

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium")


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.fail(
            "Chromium is not installed: these tests drive Debian's browser, not a downloaded one "
            "(apt-get install chromium; .ci/run does it)"
        )
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture(
    scope="module", params=["binary", pytest.param("multiclass", marks=pytest.mark.slow)]
)  # multiclass: its own render
def report(request) -> Path:
    """The demo reports, each rendered once per test run for the other end-to-end tests too
    (tests/renders.py): the binary demo and the multiclass one."""
    if request.param == "binary":
        run = request.getfixturevalue("demo_run")
        assert run.exit_code == 0
        return run.out / "report.html"
    return request.getfixturevalue("multiclass_run") / "report.html"


@dataclass
class Visit:
    """One page of the browser and what it said and asked for since it opened."""

    page: Page
    url: str
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


@pytest.fixture
def visit(browser, report):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    v = Visit(page, report.as_uri())
    page.on("console", lambda m: v.console.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: v.errors.append(str(e)))
    page.on("request", lambda r: v.requests.append(r.url))
    # whatever the page asks for beyond its own file fails (and is recorded above): a report that
    # reached for the network or a sibling file would show it as a console error and a request
    context.route("**/*", lambda route: route.continue_() if route.request.url == v.url else route.abort())
    page.goto(v.url)
    yield v
    context.close()


# ---- reading the page ---------------------------------------------------------------------


def _number(text: str) -> float:
    """A cell's first line as the report prints numbers (U+2212 minus, thin-space thousands, %, 1e-05);
    NaN if none."""
    t = re.sub(r"\s", "", text).replace("\u2212", "-").replace("%", "").replace("+", "")
    try:
        return float(t)
    except ValueError:
        return math.nan


def _column(page: Page, table: int, col: int) -> list[str]:
    """The first line of each body cell of one column of the ``table``-th sortable table."""
    return page.evaluate(
        """([t, c]) => Array.from(document.querySelectorAll('table.sortable')[t].tBodies[0].rows)
             .map(r => r.cells[c].innerText.split('\\n')[0])""",
        [table, col],
    )


def _rows(page: Page, table: int) -> list[str]:
    """The whole text of each body row of the ``table``-th sortable table."""
    return page.evaluate(
        "t => Array.from(document.querySelectorAll('table.sortable')[t].tBodies[0].rows).map(r => r.innerText)", table
    )


def _sortable_columns(page: Page) -> list[tuple[int, int, str]]:
    """(table, column, header) of every header of a sortable table."""
    heads = page.evaluate("""() => Array.from(document.querySelectorAll('table.sortable'))
        .map(t => Array.from(t.tHead.rows[0].cells).map(c => c.innerText.trim()))""")
    return [(t, c, h) for t, row in enumerate(heads) for c, h in enumerate(row)]


def _click_header(page: Page, table: int, col: int) -> None:
    page.locator("table.sortable").nth(table).locator("thead tr").first.locator("th").nth(col).click()


def _expected(cells: list[str], descending: bool) -> list[str]:
    """The order sort.js promises: numbers by value (stable among equals), then the cells without a
    number by text; those go after the numbers whichever the direction."""
    nums = [c for c in cells if not math.isnan(_number(c))]
    texts = [c for c in cells if math.isnan(_number(c))]
    return sorted(nums, key=_number, reverse=descending) + sorted(
        texts, key=lambda s: s.strip().lower(), reverse=descending
    )


# ---- the tests ----------------------------------------------------------------------------


def test_no_console_error_and_no_request_but_the_file_while_read_and_used(visit):
    page = visit.page
    # every handler the page has, run: each sortable header clicked twice, each contents link once
    # (dispatched in the page; the tests below click as a reader does, and check what the clicks did)
    clicks = page.evaluate("""() => { const all = [...document.querySelectorAll('table.sortable thead th'),
                                                     ...document.querySelectorAll('table.sortable thead th'),
                                                     ...document.querySelectorAll('a[href^="#"]')];
                                      all.forEach(e => e.click()); return all.length; }""")
    assert clicks > 20
    page.emulate_media(media="print")
    page.emulate_media(media="screen")
    assert visit.errors == []
    assert visit.console == []
    assert visit.requests == [visit.url]
    # and nothing in the page points elsewhere to be fetched later (an image, a font, a style)
    external = page.evaluate("""() => Array.from(document.querySelectorAll('[src], link[href]'))
        .map(e => e.getAttribute('src') || e.getAttribute('href')).filter(u => !u.startsWith('data:'))""")
    assert external == []


@pytest.mark.slow
def test_sortable_tables_sort_each_column_both_ways(visit):
    page = visit.page
    columns = _sortable_columns(page)
    assert columns, "the report has no sortable table"
    numeric = 0
    for t, c, header in columns:
        before, rows = _column(page, t, c), sorted(_rows(page, t))
        _click_header(page, t, c)
        up = _column(page, t, c)
        assert sorted(_rows(page, t)) == rows, f"table {t}, {header!r}: rows broken up, lost or duplicated"
        _click_header(page, t, c)
        down = _column(page, t, c)
        assert up == _expected(before, descending=False), f"table {t}, {header!r}: not ascending"
        assert down == _expected(before, descending=True), f"table {t}, {header!r}: not descending"
        numeric += len({_number(x) for x in before if not math.isnan(_number(x))}) > 1
    assert numeric >= 3, "the demo should offer several numeric columns to sort"


@pytest.mark.parametrize(
    "report", [pytest.param("multiclass", marks=pytest.mark.slow)], indirect=True
)  # one report's copy of the script
def test_sort_reads_minus_signs_thousands_percent_and_first_lines(browser, report):
    """sort.js as shipped (taken from the rendered report) on the cells the report's formats
    produce (U+2212 minus signs, thin-space thousands, no-break space before %): a sort that took
    U+2212 for text would put the negatives last, one that read "1 234" as text would put it before
    "2", and one keyed by a cell's first node would key a cell that opens with a swatch by nothing."""
    script = re.search(r"<script>(.*?)</script>", report.read_text(encoding="utf-8"), re.DOTALL).group(1)
    rows = [
        ("\u22122.5", "b"),
        ("1\u2009234", "a"),
        ("n/a", "e"),
        ("\u221210", "d"),
        ("2", "c"),
        ("25.9\u00a0%", "f"),
        ("3.5e-05", "g"),
    ]
    # each value with an interval under it, as the per-class AUC cells print theirs
    body = "".join(
        f'<tr><td class="num">{v}<br><span class="small">[{i}, {i + 1}]</span></td>'
        f'<td><span class="swatch"></span>{n}<br><span class="small">[{9 - i}]</span></td></tr>'
        for i, (v, n) in enumerate(rows)
    )
    page = browser.new_page()
    try:
        page.set_content(
            f'<table class="sortable"><thead><tr><th>v</th><th>name</th></tr></thead>'
            f"<tbody>{body}</tbody></table><script>{script}</script>"
        )
        col = """c => Array.from(document.querySelectorAll('tbody tr'))
                       .map(r => r.cells[c].innerText.split('\\n')[0])"""
        page.locator("th").nth(0).click()
        assert page.evaluate(col, 0) == ["\u221210", "\u22122.5", "3.5e-05", "2", "25.9\u00a0%", "1\u2009234", "n/a"]
        page.locator("th").nth(0).click()
        assert page.evaluate(col, 0) == ["1\u2009234", "25.9\u00a0%", "2", "3.5e-05", "\u22122.5", "\u221210", "n/a"]
        page.locator("th").nth(1).click()
        assert page.evaluate(col, 1) == ["a", "b", "c", "d", "e", "f", "g"]
        page.locator("th").nth(1).click()
        assert page.evaluate(col, 1) == ["g", "f", "e", "d", "c", "b", "a"]
    finally:
        page.close()


def test_every_in_page_link_lands_on_its_target(visit):
    page = visit.page
    targets = page.evaluate("""() => Array.from(document.querySelectorAll('a[href^="#"]'))
        .map(a => a.getAttribute('href').slice(1))
        .map(id => [id, !!document.getElementById(decodeURIComponent(id))])""")
    assert targets, "no in-page link"
    assert [t for t, found in targets if not found] == []
    # the inline figures' own references (markers, clip paths): all figures share one document, so
    # an id two figures define must be one drawing, or the second figure shows the first's
    clashes = page.evaluate("""() => {
        const refs = new Set([...document.querySelectorAll('use')]
            .map(u => u.getAttribute('xlink:href') || u.getAttribute('href')));
        document.querySelectorAll('[clip-path], [style*="url(#"]').forEach(e =>
            (e.getAttribute('clip-path') || e.getAttribute('style'))
                .replace(/url\\(#([^)]+)\\)/g, (_, id) => refs.add('#' + id)));
        const drawings = r => new Set([...document.querySelectorAll('[id="' + CSS.escape(r.slice(1)) + '"]')]
            .map(e => e.outerHTML));
        return [...refs].filter(r => r && r.startsWith('#') && drawings(r).size !== 1); }""")
    assert clashes == []
    toc = page.locator("nav.toc a")
    assert toc.count() >= 5
    for i in range(toc.count()):
        href = toc.nth(i).get_attribute("href")
        page.evaluate("window.scrollTo(0, 0)")
        toc.nth(i).click()
        box = page.evaluate(
            """id => { const r = document.getElementById(id).getBoundingClientRect();
                                       return [r.top, r.bottom, window.innerHeight, location.hash]; }""",
            href[1:],
        )
        top, bottom, height, hash_ = box
        assert hash_ == href
        assert bottom > 0 and top < height and top > -1, f"{href}: its target is not in view ({top:.0f} of {height})"


@pytest.mark.slow
def test_print_shows_every_part_the_screen_shows_and_the_pdf_has_every_section(visit):
    page = visit.page
    # the title block and every section's content; the contents list (links) and the colophon
    # (its facts are in the appendix) are for the screen only
    visible = """() => Array.from(document.querySelectorAll('header.titleblock *, main *'))
        .map((e, i) => e.checkVisibility({visibilityProperty: true, opacityProperty: true}) ? i : -1)
        .filter(i => i >= 0)"""
    describe = """idx => { const all = document.querySelectorAll('header.titleblock *, main *');
        return idx.map(i => `${all[i].tagName}.${all[i].className} ${all[i].textContent.trim().slice(0, 60)}`); }"""
    screen = page.evaluate(visible)
    sections = page.evaluate(
        "() => Array.from(document.querySelectorAll('main section[id] > h2')).map(h => h.innerText)"
    )
    toc = page.evaluate("() => Array.from(document.querySelectorAll('nav.toc a')).map(a => a.innerText)")
    page.emulate_media(media="print")
    printed = page.evaluate(visible)
    assert page.evaluate(describe, sorted(set(screen) - set(printed))) == []
    assert len(sections) >= 6 and sections == toc
    # Chromium's own print of the page, on the page size the stylesheet asks for (A4)
    reader = PdfReader(BytesIO(page.pdf(prefer_css_page_size=True)))
    width, height = sorted((float(reader.pages[0].mediabox.width), float(reader.pages[0].mediabox.height)))
    assert (round(width), round(height)) == (595, 842)
    text = re.sub(r"\s+", " ", " ".join(p.extract_text() for p in reader.pages))
    at = 0
    for title in sections:
        found = text.find(title, at)
        assert found >= 0, f"section {title!r} is not in the printed page (after {text[at - 40 : at]!r})"
        at = found + len(title)
