"""The seed papers' published numbers that the reproductions are checked against.

Only numbers printed in a paper belong here; what a study derives from the paper's setup
(its algorithms, rates, the instant LOS returns) is in that study's module.
"""

from __future__ import annotations

#: Table II of seed 000: mean throughput (Mbit/s) ± 95 % CI half-width over N = 200 runs.
TABLE_II = {
    "xtcp": (1225.21, 15.81),
    "bic": (1051.32, 10.42),
    "illinois": (949.87, 10.78),
    "cubic": (342.79, 8.46),
    "newreno": (342.46, 10.33),
}
