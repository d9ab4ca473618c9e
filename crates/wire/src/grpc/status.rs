//! A call's outcome: the status code of `grpc-status` (0-16, each with its canonical name) and
//! the human text of `grpc-message`, percent-encoded on the wire; and the code a client gives a
//! response that is no gRPC at all, from its HTTP status (gRPC's http-grpc-status-mapping).

use super::GrpcError;
use barrage_model::load::GRPC_CODES;

macro_rules! codes {
    ($($n:literal $v:ident,)*) => {
        /// A gRPC status code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $($v = $n,)* }

        impl Code {
            /// Every code, by number.
            pub const ALL: [Code; 17] = [$(Code::$v,)*];

            /// The code of a number, if it is one (0-16).
            pub fn from_u32(n: u32) -> Option<Code> {
                match n { $($n => Some(Code::$v),)* _ => None }
            }
        }
    };
}

codes! {
    0 Ok,
    1 Cancelled,
    2 Unknown,
    3 InvalidArgument,
    4 DeadlineExceeded,
    5 NotFound,
    6 AlreadyExists,
    7 PermissionDenied,
    8 ResourceExhausted,
    9 FailedPrecondition,
    10 Aborted,
    11 OutOfRange,
    12 Unimplemented,
    13 Internal,
    14 Unavailable,
    15 DataLoss,
    16 Unauthenticated,
}

impl Code {
    /// Reads `grpc-status`: 1 or 2 ASCII digits naming a code from 0 to 16.
    pub fn parse(value: &[u8]) -> Result<Code, GrpcError> {
        let bad = || GrpcError::BadStatus(String::from_utf8_lossy(value).into_owned());
        if value.is_empty() || value.len() > 2 || !value.iter().all(u8::is_ascii_digit) {
            return Err(bad());
        }
        let n = value.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
        Code::from_u32(n).ok_or_else(bad)
    }

    /// The code a client gives a response without `grpc-status` whose HTTP status is not 200
    /// (gRPC's doc/http-grpc-status-mapping.md).
    pub fn from_http_status(status: u16) -> Code {
        match status {
            400 => Code::Internal,
            401 => Code::Unauthenticated,
            403 => Code::PermissionDenied,
            404 => Code::Unimplemented,
            429 | 502 | 503 | 504 => Code::Unavailable,
            _ => Code::Unknown,
        }
    }

    /// The number written in `grpc-status`.
    pub fn as_u32(self) -> u32 {
        self as u32
    }

    /// The canonical name (`OK`, `DEADLINE_EXCEEDED`, ...), as gRPC's tools print it: the
    /// model's table, which the load document's `grpc.calls` and `--expect-status` use too.
    pub fn name(self) -> &'static str {
        GRPC_CODES[self as usize]
    }

    /// The code of a canonical name, as a user writes it (`--expect-status`): any case.
    pub fn from_name(s: &str) -> Option<Code> {
        Code::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s))
    }
}

/// A call's status: its code and `grpc-message` (decoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub code: Code,
    pub message: String,
}

impl Status {
    /// The status of a call's trailers (or of a trailers-only response's headers): `grpc-status`
    /// must be there and valid; `grpc-message` is optional and decoded leniently (the protocol
    /// says a receiver must not fail on a bad one). Names are compared in lower case, as HTTP/2
    /// sends them.
    pub fn from_fields<'a>(
        fields: impl IntoIterator<Item = (&'a [u8], &'a [u8])>,
    ) -> Result<Status, GrpcError> {
        let mut code = None;
        let mut message = String::new();
        for (name, value) in fields {
            match name {
                b"grpc-status" => code = Some(Code::parse(value)?),
                b"grpc-message" => message = decode_message(value),
                _ => {}
            }
        }
        Ok(Status {
            code: code.ok_or(GrpcError::MissingStatus)?,
            message,
        })
    }
}

/// The most of a call's `grpc-message` a [`Brief`] keeps (as it came, percent-encoded).
pub const BRIEF: usize = 128;

/// A call's `grpc-message` as it came (percent-encoded), its first [`BRIEF`] bytes: `Copy` and
/// kept without allocating, so a failed call carries it to the recorder, which decodes it only
/// when it keeps the failure as an example ([`Brief::text`]). A longer message is cut (at an
/// escape's start, never inside one) and its text ends with `...`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Brief {
    len: u8,
    cut: bool,
    raw: [u8; BRIEF],
}

impl Brief {
    /// No message.
    pub const EMPTY: Brief = Brief {
        len: 0,
        cut: false,
        raw: [0; BRIEF],
    };

    /// The first [`BRIEF`] bytes of a `grpc-message` value.
    pub fn new(value: &[u8]) -> Brief {
        let mut b = Brief::EMPTY;
        let mut n = value.len().min(BRIEF);
        if n < value.len() {
            b.cut = true;
            // Not inside a `%XX`: its bytes decode together or not at all.
            if let Some(p) = value[n.saturating_sub(2)..n]
                .iter()
                .position(|&c| c == b'%')
            {
                n = n.saturating_sub(2) + p;
            }
        }
        b.raw[..n].copy_from_slice(&value[..n]);
        b.len = n as u8;
        b
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0 && !self.cut
    }

    /// The message's text (decoded as [`decode_message`] does); a cut one without the partial
    /// character its cut may leave, and with `...` after it.
    pub fn text(&self) -> String {
        let bytes = decode_bytes(&self.raw[..usize::from(self.len)]);
        if !self.cut {
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        let whole = match std::str::from_utf8(&bytes) {
            Err(e) if e.error_len().is_none() => &bytes[..e.valid_up_to()],
            _ => &bytes[..],
        };
        format!("{}...", String::from_utf8_lossy(whole))
    }
}

impl std::fmt::Display for Brief {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

impl std::fmt::Debug for Brief {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Brief({:?})", self.text())
    }
}

/// `grpc-message`'s encoding: bytes from space to `~` but `%` as they are, every other byte
/// of the UTF-8 text as `%XX`.
pub fn encode_message(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if (0x20..=0x7e).contains(&b) && b != b'%' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `grpc-message`: `%XX` to its byte, anything else as it is (a `%` without two hex
/// digits after it included), and the bytes read as UTF-8 with invalid sequences replaced.
pub fn decode_message(value: &[u8]) -> String {
    String::from_utf8_lossy(&decode_bytes(value)).into_owned()
}

/// [`decode_message`]'s bytes, before they are read as UTF-8.
fn decode_bytes(value: &[u8]) -> Vec<u8> {
    let hex = |b: u8| char::from(b).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(value.len());
    let mut i = 0;
    while i < value.len() {
        if value[i] == b'%' && i + 2 < value.len() {
            if let (Some(h), Some(l)) = (hex(value[i + 1]), hex(value[i + 2])) {
                out.push(h << 4 | l);
                i += 3;
                continue;
            }
        }
        out.push(value[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_by_number_and_name() {
        for (i, c) in Code::ALL.iter().enumerate() {
            assert_eq!(c.as_u32(), i as u32);
            assert_eq!(Code::from_u32(i as u32), Some(*c));
            assert_eq!(Code::from_name(&c.name().to_lowercase()), Some(*c));
        }
        assert_eq!(Code::from_u32(17), None);
        assert_eq!(Code::DeadlineExceeded.name(), "DEADLINE_EXCEEDED");
        assert_eq!(Code::from_name("unavailable"), Some(Code::Unavailable));
        assert_eq!(Code::from_name("NOPE"), None);
    }

    #[test]
    fn parses_grpc_status() {
        for (v, want) in [
            (&b"0"[..], Ok(Code::Ok)),
            (b"4", Ok(Code::DeadlineExceeded)),
            (b"16", Ok(Code::Unauthenticated)),
            (b"014", Err(())),
            (b"17", Err(())),
            (b"99", Err(())),
            (b"", Err(())),
            (b"-1", Err(())),
            (b" 1", Err(())),
            (b"OK", Err(())),
        ] {
            assert_eq!(Code::parse(v).map_err(|_| ()), want, "{v:?}");
        }
        assert_eq!(Code::parse(b"17"), Err(GrpcError::BadStatus("17".into())));
    }

    #[test]
    fn http_statuses_map_as_grpc_says() {
        for (s, c) in [
            (400, Code::Internal),
            (401, Code::Unauthenticated),
            (403, Code::PermissionDenied),
            (404, Code::Unimplemented),
            (429, Code::Unavailable),
            (502, Code::Unavailable),
            (503, Code::Unavailable),
            (504, Code::Unavailable),
            (500, Code::Unknown),
            (302, Code::Unknown),
        ] {
            assert_eq!(Code::from_http_status(s), c, "{s}");
        }
    }

    #[test]
    fn status_from_trailers() {
        let f = |v: &[(&'static str, &'static str)]| {
            Status::from_fields(v.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes())))
        };
        assert_eq!(
            f(&[("grpc-status", "0")]),
            Ok(Status {
                code: Code::Ok,
                message: String::new()
            })
        );
        assert_eq!(
            f(&[
                ("grpc-message", "no%20such%20thing"),
                ("grpc-status", "5"),
                ("x", "y")
            ]),
            Ok(Status {
                code: Code::NotFound,
                message: "no such thing".into()
            })
        );
        assert_eq!(f(&[("grpc-message", "x")]), Err(GrpcError::MissingStatus));
        assert_eq!(f(&[]), Err(GrpcError::MissingStatus));
        assert_eq!(
            f(&[("grpc-status", "42")]),
            Err(GrpcError::BadStatus("42".into()))
        );
    }

    #[test]
    fn messages_round_trip_and_decode_leniently() {
        for text in [
            "",
            "plain",
            "100% sure",
            "ünïcödé ✓",
            "tab\there",
            "line\nbreak",
            "%41",
        ] {
            let e = encode_message(text);
            assert!(e.bytes().all(|b| (0x20..=0x7e).contains(&b)), "{e}");
            assert_eq!(decode_message(e.as_bytes()), text);
        }
        assert_eq!(encode_message("a%b é"), "a%25b %C3%A9");
        for (v, want) in [
            (&b"%"[..], "%"),
            (b"%4", "%4"),
            (b"%zz", "%zz"),
            (b"50%", "50%"),
            (b"%41%", "A%"),
            (b"%FF", "\u{fffd}"),
            (b"%e2%9c%93", "✓"),
        ] {
            assert_eq!(decode_message(v), want, "{v:?}");
        }
    }

    #[test]
    fn a_brief_keeps_a_bounded_message_and_cuts_it_cleanly() {
        assert!(Brief::new(b"").is_empty());
        assert_eq!(Brief::new(b"no%20such%20thing").text(), "no such thing");
        let long = "x".repeat(200);
        assert_eq!(
            Brief::new(long.as_bytes()).text(),
            format!("{}...", &long[..BRIEF])
        );
        // A cut never splits an escape: "%C3%A9" (é) is dropped whole, not read as "%C".
        for pad in 120..=BRIEF {
            let v = format!("{}%C3%A9tail", "a".repeat(pad));
            let t = Brief::new(v.as_bytes()).text();
            assert!(t.ends_with("..."), "{pad}: {t}");
            // What is kept is the text's start, whole characters only.
            let whole = format!("{}étail", "a".repeat(pad));
            let kept = t.trim_end_matches("...");
            assert!(whole.starts_with(kept), "{pad}: {t:?}");
            assert!(kept.len() >= pad, "{pad}: {t:?}");
        }
        // Exactly the limit: whole, not cut.
        let v = "b".repeat(BRIEF);
        assert_eq!(Brief::new(v.as_bytes()).text(), v);
    }
}
