//! Tests only: a record of the sequences a [`Controller`] was driven through, and their
//! replay on another controller through the same functions. A sender's run recorded this
//! way and replayed on a standalone controller must give the same window at every step:
//! the sender changes the window only through [`super::call_order`], as the standalone
//! driver does (`tcp::tests_cc_calls`).
//!
//! Recording is switched on per test thread before the controller is made (the sender
//! makes its own), so the algorithms' own tests, with their long runs, record nothing.
//! The radio view is not recorded (no test here uses one).

use super::{AckSample, CaState, Controller, Window};
use mmtsim_engine::{Rate, SimTime};
use std::cell::Cell;

thread_local! {
    static RECORDING: Cell<bool> = const { Cell::new(false) };
}

/// Controllers made from now on, on this thread, record their calls (or stop doing so).
pub(crate) fn record_new_controllers(on: bool) {
    RECORDING.with(|r| r.set(on));
}

/// Whether a controller made now records its calls.
pub(crate) fn recording() -> bool {
    RECORDING.with(|r| r.get())
}

/// One call of a sequence of [`super::call_order`], with its arguments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Call {
    AckDelivered(AckSample),
    AckWindow {
        s: AckSample,
        data_outstanding: bool,
        una_advanced: bool,
    },
    SetCwnd(u32),
    SetCaState(CaState),
    EnterRecovery {
        high_seq: u64,
    },
    EnterLoss {
        now: SimTime,
        in_flight: u32,
        snd_una: u64,
        snd_nxt: u64,
        loss_reopened: bool,
    },
    TlpReduction {
        now: SimTime,
    },
    Undo,
    EndEpisode {
        now: SimTime,
        undo: bool,
    },
    TxStart {
        now: SimTime,
        idle: SimTime,
        restart_rto: Option<SimTime>,
        initial_cwnd: u32,
    },
}

/// What a controller shows: the window, the state, what an undo restores, whether the
/// algorithm owns the window, its pacing rate and its own metrics (as bit patterns, so
/// that equal means identical).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Snapshot {
    pub w: Window,
    pub state: CaState,
    pub prior_ssthresh: u32,
    pub owns_window: bool,
    pub pacing: Option<Rate>,
    pub metrics: Vec<(&'static str, u64)>,
}

impl Snapshot {
    pub(crate) fn of(c: &Controller) -> Self {
        Snapshot {
            w: c.w,
            state: c.state(),
            prior_ssthresh: c.prior_ssthresh(),
            owns_window: c.owns_window(),
            pacing: c.pacing_rate(),
            metrics: c
                .metrics()
                .into_iter()
                .map(|(n, v)| (n, v.to_bits()))
                .collect(),
        }
    }
}

/// Makes `call` on `c`, through the function the recorded controller was called through.
pub(crate) fn replay(c: &mut Controller, call: &Call) {
    match *call {
        Call::AckDelivered(s) => c.ack_delivered(&s),
        Call::AckWindow {
            s,
            data_outstanding,
            una_advanced,
        } => {
            c.ack_window(&s, data_outstanding, una_advanced);
        }
        Call::SetCwnd(cwnd) => c.set_cwnd(cwnd),
        Call::SetCaState(state) => c.set_ca_state(state),
        Call::EnterRecovery { high_seq } => c.enter_recovery(high_seq),
        Call::EnterLoss {
            now,
            in_flight,
            snd_una,
            snd_nxt,
            loss_reopened,
        } => {
            c.enter_loss(now, in_flight, snd_una, snd_nxt, loss_reopened);
        }
        Call::TlpReduction { now } => c.tlp_reduction(now),
        Call::Undo => c.undo(),
        Call::EndEpisode { now, undo } => c.end_episode(now, undo),
        Call::TxStart {
            now,
            idle,
            restart_rto,
            initial_cwnd,
        } => c.tx_start(now, idle, restart_rto, initial_cwnd),
    }
}
