"""Fit the models of the two public packs and write their prediction files (deterministic seeds).

Two packs that anyone can rebuild, read as a model-risk committee would (issue 40):

- **Credit** (``german_credit*.yaml``): the German credit data (UCI Statlog, 1,000 applicants,
  300 bad; ``data/germancredit.csv``, see ``data/SOURCE.md``). The rows are split once, stratified,
  into a development sample (600, the reference) and a validation sample (400, the current one).
  The champion is a points scorecard (a logistic regression on six binned characteristics, scaled
  to 600 points at odds 19:1 with 20 points to double the odds; higher = safer) with its PD mapping
  in ``pd_points``; the challenger a gradient-boosting PD model on all twenty characteristics. Both
  are fitted on the development sample and score both samples; ``housing`` is the segment.
- **Diagnostic** (``breast_cancer*.yaml``): scikit-learn's bundled Wisconsin breast-cancer data
  (569 tumours, 212 malignant), a stratified 60/40 split; logistic regression (the baseline), a
  decision tree and Gaussian naive Bayes fitted on the 341 training rows, scored on the 228 held out.

Run from the repository root (no network): ``python configs/public/make_packs.py``; then
``reportgen run configs/public/<pack>.yaml`` (docs/development/index.md, "Public packs").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import cross_val_predict, train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

SEED = 20260401
HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

#: The scorecard's scaling: 600 points at good:bad odds of 19:1, 20 points to double the odds.
BASE_POINTS, BASE_ODDS, PDO = 600.0, 19.0, 20.0

#: The champion scorecard's characteristics (binned below), as a traditional scorecard keeps few.
SCORECARD = (
    "status_of_existing_checking_account",
    "duration_in_month",
    "credit_history",
    "savings_account_and_bonds",
    "age_in_years",
    "purpose",
)


def _binned(df: pd.DataFrame) -> pd.DataFrame:
    """The scorecard's characteristics as categories (numeric ones cut into coarse classes)."""
    out = df[list(SCORECARD)].copy()
    out["duration_in_month"] = pd.cut(df["duration_in_month"], [0, 12, 24, 36, np.inf]).astype(str)
    out["age_in_years"] = pd.cut(df["age_in_years"], [0, 25, 35, 50, np.inf]).astype(str)
    return pd.get_dummies(out, drop_first=True, dtype=float)


def credit() -> None:
    raw = pd.read_csv(DATA / "germancredit.csv")
    raw.insert(0, "applicant_id", np.arange(1, len(raw) + 1))
    raw["default_flag"] = (raw.pop("creditability") == "bad").astype(int)
    dev, val = train_test_split(raw, test_size=0.4, stratify=raw["default_flag"], random_state=SEED)
    y_dev = dev["default_flag"].to_numpy()

    x_all = _binned(raw)
    x_dev, x_val = x_all.loc[dev.index], x_all.loc[val.index]
    card = LogisticRegression(C=0.5, max_iter=2000).fit(x_dev, y_dev)
    factor = PDO / np.log(2)
    offset = BASE_POINTS - factor * np.log(BASE_ODDS)

    def points(x: pd.DataFrame) -> np.ndarray:
        log_odds_good = -card.decision_function(x)
        return np.round(offset + factor * log_odds_good).astype(int)

    def pd_of(pts: np.ndarray) -> np.ndarray:
        """The scorecard's PD mapping: PD = 1 / (1 + odds), odds = exp((points - offset) / factor)."""
        return np.round(1.0 / (1.0 + np.exp((pts - offset) / factor)), 4)

    full = pd.get_dummies(raw.drop(columns=["applicant_id", "default_flag"]), drop_first=True, dtype=float)
    gbm = GradientBoostingClassifier(
        n_estimators=150, max_depth=3, learning_rate=0.05, subsample=0.8, random_state=SEED
    ).fit(full.loc[dev.index], y_dev)

    keep = ["applicant_id", "default_flag", "housing", "purpose"]
    for sample, name in ((dev, "dev"), (val, "val")):
        pts = points(x_all.loc[sample.index])
        champ = sample[keep].assign(score_points=pts, pd_points=pd_of(pts))
        champ.to_csv(DATA / f"credit_champion_{name}.csv", index=False)
        p = gbm.predict_proba(full.loc[sample.index])[:, 1]
        sample[keep].assign(pd=np.round(p, 4)).to_csv(DATA / f"credit_challenger_{name}.csv", index=False)

    # the champion's AUC at initial validation: 5-fold cross-validated on the development sample
    cv = cross_val_predict(LogisticRegression(C=0.5, max_iter=2000), x_dev, y_dev, cv=5, method="decision_function")
    print(f"credit: dev {len(dev)} rows ({y_dev.sum()} bad), validation {len(val)} rows ({val['default_flag'].sum()} bad)")
    print(f"  champion 5-fold CV AUC on development (initial_auc): {roc_auc_score(y_dev, cv):.3f}")
    print(f"  champion validation AUC {roc_auc_score(val['default_flag'], -points(x_val)):.3f}")


def diagnostic() -> None:
    data = load_breast_cancer(as_frame=True)
    x, y = data.data, 1 - data.target.to_numpy()  # sklearn codes benign as 1; positive here: malignant
    ids = np.arange(1, len(y) + 1)
    x_tr, x_te, y_tr, y_te, _, id_te = train_test_split(x, y, ids, test_size=0.4, stratify=y, random_state=SEED)
    models = {
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=2000)),
        "tree": DecisionTreeClassifier(max_depth=4, min_samples_leaf=5, random_state=SEED),
        "naive_bayes": GaussianNB(),
    }
    for name, model in models.items():
        p = model.fit(x_tr, y_tr).predict_proba(x_te)[:, 1]
        pd.DataFrame({"tumour_id": id_te, "malignant": y_te, "p_malignant": np.round(p, 6)}).to_csv(
            DATA / f"cancer_{name}.csv", index=False
        )
        print(f"diagnostic: {name} held-out AUC {roc_auc_score(y_te, p):.3f}")
    print(f"  held out {len(y_te)} rows ({y_te.sum()} malignant), trained on {len(y_tr)}")


#: The segments pack's purpose groups: the five commonest purposes, the rest (105 applicants) as one.
PURPOSES = ("radio/television", "car (new)", "furniture/equipment", "car (used)", "business")
#: Its age bands (years): six of 71 to 226 applicants.
AGE_EDGES = (0, 25, 30, 35, 45, 55, np.inf)
AGE_LABELS = ("19-25", "26-30", "31-35", "36-45", "46-55", "56-75")  # the data's ages run 19 to 75


def segments_pack() -> None:
    """``german_credit_segments*.yaml``: three models scored out of fold (5-fold cross-validation,
    so every one of the 1,000 applicants is scored by a model that did not see them): the
    scorecard (points, the six binned characteristics), a gradient-boosting PD model and a
    logistic PD model on all twenty; two segment columns of six values (age band, purpose group)
    and two protected attributes (sex, from the personal-status code, and foreign worker)."""
    raw = pd.read_csv(DATA / "germancredit.csv")
    y = (raw["creditability"] == "bad").astype(int).to_numpy()
    full = pd.get_dummies(raw.drop(columns=["creditability"]), drop_first=True, dtype=float)
    card = LogisticRegression(C=0.5, max_iter=2000)
    lr = make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=2000))
    gbm = GradientBoostingClassifier(n_estimators=150, max_depth=3, learning_rate=0.05, subsample=0.8, random_state=SEED)
    log_odds = cross_val_predict(card, _binned(raw), y, cv=5, method="decision_function")
    factor = PDO / np.log(2)
    points = np.round(BASE_POINTS - factor * np.log(BASE_ODDS) - factor * log_odds).astype(int)
    out = pd.DataFrame(
        {
            "applicant_id": np.arange(1, len(raw) + 1),
            "default_flag": y,
            "age_band": pd.cut(raw["age_in_years"], AGE_EDGES, labels=AGE_LABELS).astype(str),
            "purpose_group": raw["purpose"].where(raw["purpose"].isin(PURPOSES), "other"),
            "sex": raw["personal_status_and_sex"].str.split(" : ").str[0],
            "foreign_worker": raw["foreign_worker"],
            "scorecard_points": points,
            "gbm_pd": np.round(cross_val_predict(gbm, full, y, cv=5, method="predict_proba")[:, 1], 4),
            "logistic_pd": np.round(cross_val_predict(lr, full, y, cv=5, method="predict_proba")[:, 1], 4),
        }
    )
    out.to_csv(DATA / "credit_segments.csv", index=False)
    for m, sign in (("scorecard_points", -1), ("gbm_pd", 1), ("logistic_pd", 1)):
        print(f"segments: {m} out-of-fold AUC {roc_auc_score(y, sign * out[m]):.3f}")


if __name__ == "__main__":
    DATA.mkdir(parents=True, exist_ok=True)
    credit()
    diagnostic()
    segments_pack()
