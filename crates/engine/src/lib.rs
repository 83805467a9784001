//! The discrete-event core of mmtsim.
//!
//! # What lives here
//! - [`time`]: simulated time as integer nanoseconds ([`SimTime`]) and the unit
//!   newtypes every layer shares ([`Bytes`], [`Rate`]).
//! - [`queue`]: the event queue and its **ordering contract** (below).
//! - [`ids`]: the identities of a run's objects (nodes, links, sites, cells, UEs, flows).
//! - [`rng`]: one master seed per run, split into independent named streams.
//! - [`metrics`]: recorders the layers share (delay samples).
//! - [`memo`]: the last value of a pure function, kept with the exact bits of its inputs.
//! - [`prefetch`]: a hint that memory is about to be read (no effect on results).
//! - [`ring`]: a FIFO ring of small records with power-of-two capacity (wires, link
//!   schedules, RLC buffers).
//! - [`spares`]: emptied lists kept for reuse, so that per-packet lists allocate nothing.
//!
//! # Ordering contract
//! Events are popped in increasing `(time, class, sequence)` order:
//! 1. `time` is an integer number of nanoseconds; there is no floating-point time anywhere.
//! 2. `class` is a small priority class for events that fall on the same nanosecond but must
//!    run in a fixed order (for example a slot boundary before the transmissions it enables).
//!    Lower classes run first. Most events use [`queue::CLASS_NORMAL`].
//! 3. `sequence` is the insertion counter of the queue: among events with equal time and
//!    class, the one scheduled first runs first (FIFO).
//!
//! Because the key is total and contains no addresses, hash values or wall-clock readings, a
//! run is a pure function of its scenario and seed: the same inputs give bit-identical
//! results on any machine and with any number of runs executing in parallel threads.
//!
//! # Randomness
//! Every component that draws random numbers owns a stream made by
//! [`rng::RngStreams::stream`] from the run's master seed and a stable name (for example
//! `"link/bottleneck/fwd/loss"`). Streams are independent: adding draws to one never
//! shifts the numbers another one sees.
//!
//! # No wall clock
//! Nothing in the models reads the wall clock; only the front end measures wall time.
#![warn(missing_docs)]

pub mod ids;
pub mod memo;
pub mod metrics;
pub mod prefetch;
pub mod queue;
pub mod ring;
pub mod rng;
pub mod spares;
pub mod time;

pub use queue::EventQueue;
pub use rng::{RngStreams, SimRng};
pub use time::{Bytes, Rate, SimTime};
