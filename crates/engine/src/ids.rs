//! Identities of the objects of a run, one newtype each, so that an index of one kind can
//! never be passed where another is meant (a UE index where a node index is expected, a
//! link where a cell is). Each is a `u32` inside: the world keeps its objects in vectors
//! and an identity is the position in its vector, fixed when the run is built.
//!
//! `index()` gives the position as a `usize` for indexing; `from_index` makes one from a
//! position (it panics beyond `u32::MAX`, which no run reaches).

macro_rules! id {
    ($(#[$doc:meta])* $name:ident, $tag:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            /// The position in the world's table of these objects.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }

            /// The identity at position `i`.
            #[inline]
            pub fn from_index(i: usize) -> Self {
                $name(u32::try_from(i).expect(concat!($tag, " index fits in u32")))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($tag, "{}"), self.0)
            }
        }
    };
}

id!(
    /// A node: a host, a router, the user plane function, a gNB site or a UE.
    NodeId,
    "node"
);
id!(
    /// One direction of a wired link (each `[[links]]` entry is two: forward, reverse).
    LinkId,
    "link"
);
id!(
    /// A cell: one carrier of one site, with its own radio configuration.
    CellId,
    "cell"
);
id!(
    /// A UE (user equipment).
    UeId,
    "ue"
);
id!(
    /// A flow: one transport connection (TCP) or datagram stream (UDP) of the scenario.
    FlowId,
    "flow"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_round_trips_and_kinds_print_apart() {
        let c = CellId::from_index(3);
        assert_eq!(c.index(), 3);
        assert_eq!(c, CellId(3));
        assert_eq!(c.to_string(), "cell3");
        assert_eq!(UeId(3).to_string(), "ue3");
        assert!(NodeId(1) < NodeId(2));
    }
}
