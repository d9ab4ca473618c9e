//! barrage's exit statuses, declared once: the codes the commands return, and what each means,
//! which `--help` (an after_help), the man page and docs/load.md say.

/// A run that did what it was for.
pub const OK: u8 = 0;
/// `barrage load`: the run got no valid response at all.
pub const NO_VALID_RESPONSE: u8 = 1;
/// An error said on one line (`barrage: ...`): bad input, or a failure before or after the run.
/// clap's own usage errors exit with the same code.
pub const BAD_INPUT: u8 = 2;
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
    (THRESHOLD, "a --threshold failed (this wins over 1)"),
    (
        INTERRUPTED,
        "a second Ctrl-C or SIGTERM (the first stops the run and reports what ran)",
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
}
