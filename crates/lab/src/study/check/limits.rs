//! The `[study]` settings that bound a trial: `max_errors` (load errors a trial may have) and
//! `busy_limit` / `on_busy` (CPU other programs may take while it is measured, and what a trial
//! over it means).

use super::{raw, Err, StudyError};

/// `max_errors` of `[study]`: a number of load errors per trial, 0 or more (server studies).
pub(super) fn max_errors(st: &raw::StudyTable, err: Err) -> Result<Option<u64>, StudyError> {
    match &st.max_errors {
        None => Ok(None),
        Some(v) => u64::try_from(*v.get_ref()).map(Some).map_err(|_| {
            err(
                Some(v.span()),
                format!("max_errors must be 0 or more, not {}", v.get_ref()),
            )
        }),
    }
}

/// `busy_limit` of `[study]`: % of one core, a number (`10`) or a percentage (`"10%"`), 0 or
/// more; `"150%"` is one and a half cores.
pub(super) fn busy_limit(st: &raw::StudyTable, err: Err) -> Result<f64, StudyError> {
    let Some(v) = &st.busy_limit else {
        return Ok(barrage_model::busy::DEFAULT_LIMIT_PCT);
    };
    let pct = match v.get_ref() {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        toml::Value::String(s) => s
            .trim()
            .strip_suffix('%')
            .and_then(|n| n.trim().parse().ok()),
        _ => None,
    };
    pct.filter(|p: &f64| p.is_finite() && *p >= 0.0).ok_or_else(|| {
        err(
            Some(v.span()),
            format!(
                "busy_limit is CPU outside the contender and barrage in % of one core (10 or \"10%\"), not {}",
                v.get_ref()
            ),
        )
    })
}

/// `on_busy` of `[study]`: `warn` (default), `retry` or `fail`.
pub(super) fn on_busy(
    st: &raw::StudyTable,
    err: Err,
) -> Result<barrage_model::busy::OnBusy, StudyError> {
    use barrage_model::busy::OnBusy;
    let Some(v) = &st.on_busy else {
        return Ok(OnBusy::default());
    };
    OnBusy::parse(v.get_ref()).ok_or_else(|| {
        err(
            Some(v.span()),
            format!(
                "on_busy must be \"warn\", \"retry\" or \"fail\", not {:?}",
                v.get_ref()
            ),
        )
    })
}
