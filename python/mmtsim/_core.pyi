"""Type stubs of the compiled extension (crates/py)."""

from typing import Any

import numpy as np

__version__: str
__build__: str

class MmtsimError(Exception): ...
class ScenarioError(MmtsimError): ...
class SimulationError(MmtsimError): ...
class Cancelled(MmtsimError): ...

class LagExceeded(SimulationError): ...

class Emulation:
    def __init__(
        self,
        text: str,
        format: str,
        origin: str,
        base_dir: str,
        overrides: list[str],
        seed: int | None,
        ue: str | None,
        server: str | None,
        ue_tun: str,
        server_tun: str,
        max_lag_s: float = 1e-3,
        strict: bool = False,
        pcap: str | None = None,
        snaplen: int = 128,
        duration_s: float | None = None,
        background: bool = False,
        lag_grace_s: float = 0.1,
        cpu: int | None = None,
        offload: bool = True,
        server_pcap: str | None = None,
    ) -> None: ...
    @property
    def ue_name(self) -> str: ...
    @property
    def server_name(self) -> str: ...
    def run(self) -> None: ...
    def stop(self) -> None: ...
    def finish(self) -> tuple[str, dict[str, dict[str, Any]], str]: ...

class Progress:
    def __init__(self) -> None: ...
    @property
    def sim_seconds(self) -> float: ...
    def cancel(self) -> None: ...

def validate(
    text: str,
    format: str = "toml",
    origin: str = "<string>",
    base_dir: str = ".",
    overrides: list[str] = ...,
) -> str: ...
def run(
    text: str,
    format: str = "toml",
    origin: str = "<string>",
    base_dir: str = ".",
    overrides: list[str] = ...,
    seed: int | None = None,
    capture_dir: str | None = None,
    progress: Progress | None = None,
) -> tuple[str, dict[str, dict[str, np.ndarray[Any, Any]]]]: ...
def schema() -> str: ...
def nr_mcs_table1() -> list[tuple[int, float, float]]: ...
def parse_duration(text: str) -> float: ...
def _panic_inside_guard() -> None: ...
def convert_trace(text: str, from_format: str, to_format: str, until_s: float) -> str: ...
def algorithms() -> list[str]: ...

class CongestionControl:
    def __init__(
        self,
        name: str,
        mss: int = 1400,
        initial_cwnd: int = 10,
        hystart: bool | None = None,
        seed: int | None = None,
    ) -> None: ...
    def on_ack(
        self,
        now: float,
        acked: int = 1,
        rtt: float | None = None,
        cwnd_limited: bool = True,
        in_flight: int = 0,
        *,
        prior_in_flight: int | None = None,
        srtt: float | None = None,
        min_rtt: float | None = None,
        delivered: int | None = None,
        lost: int | None = None,
        losses: int = 0,
        rate_delivered: int | None = None,
        rate_interval: float | None = None,
        prior_delivered: int | None = None,
        rate_app_limited: bool = False,
        rate_is_retrans: bool = False,
        acked_bytes: int | None = None,
        snd_una: int = 0,
        snd_nxt: int = 0,
        paced: bool = False,
        next_departure: float | None = None,
        una_advanced: bool = True,
        data_outstanding: bool = True,
    ) -> None: ...
    def on_loss(self, now: float, snd_nxt: int = 0) -> None: ...
    def exit_recovery(self, now: float) -> None: ...
    def undo(self, now: float) -> None: ...
    def on_rto(self, now: float, in_flight: int = 0, snd_una: int = 0, snd_nxt: int = 0) -> None: ...
    def on_tx_start(self, now: float, idle: float, rto: float | None = None) -> None: ...
    def set_link_view(
        self,
        grants: list[tuple[float, int, int, int, float] | tuple[float, int, int, int, float, float]],
        sinr_db: float,
        rlc_buffer_bytes: int = 0,
        direction: str = "uplink",
    ) -> None: ...
    def clear_link_view(self) -> None: ...
    @property
    def cwnd(self) -> int: ...
    @property
    def ssthresh(self) -> int: ...
    @property
    def prior_ssthresh(self) -> int: ...
    @property
    def cwnd_bytes(self) -> int: ...
    @property
    def ssthresh_bytes(self) -> int | None: ...
    @property
    def pacing_rate_bps(self) -> int | None: ...
    @property
    def owns_window(self) -> bool: ...
    @property
    def app_limited_requested(self) -> bool: ...
    @property
    def delivered(self) -> int: ...
    @property
    def lost(self) -> int: ...
    @property
    def state(self) -> str: ...
    @property
    def name(self) -> str: ...
    def metrics(self) -> list[tuple[str, float]]: ...
