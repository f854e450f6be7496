//! A quota: what one caller may spend on a tool in a minute, an hour or a day.

use std::fmt;
use std::time::Duration;

use super::Dollars;

/// The window a [`Quota`] counts in: fixed windows of the clock (UTC), a day from midnight to
/// midnight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Per {
    /// A minute of the clock.
    Minute,
    /// An hour of the clock.
    Hour,
    /// A day, from midnight UTC.
    Day,
}

impl Per {
    /// How long the window is.
    pub fn duration(self) -> Duration {
        Duration::from_secs(match self {
            Self::Minute => 60,
            Self::Hour => 60 * 60,
            Self::Day => 24 * 60 * 60,
        })
    }

    /// Its name in a quota: `minute`, `hour` or `day`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Minute => "minute",
            Self::Hour => "hour",
            Self::Day => "day",
        }
    }
}

/// What one caller (its token's issuer and subject; callers without a token together) may
/// spend on a tool in each window: `quota = "5 USD/day"`. Kept in the run store, so replicas
/// sharing one (Redis) share the quota; a call over it is refused before the model is asked.
///
/// # Examples
/// ```
/// use ladoga::cost::{Per, Quota};
///
/// let quota = Quota::parse("5 USD/day").unwrap();
/// assert_eq!(quota, Quota::new(5.0, Per::Day));
/// assert_eq!(quota.to_string(), "$5.00 a day");
/// assert!(Quota::parse("5 EUR/day").is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Quota {
    dollars: Dollars,
    per: Per,
}

impl Quota {
    /// `dollars` a `per`.
    ///
    /// # Panics
    /// When `dollars` is not a positive, finite number; `#[orchestrator(quota = …)]` checks it
    /// at compile time.
    pub fn new(dollars: f64, per: Per) -> Self {
        let dollars = Dollars::new(dollars)
            .unwrap_or_else(|| panic!("a quota is a positive amount of dollars, not {dollars}"));
        Self { dollars, per }
    }

    /// The quota `text` says: `"<amount> USD/<minute|hour|day>"`, as `"5 USD/day"` or
    /// `"0.50 USD/hour"`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let wrong = || format!("`{text}` is no quota: write it as `5 USD/day` (or /hour, /minute)");
        let (amount, per) = text.trim().split_once('/').ok_or_else(wrong)?;
        let amount = amount.trim().strip_suffix("USD").ok_or_else(wrong)?.trim();
        let per = match per.trim() {
            "minute" => Per::Minute,
            "hour" => Per::Hour,
            "day" => Per::Day,
            _ => return Err(wrong()),
        };
        let dollars = amount
            .parse::<f64>()
            .ok()
            .and_then(Dollars::new)
            .ok_or_else(wrong)?;
        Ok(Self { dollars, per })
    }

    /// The dollars of each window.
    pub fn dollars(&self) -> Dollars {
        self.dollars
    }

    /// The window.
    pub fn per(&self) -> Per {
        self.per
    }
}

impl fmt::Display for Quota {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} a {}", self.dollars, self.per.name())
    }
}

/// A quota every orchestrator of a server books against, beside its own: what one caller may
/// spend on all of the server's tools together in each window. Registered in neva's DI:
/// `App::add_singleton(ServerQuota(Quota::parse("50 USD/day")?))`.
///
/// # Examples
/// ```
/// use ladoga::cost::{Quota, ServerQuota};
///
/// let app = neva::App::new().add_singleton(ServerQuota(Quota::parse("50 USD/day").unwrap()));
/// # let _ = app;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ServerQuota(pub Quota);
