"""What the command prints about where it wrote, whatever the path's bytes and the terminal's encoding."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def small_config(folder: Path) -> Path:
    rows = "".join(f"{i},{i % 2},{(i * 37 % 100) / 100}\n" for i in range(1, 41))
    (folder / "a.csv").write_text("id,y,s\n" + rows, encoding="utf-8")
    cfg = {
        "title": "t",
        "label": "y",
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["json"]},
        "models": [{"name": "a", "file": "a.csv", "score": "s"}],
    }
    path = folder / "q.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="a file name that is not UTF-8: Linux keeps the bytes")
def test_a_report_written_to_a_path_that_is_not_utf8_is_exit_0_and_names_it_by_its_bytes(tmp_path) -> None:
    """Under a UTF-8 locale Python's stdout is strict: printing "wrote caf<0xE9>/metrics.json"
    raised UnicodeEncodeError after the report was written (exit 1, "internal error"). The byte
    is shown as ``\\xe9``, on stdout and in an error line alike."""
    cfg = small_config(tmp_path)
    out = os.fsdecode(os.fsencode(str(tmp_path)) + b"/caf\xe9")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8:strict"}
    done = subprocess.run(
        [sys.executable, "-m", "reportgen", "run", str(cfg), "--out", out], env=env, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert (Path(out) / "metrics.json").is_file()
    assert done.stdout.decode("ascii").endswith("caf\\xe9/metrics.json\n")
    (Path(out) / "stray.txt").write_text("x", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "reportgen", "run", str(cfg), "--out", out, "--overwrite"],
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.decode("ascii").startswith(f"reportgen: error: {tmp_path}/caf\\xe9: holds stray.txt")
