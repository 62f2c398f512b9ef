//! The times agents write most, `2026-01-01T00:00:20.000Z` (UTC, a `T`, a `Z`, from
//! 1970 to 9998), read without the general RFC 3339 parser: a call's timing reads two of
//! them, and the parser's generality cost more than the rest of the timing. Any other
//! text (an offset, a lower-case `t`, a leap second, a time before 1970, the parser's
//! last year, …) is left to it.

/// The seconds since the Unix epoch and the nanoseconds past them of `text`, when it has
/// exactly the form `YYYY-MM-DDTHH:MM:SS[.F]Z` (one to nine digits of fraction) and names
/// a real instant of the years 1970 to 9998; `None` for any other text, which the caller
/// then reads with the general parser (which may read it, or refuse it).
pub(crate) fn read(text: &str) -> Option<(u64, u32)> {
    let bytes = text.as_bytes();
    let (date_time, rest) = bytes.split_at_checked(19)?;
    let [
        y1,
        y2,
        y3,
        y4,
        b'-',
        m1,
        m2,
        b'-',
        d1,
        d2,
        b'T',
        h1,
        h2,
        b':',
        i1,
        i2,
        b':',
        s1,
        s2,
    ] = *date_time
    else {
        return None;
    };
    let year = number(&[y1, y2, y3, y4])?;
    let (month, day) = (number(&[m1, m2])?, number(&[d1, d2])?);
    let (hour, minute, second) = (number(&[h1, h2])?, number(&[i1, i2])?, number(&[s1, s2])?);
    if !(1970..=LAST_YEAR).contains(&year)
        || !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let nanos = match rest {
        [b'Z'] => 0,
        [b'.', fraction @ .., b'Z'] if (1..=9).contains(&fraction.len()) => {
            let digits = number(fraction)?;
            // Nine digits are nanoseconds: fewer are scaled up.
            let scale = 10_u32.pow(9 - u32::try_from(fraction.len()).ok()?);
            u32::try_from(digits).ok()?.checked_mul(scale)?
        }
        _ => return None,
    };
    let days = days_since_epoch(year, month, day);
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second;
    Some((seconds, nanos))
}

/// The last year read here: the general parser's range ends late in 9999.
const LAST_YEAR: u64 = 9998;

/// The number the ASCII digits `digits` write; `None` when one is not a digit.
fn number(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0_u64, |value, &digit| {
        digit
            .is_ascii_digit()
            .then(|| value * 10 + u64::from(digit - b'0'))
    })
}

/// Whether `year` is a leap year of the Gregorian calendar.
fn is_leap(year: u64) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

/// The days of `month` (1 to 12) of `year`.
fn days_in_month(year: u64, month: u64) -> u64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The days from 1970-01-01 to a date from 1970 on (the civil-from-days algorithm run
/// backwards: years counted from March, so that the leap day ends a year).
fn days_since_epoch(year: u64, month: u64, day: u64) -> u64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year / 400;
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    // 719,468 days from 0000-03-01 to 1970-01-01.
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the general parser reads of `text`, as [`read`] gives it.
    fn parsed(text: &str) -> Option<(u64, u32)> {
        let instant: jiff::Timestamp = text.parse().ok()?;
        Some((
            u64::try_from(instant.as_second()).ok()?,
            u32::try_from(instant.subsec_nanosecond()).ok()?,
        ))
    }

    #[test]
    fn the_common_form_reads_as_the_parser_reads_it_and_any_other_is_left_to_it() {
        for text in [
            "1970-01-01T00:00:00Z",
            "2026-01-01T00:00:20.000Z",
            "2024-02-29T23:59:59.999999999Z",
            "2000-02-29T12:00:00.5Z",
            "9998-12-31T23:59:59.123456Z",
            "2100-03-01T00:00:00Z",
        ] {
            assert_eq!(read(text), parsed(text), "{text}");
            assert!(read(text).is_some(), "{text}");
        }
        for text in [
            "2023-02-29T00:00:00Z",
            "2100-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T00:60:00Z",
            "2026-12-31T23:59:60Z",
            "2026-00-01T00:00:00Z",
            "2026-01-00T00:00:00Z",
            "1969-12-31T23:59:59.5Z",
            "9999-01-01T00:00:00Z",
            "2026-01-01t00:00:00Z",
            "2026-01-01 00:00:00Z",
            "2026-01-01T00:00:00z",
            "2026-01-01T00:00:00+02:00",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00:00.1234567890Z",
            "2026-01-01T00:00:00",
            "2026-1-01T00:00:00Z",
            "+2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z ",
            "２０２６-01-01T00:00:00Z",
            "",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
    }

    proptest! {
        #[test]
        fn every_instant_of_the_form_reads_as_the_parser_reads_it(
            year in 1970_u64..=9999,
            month in 1_u64..=12,
            day in 1_u64..=31,
            hour in 0_u64..=23,
            minute in 0_u64..=59,
            second in 0_u64..=59,
            fraction in proptest::option::of("[0-9]{1,9}"),
        ) {
            let fraction = fraction.map(|digits| format!(".{digits}")).unwrap_or_default();
            let text = format!(
                "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{fraction}Z"
            );
            // A day past the month's end is refused by both; the last year is the
            // parser's alone.
            let expected = parsed(&text).filter(|_| year <= LAST_YEAR);
            prop_assert_eq!(read(&text), expected, "{}", text);
        }
    }
}
