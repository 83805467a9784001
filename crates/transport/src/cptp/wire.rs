//! mmCPTP's messages: their layout lives with the other packet headers
//! (`mmtsim_net::cptp`), since packets carry them.

pub use mmtsim_net::cptp::*;
