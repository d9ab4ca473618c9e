//! Validation of a client study's `[[client.figure]]` declarations: a key that names a stdout
//! token and clashes with nothing, a known unit and direction; each error names the figure's line.

use super::super::raw;
use super::Err;
use super::StudyError;
use barrage_model::figure::{Figure, Unit};
use barrage_model::metric::{self, Better};
use toml::Spanned;

/// The figures as the model records them, in the file's order.
pub(super) fn validate(figs: &[Spanned<raw::Figure>], err: Err) -> Result<Vec<Figure>, StudyError> {
    let mut out: Vec<Figure> = Vec::new();
    for f in figs {
        let r = f.get_ref();
        let key = r.key.get_ref().trim();
        let at = Some(r.key.span());
        if !super::token_name(key) {
            return Err(err(
                at,
                format!("client.figure key must name a `key=value` token of stdout (letters, digits, _ . -), not {key:?}"),
            ));
        }
        if metric::get(key).is_some() {
            return Err(err(
                at,
                format!("client.figure key {key:?} is the key of a built-in metric; choose another name"),
            ));
        }
        if out.iter().any(|o| o.key == key) {
            return Err(err(
                at,
                format!("client.figure key {key:?} is declared twice"),
            ));
        }
        let unit = Unit::parse(r.unit.get_ref().trim()).ok_or_else(|| {
            err(
                Some(r.unit.span()),
                format!(
                    "unknown unit {:?} for client.figure {key:?} (one of: {})",
                    r.unit.get_ref(),
                    Unit::names()
                ),
            )
        })?;
        let better = match r.better.get_ref().trim() {
            "lower" => Better::Lower,
            "higher" => Better::Higher,
            other => {
                let why = format!("better must be \"lower\" or \"higher\", not {other:?}");
                return Err(err(
                    Some(r.better.span()),
                    format!("client.figure {key:?}: {why}"),
                ));
            }
        };
        let label = match r.label.as_deref().map(str::trim) {
            None => key.to_string(),
            Some("") => {
                let why = "label must not be empty (leave it out to use the key)";
                return Err(err(Some(f.span()), format!("client.figure {key:?}: {why}")));
            }
            Some(l) => l.to_string(),
        };
        out.push(Figure {
            key: key.to_string(),
            label,
            unit,
            better,
            compared: r.compared.unwrap_or(true),
            required: r.required.unwrap_or(false),
        });
    }
    Ok(out)
}
