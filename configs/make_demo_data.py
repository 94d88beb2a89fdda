"""Generate the demo holdout set under configs/data/ (deterministic: fixed seed).

A credit-scoring scenario: 6,000 loan applications with a 12-month default flag, scored by
three models of clearly different quality on the same rows (joined by application_id):

- champion: a scorecard in integer points where a HIGHER score means SAFER (direction: lower),
  with many tied scores, as real scorecards have;
- challenger: a stronger gradient-boosting-like model giving a probability of default;
- naive: a weak one-variable model giving a probability of default.

Run from the repository root: ``python configs/make_demo_data.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20240601
N = 6000
OUT = Path(__file__).resolve().parent / "data"


def main() -> None:
    rng = np.random.default_rng(SEED)
    risk = rng.normal(size=N)  # latent creditworthiness (higher = riskier)
    pd_true = 1.0 / (1.0 + np.exp(-(-2.75 + 1.35 * risk)))
    default = (rng.random(N) < pd_true).astype(int)
    ids = np.arange(100_001, 100_001 + N)

    # champion: scorecard points, higher = safer, coarse (ties), decent quality
    seen = 0.72 * risk + 0.69 * rng.normal(size=N)
    points = 2 * np.round((600 - 40 * seen) / 2).astype(int)  # even points only: many ties
    # challenger: sharper view of the risk, probability of default, 4 decimals
    sharp = 0.93 * risk + 0.37 * rng.normal(size=N)
    p_ch = 1.0 / (1.0 + np.exp(-(-2.7 + 1.3 * sharp)))
    # naive: one noisy variable
    weak = 0.35 * risk + 0.94 * rng.normal(size=N)
    p_nv = 1.0 / (1.0 + np.exp(-(-2.4 + 0.6 * weak)))

    OUT.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"application_id": ids, "default_flag": default, "score_points": points}).to_csv(
        OUT / "champion_scorecard.csv", index=False
    )
    ch = pd.DataFrame({"application_id": ids, "default_flag": default, "pd": np.round(p_ch, 4)})
    ch.sample(frac=1.0, random_state=SEED).to_parquet(OUT / "challenger.parquet", index=False)  # other row order
    pd.DataFrame({"application_id": ids, "default_flag": default, "pd": np.round(p_nv, 3)}).to_csv(
        OUT / "naive.csv", index=False
    )
    print(f"wrote {N} rows x 3 models to {OUT} (default rate {default.mean():.3f})")


if __name__ == "__main__":
    main()
