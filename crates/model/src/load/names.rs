//! The two vocabularies a load's errors speak: the `Config`'s field names (study files,
//! documents) and `barrage load`'s flags.

/// The words an error uses for the options: the `Config`'s field names or the CLI's flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// `pipeline`, `keepalive = false`: a study file's and a document's words.
    Fields,
    /// `--pipeline`, `--no-keepalive`: `barrage load`'s.
    Flags,
}

impl Names {
    /// The option `field` (a `Config` field name): its flag as declared (`headers` is
    /// `--header`).
    pub(super) fn opt(self, field: &str) -> String {
        match self {
            Names::Fields => field.to_string(),
            Names::Flags => format!("--{}", flag_name(field)),
        }
    }
    /// The boolean option `field` switched off.
    pub(super) fn off(self, field: &str) -> String {
        match self {
            Names::Fields => format!("{field} = false"),
            Names::Flags => format!("--no-{}", flag_name(field)),
        }
    }
    /// The boolean option `field` switched on.
    pub(super) fn on(self, field: &str) -> String {
        match self {
            Names::Fields => format!("{field} = true"),
            Names::Flags => self.opt(field),
        }
    }
}

/// The long flag of `field` without its `no-`: the declared one, else the field's name.
fn flag_name(field: &str) -> String {
    super::option(field)
        .and_then(|o| o.flag.long)
        .map_or_else(|| field.replace('_', "-"), str::to_string)
}
