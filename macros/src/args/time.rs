//! Durations as the `timeout` argument writes them: `"90s"`, `"500ms"`, `"2m"`, `"1h30m"`.

/// The milliseconds `text` stands for: one or more groups of digits followed by a unit (`ms`,
/// `s`, `m` or `h`), adding up to more than zero.
pub(crate) fn millis(text: &str) -> Result<u64, &'static str> {
    const FORM: &str =
        "write a number and a unit (`ms`, `s`, `m`, `h`), such as \"90s\" or \"1m30s\"";
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(FORM);
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let value: u64 = rest[..digits].parse().map_err(|_| FORM)?;
        rest = &rest[digits..];
        let unit = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let scale = match &rest[..unit] {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            _ => return Err(FORM),
        };
        rest = &rest[unit..];
        total = value
            .checked_mul(scale)
            .and_then(|part| total.checked_add(part))
            .ok_or("this duration is too long")?;
    }
    if total == 0 {
        return Err("a duration must be longer than zero");
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_groups_add_up() {
        assert_eq!(millis("90s"), Ok(90_000));
        assert_eq!(millis("500ms"), Ok(500));
        assert_eq!(millis("1h30m"), Ok(5_400_000));
        assert_eq!(millis("1m30s"), Ok(90_000));
    }

    #[test]
    fn other_forms_are_refused() {
        for text in ["", "90", "s", "1.5s", "90 s", "90sec", "-1s"] {
            assert!(millis(text).is_err(), "{text}");
        }
        assert_eq!(millis("0s"), Err("a duration must be longer than zero"));
    }
}
