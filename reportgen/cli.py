"""Command line: ``reportgen run | validate | render``. The only place that prints or exits.

Exit codes: 0 success, 2 a user error (config, data, output), 1 an internal error. A user
error prints one line ``reportgen: error: <where>: <what> ; <what to do>`` and no traceback
unless ``--debug``. ``run`` takes several configs; the exit code is the worst of them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from reportgen import __version__
from reportgen.errors import ReportgenError, UserError

EXIT_OK, EXIT_INTERNAL, EXIT_USER = 0, 1, 2


def _parse_formats(text: str) -> list[str]:
    from reportgen.render import FORMATS  # noqa: PLC0415

    items = [f.strip().lower() for f in text.split(",") if f.strip()]
    bad = [f for f in items if f not in FORMATS]
    if bad or not items:
        raise argparse.ArgumentTypeError(f"unknown format {', '.join(bad) or text!r}; choose from {', '.join(FORMATS)}")
    return items


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="reportgen",
        description="Compare classification models and write the evidence up as HTML, PDF and metrics.json.",
        epilog="Exit codes: 0 success, 2 bad config/data/output, 1 internal error. Docs: README.md",
    )
    p.add_argument("--version", action="version", version=f"reportgen {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks")
    common.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors")

    run = sub.add_parser("run", parents=[common], help="compare the models of one or more configs and write reports")
    run.add_argument("configs", nargs="+", metavar="CONFIG", help="YAML config file(s)")
    run.add_argument("--out", metavar="DIR", help="output directory (default: output.dir of the config); "
                     "with several configs, each writes to DIR/<config name>")
    run.add_argument("--format", dest="formats", type=_parse_formats, metavar="LIST",
                     help="comma-separated subset of html,pdf,json (default: output.formats of the config)")
    run.add_argument("--overwrite", action="store_true", help="replace an existing report in the output directory")
    run.add_argument("--now", metavar="ISO8601", help="pin the report's timestamp (reproducible output)")
    run.add_argument("--engine", choices=("memory", "stream", "dask"),
                     help="memory (default), stream (record batches, bounded memory) or dask (a cluster)")
    run.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler (tcp://host:8786); default: a local cluster")

    val = sub.add_parser("validate", parents=[common], help="check configs and their data; render nothing")
    val.add_argument("configs", nargs="+", metavar="CONFIG")

    ren = sub.add_parser("render", parents=[common], help="re-render a report from a saved metrics.json")
    ren.add_argument("result", metavar="METRICS_JSON")
    ren.add_argument("--out", metavar="DIR", help="output directory (default: the directory of METRICS_JSON)")
    ren.add_argument("--format", dest="formats", type=_parse_formats, default=["html", "pdf"], metavar="LIST")
    ren.add_argument("--theme", metavar="DIR", help="template directory overriding any template or report.css")
    ren.add_argument("--logo", metavar="FILE", help="logo to show (the one named in the JSON is never opened)")
    ren.add_argument("--overwrite", action="store_true", default=True, help=argparse.SUPPRESS)
    return p


class _Printer:
    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet

    def info(self, msg: str) -> None:
        if not self.quiet:
            print(msg, flush=True)

    def error(self, msg: str) -> None:
        # a message quoting data or a library must stay one line: every line break (\n, \r, \v,
        # \f, \x1c-\x1e, \x85, \u2028, \u2029 — what str.splitlines splits on) becomes a space
        one_line = " ".join(msg.splitlines())
        print(f"reportgen: error: {one_line}", file=sys.stderr, flush=True)

    def progress(self, label: str):
        if self.quiet or not sys.stderr.isatty():
            return None
        start = time.monotonic()

        def show(done: int, total: int) -> None:
            if time.monotonic() - start < 1.0 and done < total:
                return
            width = 30
            filled = int(width * done / max(total, 1))
            sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
            if done >= total:
                sys.stderr.write("\n")
            sys.stderr.flush()

        return show


def _output_dir(cfg, config_path: Path, out: str | None, several: bool, run_id: str, created: str) -> Path:
    if out:
        base = Path(out)
        return base / config_path.stem if several else base
    # placeholders were checked when the config was loaded (OutputConfig)
    text = cfg.output.dir.format(config=config_path.stem, date=created[:10], run_id=run_id)
    return Path(text)


def _run_one(path: str, args: argparse.Namespace, printer: _Printer, several: bool) -> int:
    from reportgen.config import load_config  # noqa: PLC0415
    from reportgen.pipeline import analyse  # noqa: PLC0415
    from reportgen.render import Theme, write_outputs  # noqa: PLC0415

    cfg, cfg_path = load_config(path)
    overrides = {k: v for k, v in (("engine", args.engine), ("scheduler", args.scheduler)) if v is not None}
    if overrides:
        cfg = cfg.with_overrides(**overrides)
    label = "bootstrap" if cfg.engine == "memory" else f"{cfg.engine} passes"
    result = analyse(cfg, cfg_path, printer.progress(f"{cfg_path.name}: {label}"))
    out_dir = _output_dir(cfg, cfg_path, args.out, several, result.run.run_id, result.run.created)
    formats = args.formats or list(cfg.output.formats)
    theme = Theme.from_config(cfg.report.model_dump(mode="json"))
    targets = write_outputs(result, out_dir, formats, theme=theme, overwrite=args.overwrite or cfg.output.overwrite)
    for w in result.run.warnings:
        printer.info(f"warning: {w}")
    printer.info(f"{cfg_path}: wrote {', '.join(str(p) for p in targets.values())}")
    return EXIT_OK


def _validate_one(path: str, printer: _Printer) -> int:
    from reportgen.config import load_config  # noqa: PLC0415
    from reportgen.sources import load_dataset  # noqa: PLC0415

    cfg, cfg_path = load_config(path)
    if cfg.engine != "memory":  # bounded memory: the plan and the first batch of each file
        if cfg.task == "multiclass":
            from reportgen.sources_stream_multiclass import check_first_batches  # noqa: PLC0415
        else:
            from reportgen.sources_stream import check_first_batches  # noqa: PLC0415
        checked = check_first_batches(cfg)
        first = ", ".join(f"{p} ({n} rows)" for p, n in checked.items())
        printer.info(f"{cfg_path}: OK — {len(cfg.models)} model(s), task {cfg.task}, engine: {cfg.engine}: "
                     f"files, columns and every part checked; the first batch of each file is valid: {first}")
        return EXIT_OK
    data = load_dataset(cfg)
    for w in data.warnings:
        printer.info(f"warning: {w}")
    for name, reason, rows in data.dropped:
        printer.info(f"warning: model '{name}': {rows} row(s) would be dropped ({reason})")
    rows = data.models[0].n
    printer.info(f"{cfg_path}: OK — {len(data.models)} model(s), {rows} rows each, task {cfg.task}")
    return EXIT_OK


def _render(args: argparse.Namespace, printer: _Printer) -> int:
    from reportgen.render import Theme, load_result, write_outputs  # noqa: PLC0415

    result = load_result(args.result)
    d = None
    if args.theme:
        d = Path(args.theme)
        if not d.is_dir():
            raise UserError(f"{d}: --theme must be a directory of templates")
    logo = None
    if args.logo:
        logo = Path(args.logo)
        if not logo.is_file():
            raise UserError(f"{logo}: --logo must be an image file (PNG, JPEG, GIF or SVG)")
    # Nothing in a received metrics.json names a file that is opened: templates come only from
    # --theme, the logo only from --logo.
    theme = Theme.from_saved_result(result.run.config.get("report"), template_dir=d, logo=logo)
    out = Path(args.out) if args.out else Path(args.result).parent
    formats = [f for f in args.formats if f != "json"]
    targets = write_outputs(result, out, formats, theme=theme, overwrite=True)
    printer.info(f"{args.result}: wrote {', '.join(str(p) for p in targets.values())}")
    return EXIT_OK


def _guarded(fn, label: str, printer: _Printer, debug: bool) -> int:
    try:
        return fn()
    except UserError as exc:
        if debug:
            traceback.print_exc()
        printer.error(str(exc))
        return EXIT_USER
    except ReportgenError as exc:
        if debug:
            traceback.print_exc()
        printer.error(f"{label}: {exc}")
        return exc.exit_code
    except KeyboardInterrupt:
        printer.error(f"{label}: interrupted; nothing was written")
        return 130
    except MemoryError:
        printer.error(f"{label}: out of memory; try fewer bootstrap resamples or a larger machine")
        return EXIT_INTERNAL
    except Exception as exc:  # a bug: say so, show the traceback only with --debug
        if debug:
            traceback.print_exc()
        printer.error(f"{label}: internal error ({type(exc).__name__}: {exc}); rerun with --debug and report it")
        return EXIT_INTERNAL


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USER
    printer = _Printer(args.quiet)
    if getattr(args, "now", None):
        os.environ["REPORTGEN_NOW"] = args.now
    if args.command == "render":
        return _guarded(lambda: _render(args, printer), args.result, printer, args.debug)
    worst = EXIT_OK
    several = len(args.configs) > 1
    for path in args.configs:
        if args.command == "run":
            code = _guarded(lambda p=path: _run_one(p, args, printer, several), path, printer, args.debug)
        else:
            code = _guarded(lambda p=path: _validate_one(p, printer), path, printer, args.debug)
        worst = max(worst, code) if code != 130 else 130
    return worst


def entrypoint() -> None:  # pragma: no cover - thin wrapper for the console script
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    entrypoint()
