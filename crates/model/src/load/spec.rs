//! What the declaration of a load option says about it, as plain data ([`Spec`]): its name, its
//! help, its value grammar, its flag and whether a study may set or sweep it. The declaration
//! itself is `options.rs`; the CLI turns these specs into clap arguments, the lab's study
//! grammar and the JSON Schema's `config` come from the same list. No clap here: a flag is
//! described, never built.

use serde_json::Value;

/// One load option as declared (`options.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spec {
    /// Its name in documents and study files (a `Config` field, a protocol option, or a phase's).
    pub name: &'static str,
    pub group: Group,
    /// The doc comment's lines as written (see [`Spec::help`]).
    pub doc: &'static str,
    pub grammar: Grammar,
    pub flag: Flag,
    pub study: Study,
}

/// Where an option lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// A field of the load `Config`.
    Config,
    /// One of the protocol's flat options (`ProtocolOptions`, flattened into the `Config`).
    Protocol,
    /// A study's alone, held by a point's phase rather than its `Config` (`tls`).
    Phase,
}

/// How an option's value is written on the command line and in a study file, and what it is in
/// a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    /// The URL (`http://`, `https://`, `ws://`, `wss://`); a study gives its path.
    Url,
    /// Text as given.
    Text,
    /// A file's path.
    File,
    /// An HTTP token (a method).
    Token,
    /// Text on the command line and in studies, bytes (an array of numbers) in documents.
    Bytes,
    /// A whole number in a range.
    Int { min: u64, max: u64 },
    /// Requests per second above zero, fractions allowed.
    Rate,
    /// The one duration grammar (`10s`, `500ms`); seconds in documents.
    Duration,
    /// The one size grammar (`64KiB`) in a range; bytes in documents.
    Size { min: u64, max: u64 },
    /// On or off.
    Switch,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A rate schedule, `30s:1000,1m:1000,30s:0`; a list of stages in documents.
    Stages,
    /// A header line, `Name: value` (repeatable); a list of pairs in documents.
    Header,
    /// `I/N`, shard I of N.
    Shard,
    /// A wall-clock time: Unix seconds or RFC 3339; Unix seconds in documents.
    Time,
    /// The status a response must have: an HTTP status (100-999), or a gRPC code (0-16, or its
    /// name in any case: `NOT_FOUND`, `not_found`); a number in documents (a name read as its
    /// code's number: the two ranges never meet).
    Status,
}

/// `barrage load`'s flag for an option, described (the CLI builds it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag {
    pub form: Form,
    /// The long name when it is not the option's name with `-` for `_`.
    pub long: Option<&'static str>,
    pub short: Option<char>,
    /// Options it cannot be given with where no rule of the load says so (argument ids: option
    /// names, or the CLI's own flags).
    pub conflicts: &'static [&'static str],
    /// The option it means nothing without, where no rule of the load says so.
    pub requires: Option<&'static str>,
}

/// The shape of a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `--name VALUE` with this value name, or `--name` for a switch.
    Named(&'static str),
    /// `--no-name`, which turns a switch that is on by default off.
    Negated,
    /// The command's positional argument, required unless the other option is given.
    Positional(&'static str, Option<&'static str>),
    /// Every argument after `--`, with this value name (wrk's script arguments).
    Trailing(&'static str),
    /// No flag, and why.
    None(&'static str),
}

impl Flag {
    const fn of(form: Form) -> Flag {
        Flag {
            form,
            long: None,
            short: None,
            conflicts: &[],
            requires: None,
        }
    }
    /// `--name VALUE`.
    pub const fn named(value: &'static str) -> Flag {
        Flag::of(Form::Named(value))
    }
    /// `--name`, a switch.
    pub const fn switch() -> Flag {
        Flag::of(Form::Named(""))
    }
    /// `--no-name`.
    pub const fn negated() -> Flag {
        Flag::of(Form::Negated)
    }
    /// The positional argument.
    pub const fn positional(value: &'static str, unless: Option<&'static str>) -> Flag {
        Flag::of(Form::Positional(value, unless))
    }
    /// The arguments after `--`.
    pub const fn trailing(value: &'static str) -> Flag {
        Flag::of(Form::Trailing(value))
    }
    /// No flag, because `why`.
    pub const fn none(why: &'static str) -> Flag {
        Flag::of(Form::None(why))
    }
    pub const fn short(self, c: char) -> Flag {
        Flag {
            short: Some(c),
            ..self
        }
    }
    pub const fn long(self, l: &'static str) -> Flag {
        Flag {
            long: Some(l),
            ..self
        }
    }
    pub const fn conflicts(self, c: &'static [&'static str]) -> Flag {
        Flag {
            conflicts: c,
            ..self
        }
    }
    pub const fn requires(self, r: &'static str) -> Flag {
        Flag {
            requires: Some(r),
            ..self
        }
    }
}

/// What a study file may do with an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Study {
    /// Set it in `[load]`, a variant or a phase, and sweep it with a list: its place in the
    /// sweep's order (`rank`, lower varies slower), its short label in point labels, and its
    /// name in study files when that is not the option's (`path` for `url`).
    Sweep {
        rank: u16,
        label: &'static str,
        name: Option<&'static str>,
    },
    /// Set elsewhere in a study file, which says where.
    Elsewhere(&'static str),
    /// Not offered to studies, and why.
    No(&'static str),
}

impl Spec {
    /// The help text: the doc comment's lines joined, a blank line between paragraphs.
    pub fn help(&self) -> String {
        let (mut paragraphs, mut cur) = (Vec::new(), String::new());
        for line in self.doc.lines().map(str::trim) {
            if line.is_empty() {
                if !cur.is_empty() {
                    paragraphs.push(std::mem::take(&mut cur));
                }
            } else {
                if !cur.is_empty() {
                    cur.push(' ');
                }
                cur.push_str(line);
            }
        }
        if !cur.is_empty() {
            paragraphs.push(cur);
        }
        paragraphs.join("\n\n")
    }

    /// The long flag (`connections`, `no-keepalive`, `header`), or None without one.
    pub fn long(&self) -> Option<String> {
        let base = self
            .flag
            .long
            .map_or_else(|| self.name.replace('_', "-"), str::to_string);
        match self.flag.form {
            Form::Named(_) => Some(base),
            Form::Negated => Some(format!("no-{base}")),
            Form::Positional(..) | Form::Trailing(_) | Form::None(_) => None,
        }
    }

    /// The option's name in study files (`path` for `url`).
    pub fn study_name(&self) -> &'static str {
        match self.study {
            Study::Sweep { name: Some(n), .. } => n,
            _ => self.name,
        }
    }

    /// The default worth showing in help, in the grammar of the flag (`10`, `10s`, `GET`):
    /// none for a switch, an empty or absent value, or a help text that says its own.
    pub fn shown_default(&self) -> Option<String> {
        if self.doc.contains("[default") || self.group == Group::Phase {
            return None;
        }
        let doc = serde_json::to_value(super::Config::default()).ok()?;
        let v = doc.get(self.name)?;
        match (self.grammar, v) {
            (Grammar::Duration, Value::Number(n)) => Some(crate::units::format_duration(
                std::time::Duration::from_secs_f64(n.as_f64()?),
            )),
            (Grammar::Int { .. } | Grammar::Size { .. }, Value::Number(n)) => Some(n.to_string()),
            (Grammar::Text | Grammar::Token | Grammar::Choice(_), Value::String(s))
                if !s.is_empty() =>
            {
                Some(s.clone())
            }
            _ => None,
        }
    }
}

impl Grammar {
    /// A value given on the command line, checked and put in a form the `Config` reads (the
    /// form a study file writes, or a document's): durations and stages as text, sizes and
    /// times as numbers, a header as a pair. The error says what is wrong with the value.
    pub fn parse(&self, s: &str) -> Result<Value, String> {
        let t = s.trim();
        match *self {
            Grammar::Url
            | Grammar::Text
            | Grammar::File
            | Grammar::Token
            | Grammar::Bytes
            | Grammar::Choice(_) => Ok(Value::String(s.to_string())),
            Grammar::Switch => Ok(Value::Bool(true)),
            Grammar::Int { min, max } => {
                let n: u64 = t
                    .parse()
                    .map_err(|_| format!("`{s}` is not a whole number"))?;
                in_range(n, min, max, "").map(Value::from)
            }
            Grammar::Rate => match t.parse::<f64>() {
                Ok(r) if r.is_finite() && r > 0.0 => Ok(Value::from(r)),
                _ => Err(format!("`{s}` is not a rate above 0 (requests per second)")),
            },
            Grammar::Duration => crate::units::parse_duration(s)
                .map(|d| Value::String(crate::units::format_duration(d))),
            Grammar::Size { min, max } => {
                let n = crate::units::parse_size(s)?;
                in_range(n, min, max, " bytes").map(Value::from)
            }
            Grammar::Stages => crate::units::parse_stages(s).map(|_| Value::String(t.to_string())),
            Grammar::Header => parse_header(s).map(|(n, v)| Value::from(vec![n, v])),
            Grammar::Shard => {
                parse_shard(s).map(|sh| serde_json::json!({"index": sh.index, "count": sh.count}))
            }
            Grammar::Time => crate::time::parse_instant(s).map(Value::from),
            Grammar::Status => match t.parse::<u16>() {
                Ok(n) if (100..=999).contains(&n) => Ok(Value::from(n)),
                _ => super::grpc_code(t).map(Value::from).ok_or_else(|| {
                    format!(
                        "`{s}` is neither an HTTP status (100-999) nor a gRPC code (0-16 or a \
                         name such as NOT_FOUND)"
                    )
                }),
            },
        }
    }
}

fn in_range(n: u64, min: u64, max: u64, unit: &str) -> Result<u64, String> {
    if (min..=max).contains(&n) {
        Ok(n)
    } else if max == u64::MAX {
        Err(format!("{n} is below {min}{unit}"))
    } else {
        Err(format!("{n} is not between {min} and {max}{unit}"))
    }
}

/// `Name: value` (the value may be empty), as `-H` takes it.
pub fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}` is not a header (like 'Accept: text/plain')"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{s}` has an empty header name"));
    }
    Ok((name.to_string(), value.trim().to_string()))
}

/// `I/N`: shard I (1-based) of N.
pub fn parse_shard(s: &str) -> Result<super::Shard, String> {
    let bad = || format!("{s:?} is not a shard: expected I/N with 1 <= I <= N, e.g. 2/4");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (index, count) = (
        i.trim().parse::<u32>().map_err(|_| bad())?,
        n.trim().parse::<u32>().map_err(|_| bad())?,
    );
    if index == 0 || index > count {
        return Err(bad());
    }
    Ok(super::Shard { index, count })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        assert_eq!(
            parse_header("Accept:  text/plain "),
            Ok(("Accept".into(), "text/plain".into()))
        );
        assert_eq!(parse_header("X-Empty:"), Ok(("X-Empty".into(), "".into())));
        assert!(parse_header("nocolon").is_err());
        assert!(parse_header(": v").is_err());
    }

    #[test]
    fn each_grammar_reads_its_values_into_the_form_a_config_reads() {
        let ok = |g: Grammar, s: &str| g.parse(s).unwrap();
        let window = Grammar::Size {
            min: 65_535,
            max: (1 << 31) - 1,
        };
        assert_eq!(ok(Grammar::Duration, "1.5s"), "1500ms");
        assert_eq!(ok(Grammar::Duration, "10"), "10s");
        assert_eq!(ok(window, "64KiB"), 65_536);
        assert_eq!(
            window.parse("1KiB").unwrap_err(),
            "1024 is not between 65535 and 2147483647 bytes"
        );
        let pipeline = Grammar::Int { min: 1, max: 1024 };
        assert_eq!(ok(pipeline, "16"), 16);
        assert!(pipeline
            .parse("0")
            .unwrap_err()
            .contains("not between 1 and 1024"));
        assert!(pipeline
            .parse("x")
            .unwrap_err()
            .contains("not a whole number"));
        assert_eq!(ok(Grammar::Rate, "2.5"), 2.5);
        assert!(Grammar::Rate.parse("0").is_err());
        assert_eq!(ok(Grammar::Header, "A: b"), serde_json::json!(["A", "b"]));
        assert_eq!(
            ok(Grammar::Shard, "2/4"),
            serde_json::json!({"index": 2, "count": 4})
        );
        assert!(Grammar::Shard.parse("5/4").is_err());
        assert_eq!(ok(Grammar::Time, "1700000000.5"), 1_700_000_000.5);
        assert_eq!(ok(Grammar::Stages, "1s:5,2s:0"), "1s:5,2s:0");
        assert!(Grammar::Stages.parse("1s:0").is_err());
        for (given, want) in [("200", 200), ("NOT_FOUND", 5), ("not_found", 5), ("0", 0)] {
            assert_eq!(ok(Grammar::Status, given), want, "{given}");
        }
        assert_eq!(ok(Grammar::Status, "16"), 16);
        assert_eq!(ok(Grammar::Status, "Unauthenticated"), 16);
        for bad in ["17", "99", "1000", "NOPE", "", "-1"] {
            let e = Grammar::Status.parse(bad).unwrap_err();
            assert!(e.contains("neither an HTTP status"), "{bad}: {e}");
        }
    }
}
