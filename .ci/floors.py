"""Print a pip constraints file pinning every dependency of pyproject.toml to its floor.

``numpy>=1.24`` becomes ``numpy==1.24`` (pip reads ``==1.24`` as
``1.24.0``), so the install is exactly the oldest versions the package claims to support.
A dependency without a ``>=`` floor is an error: every dependency must state one.
Used by ``.ci/floors`` (CI) and tests/unit/test_packaging.py (every dependency has a floor).

    python .ci/floors.py [pyproject.toml] > constraints.txt
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

FLOOR = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*>=\s*([0-9][0-9A-Za-z.]*)\s*(?:,.*)?$")


def floors(pyproject: Path) -> dict[str, str]:
    """``{distribution: floor version}`` of the required dependencies (not the extras)."""
    deps = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    out = {}
    for dep in deps:
        m = FLOOR.match(dep)
        if m is None:
            raise SystemExit(f"{pyproject}: dependency {dep!r} has no '>=' floor; give it one")
        out[m.group(1).lower()] = m.group(3)
    return out


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1] / "pyproject.toml"
    for name, version in floors(path).items():
        print(f"{name}=={version}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
