//! Emptied lists kept for reuse, so that a layer that builds a short list per packet or
//! per message (PDUs of a transport block, mmCPTP messages, measurement reports) does not
//! allocate one each time: it takes a list, fills and drains it, and gives it back.

/// A stack of emptied `Vec<T>`, at most `keep` of them (a list given back beyond that is
/// dropped, so a burst does not hold memory for ever).
#[derive(Clone, Debug)]
pub struct Spares<T> {
    free: Vec<Vec<T>>,
    keep: usize,
}

impl<T> Spares<T> {
    /// A pool that keeps at most `keep` lists.
    pub fn new(keep: usize) -> Spares<T> {
        Spares {
            free: Vec::new(),
            keep,
        }
    }

    /// An empty list: the one given back last, or a new one.
    pub fn take(&mut self) -> Vec<T> {
        self.free.pop().unwrap_or_default()
    }

    /// Gives back `v`, which its user has drained (a list handed back with items in it
    /// would lose them silently: debug builds stop there). Its capacity is what is kept.
    pub fn give(&mut self, v: Vec<T>) {
        debug_assert!(v.is_empty(), "a list given back still holds items");
        if self.free.len() < self.keep {
            self.free.push(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_comes_back_with_its_capacity_and_no_more_than_keep_are_held() {
        let mut s = Spares::new(2);
        let mut a: Vec<u32> = s.take();
        a.extend(0..100);
        let cap = a.capacity();
        let ptr = a.as_ptr();
        a.clear();
        s.give(a);
        let b = s.take();
        assert!(b.is_empty());
        assert_eq!((b.capacity(), b.as_ptr()), (cap, ptr));
        // Three given back, two kept.
        s.give(b);
        s.give(Vec::with_capacity(1));
        s.give(Vec::with_capacity(2));
        assert_eq!(s.free.len(), 2);
        assert!(s.take().is_empty() && s.take().is_empty());
        assert_eq!(s.take().capacity(), 0);
    }
}
