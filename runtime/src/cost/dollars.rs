//! An amount of US dollars a bound is set in: positive and finite, so bounds compare and hash.

use std::fmt;

/// A positive, finite amount of US dollars: a run's dollar budget
/// ([`Limits::budget_usd`](crate::Limits::budget_usd)).
///
/// # Examples
/// ```
/// use ladoga::cost::Dollars;
///
/// assert_eq!(Dollars::new(0.5).unwrap().get(), 0.5);
/// assert!(Dollars::new(0.0).is_none());
/// assert!(Dollars::new(f64::NAN).is_none());
/// assert_eq!(Dollars::new(0.5).unwrap().to_string(), "$0.50");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Dollars(f64);

impl Dollars {
    /// `amount` dollars, when it is a positive, finite number.
    pub fn new(amount: f64) -> Option<Self> {
        (amount.is_finite() && amount > 0.0).then_some(Self(amount))
    }

    /// The amount, in dollars.
    pub fn get(self) -> f64 {
        self.0
    }
}

// Never NaN: equality is total.
impl Eq for Dollars {}

impl std::hash::Hash for Dollars {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

impl fmt::Display for Dollars {
    /// Cents when the amount has none smaller, else up to six decimals: `$0.50`, `$0.000125`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        usd(self.0).fmt(f)
    }
}

/// `amount` dollars as a person reads them: cents when it has none smaller, else up to six
/// decimals.
pub(crate) fn usd(amount: f64) -> String {
    let cents = (amount * 100.0).round() / 100.0;
    if (amount - cents).abs() < 1e-9 {
        format!("${amount:.2}")
    } else {
        let six = format!("{amount:.6}");
        format!("${}", six.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::usd;

    #[test]
    fn amounts_read_as_cents_or_as_many_decimals_as_they_need() {
        assert_eq!(usd(5.0), "$5.00");
        assert_eq!(usd(0.05), "$0.05");
        assert_eq!(usd(0.000125), "$0.000125");
        assert_eq!(usd(0.0), "$0.00");
    }
}
