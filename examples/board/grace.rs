//! The drain on SIGTERM or SIGINT (`--drain`, 30 s by default): the board stops taking new
//! calls (its front answers them `503`), lets the requests in flight and the paused runs held
//! in this process finish within the grace period, then stops the runs still going (each answers
//! its caller with a clear tool error), waits for those answers to be written, stops listening
//! and waits for its callers to close their connections (`Front::close`), and shuts neva down.

use std::time::{Duration, Instant};

use neva::app::ShutdownHandle;

use crate::front::Front;

/// How long the stopped runs' answers may take to be written, after the grace period.
const STOPPED_ANSWERS: Duration = Duration::from_secs(5);

/// How long the callers have to close their connections once the front stops listening: longer
/// than the idle timeout of a load balancer's kept-alive connections (nginx's upstream
/// `keepalive_timeout`, 4 s in the configuration docs/replicas.md gives).
const LINGER: Duration = Duration::from_secs(5);

/// How often the drain looks whether it is done.
const POLL: Duration = Duration::from_millis(20);

/// A duration as the flag is written: a whole number and `ms`, `s` or `m` ("500ms", "30s",
/// "2m").
pub fn parse(text: &str) -> Result<Duration, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("`{text}` has no unit: write it as 500ms, 30s or 2m"))?;
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` does not start with a whole number"))?;
    match unit {
        "ms" => Ok(Duration::from_millis(number)),
        "s" => Ok(Duration::from_secs(number)),
        "m" => number
            .checked_mul(60)
            .map(Duration::from_secs)
            .ok_or_else(|| format!("`{text}` is too long")),
        _ => Err(format!(
            "`{text}` has the unit `{unit}`: write it as 500ms, 30s or 2m"
        )),
    }
}

/// What the drain drives.
pub struct Grace {
    /// The runs' side of it, in neva's DI.
    pub runs: ladoga::Drain,
    /// The front, whose requests in flight it waits for.
    pub front: Front,
    /// The paused runs, some of which this process may hold.
    pub paused: ladoga::Runs,
    /// How long the calls in flight have.
    pub grace: Duration,
    /// Stops neva.
    pub shutdown: ShutdownHandle,
}

impl Grace {
    /// Drains the board, as the module says, and shuts neva down.
    pub async fn run(self) {
        let started = Instant::now();
        self.runs.begin();
        tracing::info!(
            "board: draining: no new calls; those in flight have {} ms",
            self.grace.as_millis()
        );
        let deadline = started + self.grace;
        while !self.done() && Instant::now() < deadline {
            tokio::time::sleep(POLL).await;
        }
        if !self.done() {
            tracing::warn!(
                "board: the grace period is over: stopping {} requests in flight and {} paused \
                 runs",
                self.front.in_flight(),
                self.held_here()
            );
        }
        self.runs.stop_runs();
        let written = Instant::now() + STOPPED_ANSWERS;
        while self.front.in_flight() > 0 && Instant::now() < written {
            tokio::time::sleep(POLL).await;
        }
        self.front.close(LINGER).await;
        tracing::info!(
            "board: drained in {} ms: stopping",
            started.elapsed().as_millis()
        );
        self.shutdown.shutdown();
    }

    /// Whether nothing is left to wait for: no request in flight, no paused run that only this
    /// process can resume.
    fn done(&self) -> bool {
        self.front.in_flight() == 0 && self.held_here() == 0
    }

    /// The paused runs that only this process can resume.
    fn held_here(&self) -> usize {
        match self.paused.is_local() {
            true => self.paused.held_here().unwrap_or(0),
            false => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_read_with_their_unit() {
        assert_eq!(parse("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse("0s"), Ok(Duration::ZERO));
        assert!(parse("30").unwrap_err().contains("no unit"));
        assert!(parse("s").unwrap_err().contains("whole number"));
        assert!(parse("3h").unwrap_err().contains("`h`"));
        assert!(parse("-1s").is_err());
    }
}
