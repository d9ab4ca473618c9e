//! The `Date` header value (IMF-fixdate), formatted once per second per thread.

use std::time::{SystemTime, UNIX_EPOCH};

/// Length of an IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
pub(crate) const DATE_LEN: usize = 29;

/// Caches the formatted date of the current second.
pub(crate) struct DateCache {
    secs: u64,
    value: [u8; DATE_LEN],
}

impl DateCache {
    pub(crate) fn new() -> Self {
        let mut d = DateCache {
            secs: u64::MAX,
            value: [b' '; DATE_LEN],
        };
        d.refresh();
        d
    }

    /// Reads the clock (a vDSO call, no syscall); returns true when the second changed.
    pub(crate) fn refresh(&mut self) -> bool {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        if secs == self.secs {
            return false;
        }
        self.secs = secs;
        self.value = format_date(secs);
        true
    }

    pub(crate) fn get(&self) -> &[u8; DATE_LEN] {
        &self.value
    }
}

/// Formats seconds since the Unix epoch as an IMF-fixdate.
pub(crate) fn format_date(secs: u64) -> [u8; DATE_LEN] {
    const DAYS: [&[u8; 3]; 7] = [b"Thu", b"Fri", b"Sat", b"Sun", b"Mon", b"Tue", b"Wed"];
    const MONTHS: [&[u8; 3]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (h, m, s) = (rem / 3600, (rem / 60) % 60, rem % 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u64;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as usize;
    let year = (yoe + era * 400 + i64::from(month <= 2)) as u64;
    let mut out = [0u8; DATE_LEN];
    out[..3].copy_from_slice(DAYS[(days % 7) as usize]);
    out[3..5].copy_from_slice(b", ");
    two(&mut out[5..7], day);
    out[7] = b' ';
    out[8..11].copy_from_slice(MONTHS[month - 1]);
    out[11] = b' ';
    two(&mut out[12..14], year / 100 % 100);
    two(&mut out[14..16], year % 100);
    out[16] = b' ';
    two(&mut out[17..19], h);
    out[19] = b':';
    two(&mut out[20..22], m);
    out[22] = b':';
    two(&mut out[23..25], s);
    out[25..].copy_from_slice(b" GMT");
    out
}

fn two(dst: &mut [u8], v: u64) {
    dst[0] = b'0' + (v / 10 % 10) as u8;
    dst[1] = b'0' + (v % 10) as u8;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        let cases = [
            (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
            (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
            (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
            (1_795_304_518, "Sat, 21 Nov 2026 23:41:58 GMT"),
            (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 GMT"),
        ];
        for (secs, want) in cases {
            assert_eq!(std::str::from_utf8(&format_date(secs)).unwrap(), want);
        }
    }
}
