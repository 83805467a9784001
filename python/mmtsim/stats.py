"""Statistics of a sweep: confidence intervals of a mean, Jain's fairness index, and the
2-σ covariance ellipse of (RTT, throughput) points.

Definitions (each is what the tests check by hand):

- **Mean and 95 % confidence interval** (Student t): for n samples x_1 … x_n with mean x̄
  and sample standard deviation s = sqrt(Σ(x_i − x̄)² / (n − 1)), the interval is
  x̄ ± t_{(1+c)/2, n−1} · s / sqrt(n) with c = 0.95. It assumes the per-run values are
  independent draws from a distribution whose mean is roughly normal (runs differ only in
  their seed). With n = 1 there is no estimate of the spread: ``std`` and the interval are
  ``None`` (not 0, which would claim certainty). The t quantile comes from
  ``scipy.special.stdtrit``, the inverse of Student's t distribution function behind
  ``scipy.stats.t.ppf`` (exact to double precision); for 1 and 2 degrees of freedom it has
  closed forms, which the tests use to check it.
- **Jain's fairness index** (R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984):
  J(x) = (Σ x_i)² / (n · Σ x_i²), from 1/n (one flow takes everything) to 1 (equal shares).
  Undefined (``None``) for no values or when every value is 0.
- **2-σ ellipse** (seed 002, Fig. 2: "the 2-σ elliptic contour of the maximum-likelihood
  2D Gaussian distribution" fitted to the (RTT, throughput) points): with the 2×2
  covariance matrix Σ of the points (maximum likelihood, i.e. divided by n, by default;
  ``ddof=1`` gives the unbiased sample covariance, larger by n/(n−1)), the ellipse is
  {p : (p − μ)ᵀ Σ⁻¹ (p − μ) = k²} with k = 2. Its semi-axes are k·sqrt(λ₁) ≥ k·sqrt(λ₂)
  (λ the eigenvalues of Σ) along the eigenvectors; ``angle_deg`` is the angle of the major
  axis from the x axis, in (−90°, 90°]. Its projection on any line is the interval
  mean ± 2 standard deviations of the points projected on that line (95.4 % of a normal
  distribution, the paper's "95 % confidence interval"); the ellipse itself holds
  1 − e^{−k²/2} = 86.5 % of a 2-D normal distribution. It describes the spread of the runs,
  not the uncertainty of their mean.

Values that are ``None`` or NaN are left out (a metric missing from a run). Means,
standard deviations and covariances are numpy's (``np.mean``, ``np.std``, ``np.cov``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np

#: The confidence level of the intervals of ``summarize``.
CONFIDENCE = 0.95
#: Standard deviations of the ellipse contour (seed 002, Fig. 2).
ELLIPSE_SIGMAS = 2.0


def _clean(values: Iterable) -> np.ndarray:
    """The values as floats, without ``None`` and NaN (booleans are not values)."""
    xs = np.array([np.nan if v is None or isinstance(v, bool) else float(v) for v in values],
                  dtype=np.float64)
    return xs[~np.isnan(xs)]


def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t distribution with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError(f"t quantile needs at least 1 degree of freedom, got {df}")
    if not 0.0 < p < 1.0:
        from scipy.stats import t

        return float(t.ppf(p, df))  # the ends (±inf) and nan outside, as scipy defines them
    # ``scipy.stats.t.ppf`` is this function inside the open interval; importing
    # ``scipy.stats`` for it would cost a sweep's driver about 46 MB.
    from scipy.special import stdtrit

    return float(stdtrit(df, p))


@dataclass(frozen=True)
class MeanCI:
    """Mean and confidence interval of n samples; ``None`` where undefined."""

    n: int
    mean: float | None
    std: float | None
    ci_low: float | None
    ci_high: float | None

    @property
    def half_width(self) -> float | None:
        """Half the width of the interval (``None`` when n < 2)."""
        return None if self.ci_high is None else (self.ci_high - self.ci_low) / 2


def mean_ci(values: Iterable, confidence: float = CONFIDENCE) -> MeanCI:
    """Mean, sample standard deviation (n − 1) and Student-t interval of ``values``."""
    xs = _clean(values)
    n = len(xs)
    if n == 0:
        return MeanCI(0, None, None, None, None)
    mean = float(np.mean(xs))
    if n == 1:
        return MeanCI(1, mean, None, None, None)
    std = float(np.std(xs, ddof=1))
    half = t_quantile((1 + confidence) / 2, n - 1) * std / math.sqrt(n)
    return MeanCI(n, mean, std, mean - half, mean + half)


def jain_index(values: Iterable) -> float | None:
    """Jain's fairness index (Σx)² / (n Σx²); ``None`` when empty or all zero."""
    xs = _clean(values)
    sq = float(np.dot(xs, xs))
    if not len(xs) or sq == 0:
        return None
    return float(np.sum(xs)) ** 2 / (len(xs) * sq)


@dataclass(frozen=True)
class Ellipse:
    """The k-σ covariance ellipse of n 2-D points (fields ``None`` when n < 2)."""

    n: int
    mean_x: float | None
    mean_y: float | None
    cov_xx: float | None
    cov_xy: float | None
    cov_yy: float | None
    semi_major: float | None
    semi_minor: float | None
    angle_deg: float | None
    sigmas: float
    ddof: int

    def points(self, num: int = 100) -> tuple[list[float], list[float]]:
        """``num`` points on the contour (closed: the last equals the first), for drawing."""
        if self.semi_major is None:
            return [], []
        u = np.linspace(0.0, 2 * math.pi, num)
        th = math.radians(self.angle_deg)
        px, py = self.semi_major * np.cos(u), self.semi_minor * np.sin(u)
        xs = self.mean_x + math.cos(th) * px - math.sin(th) * py
        ys = self.mean_y + math.sin(th) * px + math.cos(th) * py
        return xs.tolist(), ys.tolist()


def cov_ellipse(x: Iterable, y: Iterable, sigmas: float = ELLIPSE_SIGMAS, ddof: int = 0) -> Ellipse:
    """The ``sigmas``-σ ellipse of the points (x_i, y_i) (pairs with a missing value are
    dropped). ``ddof=0``: maximum-likelihood covariance (seed 002); ``ddof=1``: unbiased."""
    xs, ys = (np.array([np.nan if v is None else float(v) for v in col], dtype=np.float64)
              for col in (list(x), list(y)))
    if len(xs) != len(ys):
        raise ValueError(f"x has {len(xs)} values, y has {len(ys)}")
    keep = ~(np.isnan(xs) | np.isnan(ys))
    xs, ys = xs[keep], ys[keep]
    n = len(xs)
    if n < 2 or n - ddof < 1:
        mx = float(xs[0]) if n == 1 else None
        my = float(ys[0]) if n == 1 else None
        return Ellipse(n, mx, my, None, None, None, None, None, None, sigmas, ddof)
    mx, my = float(np.mean(xs)), float(np.mean(ys))
    (sxx, sxy), (_, syy) = np.cov(xs, ys, ddof=ddof).tolist()
    # Eigenvalues of the symmetric 2×2 matrix [[a, b], [b, c]] in closed form:
    # λ = (a + c)/2 ± sqrt(((a − c)/2)² + b²); the major axis makes the angle
    # ½·atan2(2b, a − c) with the x axis.
    half_tr = (sxx + syy) / 2
    r = math.hypot((sxx - syy) / 2, sxy)
    lam1, lam2 = half_tr + r, max(half_tr - r, 0.0)  # rounding can make λ₂ slightly negative
    angle = math.degrees(0.5 * math.atan2(2 * sxy, sxx - syy))
    if angle <= -90.0:
        angle += 180.0
    return Ellipse(n, mx, my, sxx, sxy, syy, sigmas * math.sqrt(lam1), sigmas * math.sqrt(lam2),
                   angle, sigmas, ddof)
