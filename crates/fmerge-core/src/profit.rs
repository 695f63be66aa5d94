//! Profit math (seed 000): a merge of functions f1..fn into one body pays when
//!
//! Δ = Σ c(fi) − (c(merged) + ε) > 0,
//!
//! with c a code-size cost and ε what keeps the originals callable (thunks, extra arguments at
//! rewritten call sites). Costs here are TTI code-size units; [`BYTES_PER_UNIT`] turns them into
//! bytes for reports (the corpus fit of `../shared/notes/cost-model-facts.md`: 4.42 bytes per
//! unit on x86-64, 4.54 on aarch64).
//!
//! TTI cannot order two sizes within ~10% of each other much better than a coin, so a decision
//! whose estimated gain is small relative to the sizes involved is [`Verdict::Measure`]: the
//! caller confirms it by generating code.

/// Average bytes of machine code per TTI code-size unit.
pub const BYTES_PER_UNIT: f64 = 4.4;

/// Converts TTI units to estimated bytes.
pub fn units_to_bytes(units: i64) -> i64 {
    (units as f64 * BYTES_PER_UNIT).round() as i64
}

/// TTI units of a thunk forwarding `args` arguments: the call (1 + arguments) and the return.
pub fn thunk_units(args: usize) -> i64 {
    2 + args as i64
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Clearly saves code.
    Keep,
    /// Clearly does not.
    Reject,
    /// Too close to call from estimates.
    Measure,
}

/// Judges Δ = `before` − `after` (TTI units). Gains within `margin` × `before` of zero are too
/// close to call; `margin` = 0 trusts the estimate completely.
pub fn judge(before: i64, after: i64, margin: f64) -> Verdict {
    let delta = before - after;
    let band = (before.max(1) as f64 * margin).ceil() as i64;
    if margin > 0.0 && delta.abs() <= band {
        Verdict::Measure
    } else if delta > 0 {
        Verdict::Keep
    } else {
        Verdict::Reject
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clear_gains_and_losses_need_no_measurement() {
        assert_eq!(judge(100, 50, 0.2), Verdict::Keep);
        assert_eq!(judge(100, 150, 0.2), Verdict::Reject);
    }

    #[test]
    fn close_calls_are_measured() {
        assert_eq!(judge(100, 95, 0.2), Verdict::Measure);
        assert_eq!(judge(100, 105, 0.2), Verdict::Measure);
    }

    #[test]
    fn zero_margin_trusts_the_estimate_and_ties_are_rejected() {
        assert_eq!(judge(100, 99, 0.0), Verdict::Keep);
        assert_eq!(judge(100, 100, 0.0), Verdict::Reject);
    }
}
