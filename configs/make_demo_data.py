"""Generate the demo holdout set under configs/data/ (deterministic: fixed seed).

A credit-scoring scenario: 6,000 loan applications with a 12-month default flag, scored by
three models of clearly different quality on the same rows (joined by application_id):

- champion: a scorecard in integer points where a HIGHER score means SAFER (direction: lower),
  with many tied scores, as real scorecards have;
- challenger: a stronger gradient-boosting-like model giving a probability of default;
- naive: a weak one-variable model giving a probability of default.

The scorecard also carries its PD mapping (``pd_points``), every file a ``product`` segment,
and a development sample (2023 applications, ``dev_champion.csv`` and ``dev_challenger.csv``)
serves as the credit section's reference: 3,000 of its applicants reapply in the holdout
(same ``application_id``), so the grade migration has rows to count. The extra columns and
files come from generators of their own, so the holdout's scores and labels never change.

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
    # application dates over Q3 2024, from a generator of their own (the scores above never change)
    days = np.random.default_rng(SEED + 2).integers(0, 92, N)
    dates = (np.datetime64("2024-07-01") + days).astype(str)

    # champion: scorecard points, higher = safer, coarse (ties), decent quality
    seen = 0.72 * risk + 0.69 * rng.normal(size=N)
    points = 2 * np.round((600 - 40 * seen) / 2).astype(int)  # even points only: many ties
    # challenger: sharper view of the risk, probability of default, 4 decimals
    sharp = 0.93 * risk + 0.37 * rng.normal(size=N)
    p_ch = 1.0 / (1.0 + np.exp(-(-2.7 + 1.3 * sharp)))
    # naive: one noisy variable
    weak = 0.35 * risk + 0.94 * rng.normal(size=N)
    p_nv = 1.0 / (1.0 + np.exp(-(-2.4 + 0.6 * weak)))

    # credit section (issue 19): the scorecard's PD mapping and a product segment, own generator
    product = PRODUCTS[np.random.default_rng(SEED + 3).choice(len(PRODUCTS), N, p=[0.5, 0.3, 0.2])]
    pd_points = np.round(_pd_of_points(points), 4)

    OUT.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"application_id": ids, "application_date": dates, "default_flag": default, "score_points": points,
                  "pd_points": pd_points, "product": product}).to_csv(OUT / "champion_scorecard.csv", index=False)
    ch = pd.DataFrame({"application_id": ids, "application_date": dates, "default_flag": default, "pd": np.round(p_ch, 4),
                       "product": product})
    ch.sample(frac=1.0, random_state=SEED).to_parquet(OUT / "challenger.parquet", index=False)  # other row order
    pd.DataFrame({"application_id": ids, "application_date": dates, "default_flag": default, "pd": np.round(p_nv, 3),
                  "product": product}).to_csv(OUT / "naive.csv", index=False)
    print(f"wrote {N} rows x 3 models to {OUT} (default rate {default.mean():.3f})")
    development(ids[:N_REAPPLY], risk[:N_REAPPLY])
    multiclass()


PRODUCTS = np.array(["card", "personal loan", "auto"])
N_DEV = 8000
N_REAPPLY = 3000  # development applicants found again in the holdout (same id)


def _pd_of_points(points: np.ndarray) -> np.ndarray:
    """The scorecard's PD mapping: a logistic curve in points (40 points halve the odds about once)."""
    return 1.0 / (1.0 + np.exp(-(-2.55 + 0.95 * (600 - points) / 40)))


def development(reapply_ids: np.ndarray, reapply_risk: np.ndarray) -> None:
    """The development sample (2023): a slightly safer population than the holdout.

    The first ``N_REAPPLY`` applicants are holdout applicants seen a year earlier (their latent
    risk then was close to now), the rest new; scored by the same champion and challenger.
    """
    rng = np.random.default_rng(SEED + 4)
    n_new = N_DEV - len(reapply_risk)
    risk = np.r_[0.9 * reapply_risk + 0.35 * rng.normal(size=len(reapply_risk)), rng.normal(-0.15, 1.0, n_new)]
    pd_true = 1.0 / (1.0 + np.exp(-(-2.75 + 1.35 * risk)))
    default = (rng.random(N_DEV) < pd_true).astype(int)
    ids = np.r_[reapply_ids, np.arange(200_001, 200_001 + n_new)]
    dates = (np.datetime64("2023-01-01") + rng.integers(0, 365, N_DEV)).astype(str)
    seen = 0.72 * risk + 0.69 * rng.normal(size=N_DEV)
    points = 2 * np.round((600 - 40 * seen) / 2).astype(int)
    sharp = 0.93 * risk + 0.37 * rng.normal(size=N_DEV)
    p_ch = 1.0 / (1.0 + np.exp(-(-2.7 + 1.3 * sharp)))
    product = PRODUCTS[rng.choice(len(PRODUCTS), N_DEV, p=[0.55, 0.3, 0.15])]
    base = {"application_id": ids, "application_date": dates, "default_flag": default}
    pd.DataFrame({**base, "score_points": points, "pd_points": np.round(_pd_of_points(points), 4),
                  "product": product}).to_csv(OUT / "dev_champion.csv", index=False)
    pd.DataFrame({**base, "pd": np.round(p_ch, 4), "product": product}).to_csv(OUT / "dev_challenger.csv", index=False)
    print(f"wrote {N_DEV} development rows to {OUT} (default rate {default.mean():.3f})")


STAGES = ("current", "early", "late", "default")  # delinquency stage 6 months after booking
N_LOANS = 4000


def _ordinal_proba(view: np.ndarray, cuts: np.ndarray, slope: float) -> np.ndarray:
    """Ordered-logit class probabilities, shape (n, 4), from a noisy view of the latent risk."""
    cdf = 1.0 / (1.0 + np.exp(-(cuts[None, :] - slope * view[:, None])))  # P(stage <= j), j < 3
    cdf = np.concatenate([cdf, np.ones((view.shape[0], 1))], axis=1)
    return np.diff(np.concatenate([np.zeros((view.shape[0], 1)), cdf], axis=1), axis=1)


def multiclass() -> None:
    """The multiclass demo (configs/demo_multiclass.yaml): delinquency stage of 4,000 loans.

    Two models give one probability column per stage (a sharper and a weaker one); a rule set
    gives only a predicted stage. Its own generator, so the binary demo data never changes.
    """
    rng = np.random.default_rng(SEED + 1)
    risk = rng.normal(size=N_LOANS)
    latent = risk + 0.55 * rng.normal(size=N_LOANS)
    stage = np.searchsorted(np.array([0.75, 1.35, 1.75]), latent)  # ~ 74 / 16 / 6 / 4 %
    cuts = np.array([0.75, 1.35, 1.75])
    sharp = _ordinal_proba(risk + 0.3 * rng.normal(size=N_LOANS), cuts * 4.0, 4.0)
    weak = _ordinal_proba(0.6 * risk + 0.8 * rng.normal(size=N_LOANS), cuts * 1.5, 1.5)
    rules = np.searchsorted(np.array([0.9, 1.5, 2.1]), risk + 0.7 * rng.normal(size=N_LOANS))
    ids = np.arange(500_001, 500_001 + N_LOANS)
    names = np.array(STAGES)
    for name, proba in (("gbm", sharp), ("logit", weak)):
        # round the cumulative probabilities, so that the rounded rows still sum to 1 and stay >= 0
        p = np.round(np.diff(np.round(np.cumsum(proba, axis=1), 4), axis=1, prepend=0.0), 4)
        cols = {f"p_{s}": p[:, j] for j, s in enumerate(STAGES)}
        pd.DataFrame({"loan_id": ids, "stage": names[stage], **cols}).to_csv(OUT / f"stage_{name}.csv", index=False)
    pd.DataFrame({"loan_id": ids, "stage": names[stage], "predicted_stage": names[rules]}).to_csv(
        OUT / "stage_rules.csv", index=False
    )
    shares = ", ".join(f"{s} {np.mean(stage == j):.1%}" for j, s in enumerate(STAGES))
    print(f"wrote {N_LOANS} rows x 3 multiclass models to {OUT} ({shares})")


if __name__ == "__main__":
    main()
