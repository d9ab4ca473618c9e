//! barrage's exit statuses, declared once: the codes the commands return, and what each means,
//! which `--help` (an after_help), the man page and docs/load.md say.

/// A run that did what it was for.
pub const OK: u8 = 0;
/// `barrage load`: the run got no valid response at all.
pub const NO_VALID_RESPONSE: u8 = 1;
/// An error said on one line (`barrage: ...`): bad input, or a failure before or after the run.
/// clap's own usage errors exit with the same code.
pub const BAD_INPUT: u8 = 2;
/// `barrage compare --fail-on regression`: a regression was found.
pub const REGRESSION: u8 = 1;
/// A gate that cannot judge what it was asked to: a figure of `barrage compare --fail-on
/// regression` that changed beyond the noise floor with too little data to test it, or a
/// `--threshold` the run cannot judge with confidence (`ok?`, `FAIL?`); `--allow-inconclusive`
/// turns it off.
pub const INCONCLUSIVE: u8 = 3;
/// A `--threshold` (or a study's `[[threshold]]`) failed: k6's code.
pub const THRESHOLD: u8 = 99;
/// Interrupted by Ctrl-C or SIGTERM (128 + SIGINT).
pub const INTERRUPTED: u8 = 130;

/// `barrage load`'s statuses (docs/load.md says more).
pub const LOAD: &[(u8, &str)] = &[
    (
        OK,
        "completed with at least one valid response; every --threshold passed",
    ),
    (
        NO_VALID_RESPONSE,
        "no valid response at all (the summary and the JSON are still written)",
    ),
    (
        BAD_INPUT,
        "bad input (an option, URL, file or script), the run could not start or be written, \
         or a script's hook failed during the run (what ran is reported)",
    ),
    (
        INCONCLUSIVE,
        "a --threshold the run cannot judge with confidence (marked ok? or FAIL?), none failed \
         (1 wins over it); with --allow-inconclusive such a threshold follows its measured value",
    ),
    (THRESHOLD, "a --threshold failed (this wins over 1 and 3)"),
    (
        INTERRUPTED,
        "a second Ctrl-C or SIGTERM (the first stops the run and reports what ran)",
    ),
];

/// `barrage compare`'s statuses (docs/compare.md says more).
pub const COMPARE: &[(u8, &str)] = &[
    (
        OK,
        "compared: no regression and every figure judged (or --fail-on never, or what could \
         not be judged allowed by --allow-inconclusive)",
    ),
    (
        REGRESSION,
        "--fail-on regression found one (each is named on stderr); this wins over 3",
    ),
    (
        BAD_INPUT,
        "the inputs cannot be read or compared (a one-line error)",
    ),
    (
        INCONCLUSIVE,
        "--fail-on regression found none, but cannot judge a figure that changed beyond the \
         noise floor (each is named on stderr); --allow-inconclusive exits 0 instead",
    ),
];

/// `barrage run`'s statuses.
pub const RUN: &[(u8, &str)] = &[
    (
        OK,
        "every trial ran (a failed trial is a result too); every threshold passed",
    ),
    (
        BAD_INPUT,
        "bad input (the study file or an option), or a failure of barrage itself",
    ),
    (THRESHOLD, "a study threshold failed"),
    (
        INTERRUPTED,
        "interrupted before every trial ran: `barrage run --resume DIR` finishes it",
    ),
];

/// The statuses as `--help` ends with them.
pub fn help(codes: &[(u8, &str)]) -> String {
    let mut s = String::from("Exit status:");
    for (code, what) in codes {
        s.push_str(&format!("\n  {code:<4} {what}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/load.md says the same statuses as `barrage load --help`.
    #[test]
    fn the_docs_list_the_statuses_load_returns() {
        let doc = include_str!("../../../docs/load.md");
        for (code, _) in LOAD {
            assert!(
                doc.contains(&format!("| {code} |")),
                "docs/load.md's exit status table lacks {code}"
            );
        }
        let h = help(LOAD);
        assert!(h.starts_with("Exit status:\n  0    completed with"), "{h}");
        assert_eq!(h.lines().count(), LOAD.len() + 1);
    }

    /// docs/compare.md says the same statuses as `barrage compare --help`.
    #[test]
    fn the_docs_list_the_statuses_compare_returns() {
        let doc = include_str!("../../../docs/compare.md");
        for (code, _) in COMPARE {
            assert!(
                doc.contains(&format!("| {code} |")),
                "docs/compare.md's exit status table lacks {code}"
            );
        }
        assert_eq!(help(COMPARE).lines().count(), COMPARE.len() + 1);
    }
}
