"""`mmtsim plot`: the radio panels of a run with a RAN, drawn from its `ran` table, and
none for a run without one."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import mmtsim
from conftest import EXAMPLES, small_dict
from mmtsim.plot import RADIO_PANELS, plot_run, radio_figure


@pytest.fixture(scope="module")
def radio_run(tmp_path_factory) -> Path:
    # One UE walking behind a building: line of sight is lost at about 4 s.
    out = tmp_path_factory.mktemp("radio") / "run"
    mmtsim.run(EXAMPLES / "mmwave-2017.toml", overrides={"simulation.duration": "5s"}, out=out)
    return out


def _axis(fig, ylabel: str):
    [ax] = [a for a in fig.axes if a.get_ylabel() == ylabel]
    return ax


def _line(ax, label: str):
    [line] = [l for l in ax.lines if l.get_label() == label]
    return line


def test_a_radio_run_writes_the_radio_figure(radio_run: Path):
    files = plot_run(radio_run)
    names = {p.name for p in files}
    assert {"radio.png", "overview.png", "goodput.png"} <= names
    for p in files:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_radio_panels_draw_the_ran_table(radio_run: Path):
    res = mmtsim.read_run(radio_run)
    ran = res.table("ran").filter(res.table("ran")["ue"] == 0).sort("t_s")
    t = ran["t_s"].to_numpy()
    fig = radio_figure(res)
    # Goodput and RTT first, then the radio panels, all on one time axis.
    labels = [a.get_ylabel() for a in fig.axes]
    assert labels == ["goodput (Mbit/s)", "RTT per ACK (ms)", *RADIO_PANELS.values()]
    assert all(a.get_shared_x_axes().joined(fig.axes[0], a) for a in fig.axes)

    # The preset gives UL the same SINR as DL: one line per UE, named after the UE.
    assert np.array_equal(ran["sinr_dl_db"].to_numpy(), ran["sinr_ul_db"].to_numpy())
    sinr = _line(_axis(fig, "SINR (dB)"), "ue1")
    assert np.array_equal(sinr.get_xdata(), t)
    assert np.array_equal(sinr.get_ydata(), ran["sinr_dl_db"].to_numpy())
    mcs = _axis(fig, "MCS index")
    for direction in ("dl", "ul"):
        expected = ran[f"mcs_{direction}"].to_numpy()
        if np.array_equal(ran["mcs_dl"].to_numpy(), ran["mcs_ul"].to_numpy(), equal_nan=True):
            got = _line(mcs, "ue1").get_ydata()
        else:
            got = _line(mcs, f"ue1 {direction.upper()}").get_ydata()
        assert np.array_equal(got, expected, equal_nan=True)
    rlc = _axis(fig, "RLC buffer (kB)")
    for direction in ("dl", "ul"):
        col = ran[f"rlc_{direction}_bytes"].to_numpy()
        drawn = [l for l in rlc.lines if l.get_label() == f"ue1 {direction.upper()}"]
        if col.max() == 0:
            assert not drawn  # a direction that never holds data is left out
        else:
            assert np.allclose(drawn[0].get_ydata(), col / 1000)

    # NLOS shading: each sample without line of sight holds until the next sample (the
    # last for one more interval), so the shaded time is the sum of those intervals.
    los = ran["los"].to_numpy().astype(bool)
    held = np.diff(t, append=t[-1] + (t[-1] - t[-2]))
    nlos_time = held[~los].sum()
    assert nlos_time > 0.5  # the example does walk behind the building
    [bars] = _axis(fig, "NLOS periods").collections
    shaded = 0.0
    for path in bars.get_paths():
        xs = path.vertices[:, 0]
        shaded += xs.max() - xs.min()
    assert shaded == pytest.approx(nlos_time)
    first_nlos = t[np.argmax(~los)]
    assert min(p.vertices[:, 0].min() for p in bars.get_paths()) == pytest.approx(first_nlos)


def test_a_run_without_a_ran_has_no_radio_figure(tmp_path: Path):
    out = tmp_path / "run"
    mmtsim.run(small_dict(duration="1s"), out=out)
    files = plot_run(out)
    assert sorted(p.name for p in files) == sorted(
        ["goodput.png", "rtt.png", "cwnd.png", "queue.png", "overview.png"])
    assert not (out / "plots" / "radio.png").exists()
    assert radio_figure(mmtsim.read_run(out)) is None


def test_a_multi_cell_run_colours_the_sinr_by_serving_cell(tmp_path: Path, radio_run: Path):
    # handover-split: ue-car is handed over from "mmw" to "lte" at 5 s.
    from mmtsim.plot_cells import cells_figure

    out = tmp_path / "run"
    mmtsim.run(EXAMPLES / "handover-split.toml", out=out,
               overrides={"simulation.duration": "6s"})
    assert "cells.png" in {p.name for p in plot_run(out)}
    res = mmtsim.read_run(out)
    fig = cells_figure(res)
    car = fig.axes[0]
    colour = {line.get_label(): line.get_color() for line in car.lines
              if not line.get_label().startswith("_")}
    assert set(colour) == {"served by mmw", "served by lte"}
    # The handovers table's row marks the handover: one solid black line at 5 s.
    [mark] = [l for l in car.lines if l.get_label().startswith("_")]
    assert list(mark.get_xdata()) == [5.0, 5.0] and mark.get_color() == "k"
    assert colour["served by mmw"] != colour["served by lte"]
    # The mmw segment ends, and the lte one starts, at the handover.
    [lte] = [l for l in car.lines if l.get_label() == "served by lte"]
    assert lte.get_xdata()[0] == pytest.approx(5.0, abs=0.002)
    # A one-cell run has no cells figure.
    assert cells_figure(mmtsim.read_run(radio_run)) is None


def test_a_dually_connected_ue_is_drawn_on_its_secondary_cell(tmp_path: Path):
    # train-dc: the train's primary cell is the LTE anchor throughout; its mmWave leg
    # moves g2 → g1 at about 6.6 s (the walls hide g2), so the line is g2's then g1's.
    from mmtsim.plot_cells import cells_figure

    res = mmtsim.run(EXAMPLES / "train-dc.toml", overrides={"simulation.duration": "8s"})
    labels = {l.get_label() for l in cells_figure(res).axes[0].lines}
    assert {"served by g2", "served by g1"} <= labels
    assert "served by lte" not in labels
