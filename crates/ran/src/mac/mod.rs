//! MAC: HARQ processes and the schedulers that turn buffer state and channel quality into
//! grants.
//!
//! - [`harq`]: stop-and-wait HARQ processes with soft combining and a transmission cap.
//! - [`scheduler`]: round robin, proportional fair and max-rate allocation of a slot's
//!   resource units among the (UE, direction) pairs that have data.

pub mod harq;
pub mod scheduler;
