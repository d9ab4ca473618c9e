//! `barrage load`'s load options as clap arguments, built from the model's declaration
//! (`barrage_model::load::OPTIONS`: each option's flag, help, value grammar and default), and
//! read back into a `Config` the way a study file or a document is read (serde, so one reading
//! for all three). The help, the man page and the completions see these arguments, so they
//! come from the same declaration.

use barrage_model::load::{Config, Form, Grammar, Group, Protocol, ProtocolOptions, Spec, OPTIONS};
use clap::builder::{PossibleValuesParser, TypedValueParser as _, ValueParser};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command, ValueHint};
use serde_json::{Map, Value};

/// The load options given on the command line: each option's name with its value in the form
/// a `Config` reads (a study file's or a document's).
#[derive(Debug, Clone, Default)]
pub struct Given(pub Map<String, Value>);

impl Given {
    /// Whether the option `name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// The `Config` the options describe (defaults for the rest). The protocol's options are
    /// read on their own first, so that a rule they break is said in the flags' words.
    pub fn config(&self) -> anyhow::Result<Config> {
        let is_protocol =
            |k: &str| barrage_model::load::option(k).is_some_and(|o| o.group == Group::Protocol);
        let (proto, rest): (Map<String, Value>, Map<String, Value>) = self
            .0
            .clone()
            .into_iter()
            .partition(|(k, _)| is_protocol(k));
        let options: ProtocolOptions = read(&proto)?;
        let protocol = Protocol::from_options(options).map_err(|e| anyhow::anyhow!(e.flags()))?;
        Ok(Config {
            protocol,
            ..read(&rest)?
        })
    }
}

/// `T` read from the options in `m`; an error names the flag of the value it could not take.
fn read<T: serde::de::DeserializeOwned>(m: &Map<String, Value>) -> anyhow::Result<T> {
    serde_json::from_value(Value::Object(m.clone())).map_err(|e| {
        let culprit = m.iter().find(|(k, v)| {
            let one = Map::from_iter([((*k).clone(), (*v).clone())]);
            serde_json::from_value::<T>(Value::Object(one)).is_err()
        });
        match culprit.and_then(|(k, _)| barrage_model::load::option(k)) {
            Some(o) => anyhow::anyhow!("{}: {e}", flag_words(o)),
            None => anyhow::anyhow!("bad load options: {e}"),
        }
    })
}

/// `--connections`, or `URL` for the positional argument.
fn flag_words(o: &Spec) -> String {
    match (o.long(), o.flag.form) {
        (Some(l), _) => format!("--{l}"),
        (None, Form::Positional(v, _) | Form::Trailing(v)) => v.to_string(),
        (None, _) => o.name.to_string(),
    }
}

/// The clap argument of an option with a flag.
fn arg(o: &'static Spec) -> Option<Arg> {
    // As clap's derive writes a one-paragraph doc: without its final period.
    let help = o.help();
    let mut a = Arg::new(o.name).help(match help.strip_suffix('.') {
        Some(h) if !help.contains("\n\n") => h.to_string(),
        _ => help.clone(),
    });
    a = match o.flag.form {
        Form::None(_) => return None,
        Form::Positional(value, unless) => {
            let a = a.value_name(value).action(ArgAction::Set);
            match unless {
                Some(u) => a.required_unless_present(u),
                None => a,
            }
        }
        Form::Trailing(value) => a
            .value_name(value)
            .num_args(0..)
            .last(true)
            .action(ArgAction::Append),
        Form::Named(_) | Form::Negated if o.grammar == Grammar::Switch => {
            a.action(ArgAction::SetTrue)
        }
        Form::Named(value) => {
            let repeat = o.grammar == Grammar::Header;
            a.value_name(value).action(if repeat {
                ArgAction::Append
            } else {
                ArgAction::Set
            })
        }
        // A `--no-` form of something that is not a switch: nothing to negate.
        Form::Negated => return None,
    };
    if let Some(l) = o.long() {
        a = a.long(l);
    }
    if let Some(s) = o.flag.short {
        a = a.short(s);
    }
    if o.grammar != Grammar::Switch {
        a = a.value_parser(parser(o.grammar));
    }
    match o.grammar {
        Grammar::File => a = a.value_hint(ValueHint::FilePath),
        Grammar::Url => a = a.value_hint(ValueHint::Url),
        _ => {}
    }
    if let Some(d) = o.shown_default() {
        a = a.default_value(d);
    }
    if !o.flag.conflicts.is_empty() {
        a = a.conflicts_with_all(o.flag.conflicts);
    }
    if let Some(r) = o.flag.requires {
        a = a.requires(r);
    }
    Some(a)
}

/// The value parser of a grammar: the model's reading of the text, or the choices (so that
/// completions offer them).
fn parser(g: Grammar) -> ValueParser {
    match g {
        Grammar::Choice(words) => {
            ValueParser::new(PossibleValuesParser::new(words).map(Value::String))
        }
        g => ValueParser::new(move |s: &str| g.parse(s)),
    }
}

impl clap::Args for Given {
    fn augment_args(cmd: Command) -> Command {
        OPTIONS.iter().filter_map(arg).fold(cmd, |c, a| c.arg(a))
    }
    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl clap::FromArgMatches for Given {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut g = Given::default();
        g.update_from_arg_matches(m)?;
        Ok(g)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        for o in OPTIONS {
            if matches!(o.flag.form, Form::None(_))
                || m.value_source(o.name) != Some(ValueSource::CommandLine)
            {
                continue;
            }
            let v = match (o.grammar, o.flag.form) {
                // A switch given: on, or off for `--no-...`.
                (Grammar::Switch, f) => Value::Bool(f != Form::Negated),
                (Grammar::Header, _) | (_, Form::Trailing(_)) => Value::Array(
                    m.get_many::<Value>(o.name)
                        .into_iter()
                        .flatten()
                        .cloned()
                        .collect(),
                ),
                _ => match m.get_one::<Value>(o.name) {
                    Some(v) => v.clone(),
                    None => continue,
                },
            };
            self.0.insert(o.name.to_string(), v);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrage_model::load::Study;
    use clap::{Args as _, FromArgMatches as _};

    fn given(args: &[&str]) -> Result<Given, clap::Error> {
        let cmd = Given::augment_args(Command::new("load").no_binary_name(true));
        let m = cmd.try_get_matches_from(args)?;
        Given::from_arg_matches(&m)
    }

    /// Every option of the declaration is a flag, or says why it is not; no option is a study
    /// field without a sweep label or a reason (the declaration's shape, by construction).
    #[test]
    fn every_option_is_a_flag_or_says_why_not() {
        let cmd = Given::augment_args(Command::new("load"));
        for o in OPTIONS {
            let has = cmd.get_arguments().any(|a| a.get_id() == o.name);
            match o.flag.form {
                Form::None(why) => assert!(!has && !why.is_empty(), "{}", o.name),
                _ => assert!(has, "{} has no argument", o.name),
            }
            if let Study::No(why) | Study::Elsewhere(why) = o.study {
                assert!(!why.is_empty(), "{}", o.name);
            }
        }
    }

    /// docs/load.md's table of options, written for people, names every declared flag.
    #[test]
    fn the_docs_name_every_flag() {
        let doc = include_str!("../../../../docs/load.md");
        for o in OPTIONS {
            if let Some(l) = o.long() {
                assert!(
                    doc.contains(&format!("`--{l}")) || doc.contains(&format!(", --{l}")),
                    "docs/load.md's options lack --{l}"
                );
            }
        }
    }

    #[test]
    fn flags_become_the_config_a_study_would_give() {
        let g = given(&[
            "http://h/",
            "-c",
            "3",
            "-d",
            "1.5s",
            "--no-keepalive",
            "-H",
            "A: b",
            "--header",
            "C: d",
            "--expect-body",
            "x=1",
            "--targets-order",
            "random",
            "--targets",
            "t.txt",
            "--shard",
            "1/2",
        ])
        .unwrap();
        let c = g.config().unwrap();
        assert_eq!(c.url, "http://h/");
        assert_eq!(c.connections, 3);
        assert_eq!(c.duration, Some(std::time::Duration::from_millis(1500)));
        assert!(!c.protocol.keepalive());
        assert_eq!(
            c.headers,
            [("A".into(), "b".into()), ("C".into(), "d".into())]
        );
        assert_eq!(c.expect_body.as_deref(), Some(&b"x=1"[..]));
        assert_eq!(c.targets_order, barrage_model::load::Order::Random);
        assert_eq!(c.shard.map(|s| (s.index, s.count)), Some((1, 2)));
        // Not given: the declared defaults, though help shows them.
        assert!(!g.has("timeout") && !g.has("method"));
        assert_eq!(c.timeout, Config::default().timeout);
        let d = given(&["http://h/"]).unwrap().config().unwrap();
        assert_eq!(
            d,
            Config {
                url: "http://h/".into(),
                ..Config::default()
            }
        );
    }

    #[test]
    fn bad_values_are_refused_by_the_grammar_and_protocol_rules_in_flag_words() {
        let e = given(&["http://h/", "--pipeline", "0"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("'--pipeline <D>'") && e.contains("not between 1 and 1024"),
            "{e}"
        );
        let e = given(&["http://h/", "--h2-window", "1KiB", "--http2"]).unwrap_err();
        assert!(e.to_string().contains("65535"), "{e}");
        let e = given(&["http://h/", "--targets-order", "sideways", "--targets", "t"]);
        assert!(e.unwrap_err().to_string().contains("round-robin"));
        let e = given(&["http://h/", "--targets-format", "json"]).unwrap_err();
        assert!(e.to_string().contains("--targets"), "{e}");
        let e = given(&["http://h/", "--http2", "--pipeline", "2"])
            .unwrap()
            .config()
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--pipeline is HTTP/1.1's"), "{e}");
        let e = given(&["http://h/", "--ws-max-message", "1MiB"])
            .unwrap()
            .config()
            .unwrap_err()
            .to_string();
        assert_eq!(e, "--ws-max-message is WebSocket's: it needs --ws");
    }

    #[test]
    fn help_shows_the_declared_defaults() {
        let cmd = Given::augment_args(Command::new("load"));
        let default = |id: &str| {
            let a = cmd.get_arguments().find(|a| a.get_id() == id).unwrap();
            a.get_default_values()
                .iter()
                .map(|v| v.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(default("connections"), ["10"]);
        assert_eq!(default("timeout"), ["10s"]);
        assert_eq!(default("method"), ["GET"]);
        assert_eq!(default("pipeline"), ["1"]);
        // Said in its help instead, or nothing worth showing.
        assert!(default("threads").is_empty() && default("insecure").is_empty());
    }
}
