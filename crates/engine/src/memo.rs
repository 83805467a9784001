//! The last value a pure function gave, kept with the key it was computed for, for
//! functions asked again and again with the same inputs between changes (a
//! transmitter's error probability or MCS between its channel reports, a link's power
//! between updates that changed it).
//!
//! Keys are the exact bits of the inputs (an `f64` by `to_bits`), so a remembered value
//! is the one the function would give again, bit for bit: results are those of calling
//! it every time.

/// The last `(key, value)` of one function.
#[derive(Clone, Copy, Debug, Default)]
pub struct LastValue<K, V> {
    last: Option<(K, V)>,
}

impl<K: Copy + PartialEq, V: Copy> LastValue<K, V> {
    /// The value for `key`: the remembered one if `key` equals the last key, else
    /// `compute()`, remembered with `key`.
    #[inline]
    pub fn get_or(&mut self, key: K, compute: impl FnOnce() -> V) -> V {
        match self.last {
            Some((k, v)) if k == key => v,
            _ => {
                let v = compute();
                self.last = Some((key, v));
                v
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computes_only_when_the_key_changes() {
        let mut m = LastValue::<u64, u64>::default();
        let mut calls = 0;
        let mut square = |k: u64| {
            m.get_or(k, || {
                calls += 1;
                k * k
            })
        };
        // 3, 3, 4, 4, 3: three computations (the first, a change, a change back).
        let got: Vec<u64> = [3, 3, 4, 4, 3].into_iter().map(&mut square).collect();
        assert_eq!(got, [9, 9, 16, 16, 9]);
        assert_eq!(calls, 3);
    }
}
