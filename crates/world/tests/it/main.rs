//! End-to-end and validation tests of the world, in one binary.
//!
//! Each module compares a whole simulation against something independent: a closed-form
//! model, an RFC rule, or the definition of the property.

mod cells;
mod common;
mod core;
mod cubic_curve;
mod dc_coordinated;
mod determinism;
mod dual;
mod external;
mod fusion;
mod handover;
mod interference;
mod late_admission;
mod mathis;
mod metrics;
mod mmcptp;
mod obstacles;
mod ran;
mod recovery;
mod relay;
mod relay_props;
mod reliability;
mod rto;
mod rwnd;
mod stepping;
mod throughput;
mod xtcp;
