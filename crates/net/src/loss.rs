//! Random packet loss on a link.
//!
//! - Bernoulli: every packet is lost independently with probability `p`.
//! - Gilbert–Elliott: a two-state Markov chain advanced once per packet. In the good state a
//!   packet is lost with probability `loss_good`, in the bad state with `loss_bad`; the chain
//!   moves good→bad with probability `p_good_to_bad` and bad→good with `p_bad_to_good`
//!   before each packet (Gilbert 1960, Elliott 1963; the per-packet parameterisation of
//!   RFC 3611 §4.7.2 and of netem). The stationary loss rate is
//!   `π_bad·loss_bad + π_good·loss_good` with `π_bad = p_gb / (p_gb + p_bg)`.

use mmtsim_engine::SimRng;
use rand::Rng;

/// A loss process.
#[derive(Clone, Debug, PartialEq)]
pub enum LossModel {
    /// No random loss.
    None,
    /// Independent loss with probability `p`.
    Bernoulli {
        /// Loss probability per packet.
        p: f64,
    },
    /// Two-state Markov (bursty) loss.
    GilbertElliott {
        /// Probability of moving from the good to the bad state before a packet.
        p_good_to_bad: f64,
        /// Probability of moving from the bad to the good state before a packet.
        p_bad_to_good: f64,
        /// Loss probability in the good state.
        loss_good: f64,
        /// Loss probability in the bad state.
        loss_bad: f64,
    },
}

/// A loss process with its state and random stream.
pub struct LossProcess {
    model: LossModel,
    in_bad_state: bool,
    rng: SimRng,
}

impl LossProcess {
    /// A process drawing from `rng`, starting in the good state.
    pub fn new(model: LossModel, rng: SimRng) -> Self {
        LossProcess {
            model,
            in_bad_state: false,
            rng,
        }
    }

    /// Decides whether the next packet is lost.
    #[inline]
    pub fn lose_next(&mut self) -> bool {
        match self.model {
            LossModel::None => false,
            LossModel::Bernoulli { p } => p > 0.0 && self.rng.random::<f64>() < p,
            LossModel::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => {
                let flip = if self.in_bad_state {
                    p_bad_to_good
                } else {
                    p_good_to_bad
                };
                if self.rng.random::<f64>() < flip {
                    self.in_bad_state = !self.in_bad_state;
                }
                let p = if self.in_bad_state {
                    loss_bad
                } else {
                    loss_good
                };
                self.rng.random::<f64>() < p
            }
        }
    }

    /// The long-run loss probability of the model.
    pub fn stationary_loss(&self) -> f64 {
        match self.model {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => {
                let s = p_good_to_bad + p_bad_to_good;
                if s == 0.0 {
                    return loss_good;
                }
                let pi_bad = p_good_to_bad / s;
                pi_bad * loss_bad + (1.0 - pi_bad) * loss_good
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mmtsim_engine::RngStreams;

    fn measured(model: LossModel, n: usize) -> (f64, f64) {
        let mut p = LossProcess::new(model, RngStreams::new(3).stream("loss"));
        let st = p.stationary_loss();
        let lost = (0..n).filter(|_| p.lose_next()).count();
        (lost as f64 / n as f64, st)
    }

    #[test]
    fn bernoulli_rate_matches_p() {
        // 1e6 draws at p = 0.01: std error sqrt(p(1-p)/n) ≈ 1e-4, allow 5 sigma.
        let (m, st) = measured(LossModel::Bernoulli { p: 0.01 }, 1_000_000);
        assert_eq!(st, 0.01);
        assert!((m - 0.01).abs() < 5e-4, "measured {m}");
    }

    #[test]
    fn gilbert_elliott_matches_stationary_rate_and_is_bursty() {
        // p_gb = 0.01, p_bg = 0.24, loss only in bad: π_bad = 0.01/0.25 = 0.04.
        let model = LossModel::GilbertElliott {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.24,
            loss_good: 0.0,
            loss_bad: 1.0,
        };
        let (m, st) = measured(model.clone(), 2_000_000);
        assert!((st - 0.04).abs() < 1e-12);
        assert!((m - 0.04).abs() < 0.003, "measured {m}");
        // Mean burst length is 1/p_bg ≈ 4.17 packets, far above Bernoulli's 1/(1-p) ≈ 1.04.
        let mut p = LossProcess::new(model, RngStreams::new(9).stream("loss"));
        let (mut bursts, mut lost, mut prev) = (0, 0, false);
        for _ in 0..2_000_000 {
            let l = p.lose_next();
            if l {
                lost += 1;
                if !prev {
                    bursts += 1;
                }
            }
            prev = l;
        }
        let mean_burst = lost as f64 / bursts as f64;
        assert!(
            (mean_burst - 1.0 / 0.24).abs() < 0.3,
            "mean burst {mean_burst}"
        );
    }

    #[test]
    fn none_never_loses() {
        let (m, _) = measured(LossModel::None, 10_000);
        assert_eq!(m, 0.0);
    }
}
