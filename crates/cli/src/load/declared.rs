//! The load declared once, held to it: every field of the load `Config` (the model's) is a
//! `barrage load` flag and a study field, or this file says where else it is set or why it is
//! not offered. A field added to `Config` without them fails here, by name.

use barrage_lab::study::LoadFields;
use barrage_model::fields::field_names;

/// Config fields whose flag has another name: (field, clap argument id).
const FLAG_NAMES: &[(&str, &str)] = &[
    ("keepalive", "no_keepalive"),
    ("echo_check", "no_echo_check"),
];

/// Config fields a study sets outside its load fields (not sweepable): (field, where).
const STUDY_ELSEWHERE: &[(&str, &str)] = &[
    ("headers", "[load] headers, a table for every point"),
    ("warmup", "[study] warmup, the same for every trial"),
];

/// Config fields a study does not offer, and why.
const NOT_IN_STUDIES: &[(&str, &str)] = &[
    (
        "h2_window",
        "a study compares servers at HTTP/2's defaults; the window is a client tuning knob",
    ),
    (
        "shard",
        "a study runs each trial's load in one process; shards are for scale-out runs",
    ),
    (
        "ws_max_message",
        "a study compares servers on replies of the sizes it sends; the limit only bounds a hostile reply",
    ),
    (
        "echo_check",
        "a study's WebSocket contenders are echo servers, or the study gives expect_body",
    ),
    (
        "start_at",
        "the lab starts each trial's load itself once the contender is ready",
    ),
];

/// Config fields whose study name differs: (field, study name).
const STUDY_NAMES: &[(&str, &str)] = &[("url", "path")];

/// Study load fields that are no Config field, and what they are.
const STUDY_ONLY: &[(&str, &str)] = &[(
    "tls",
    "the scheme of a point's URL (https://, wss://), which the Config's url holds once the runner writes the address in front: study::Phase::tls",
)];

fn lookup<'a>(table: &[(&str, &'a str)], field: &str) -> Option<&'a str> {
    table.iter().find(|(f, _)| *f == field).map(|(_, v)| *v)
}

/// The load `Config`'s fields as documents name them (the protocol's flat options among them).
static FIELDS: std::sync::LazyLock<Vec<String>> =
    std::sync::LazyLock::new(barrage_model::load::field_names);

fn config_fields() -> Vec<&'static str> {
    FIELDS.iter().map(String::as_str).collect()
}

#[test]
fn every_config_field_is_a_flag() {
    let cmd = <super::Args as clap::Args>::augment_args(clap::Command::new("load"));
    let ids: Vec<&str> = cmd.get_arguments().map(|a| a.get_id().as_str()).collect();
    let fields = config_fields();
    assert!(fields.len() >= 28, "{fields:?}");
    let missing: Vec<&str> = fields
        .iter()
        .copied()
        .filter(|f| !ids.contains(&lookup(FLAG_NAMES, f).unwrap_or(f)))
        .collect();
    assert!(
        missing.is_empty(),
        "load Config fields without a `barrage load` flag (add one in cli/src/load.rs, or name it in FLAG_NAMES): {missing:?}"
    );
    for (f, _) in FLAG_NAMES {
        assert!(fields.contains(f), "FLAG_NAMES names no Config field {f:?}");
    }
}

#[test]
fn every_config_field_is_a_study_field_or_says_why_not() {
    let study: Vec<&str> = field_names::<LoadFields>().to_vec();
    assert!(study.contains(&"connections"), "{study:?}");
    let fields = config_fields();
    let missing: Vec<&str> = fields
        .iter()
        .copied()
        .filter(|f| {
            !study.contains(&lookup(STUDY_NAMES, f).unwrap_or(f))
                && lookup(STUDY_ELSEWHERE, f).is_none()
                && lookup(NOT_IN_STUDIES, f).is_none()
        })
        .collect();
    assert!(
        missing.is_empty(),
        "load Config fields a study cannot set (add them to load_fields! in lab/src/study/raw.rs, or list them in NOT_IN_STUDIES with a reason): {missing:?}"
    );
    // And the other way: every study field is a Config field (the sweep reads a point's fields
    // straight into a Config), a sweep axis, and no exception is stale.
    for s in &study {
        let f = STUDY_NAMES
            .iter()
            .find(|(_, n)| n == s)
            .map_or(*s, |(f, _)| *f);
        assert!(
            fields.contains(&f) != lookup(STUDY_ONLY, s).is_some(),
            "study field {s:?} is no Config field (or STUDY_ONLY names a Config field)"
        );
        assert!(
            barrage_model::load::AXES.iter().any(|(a, _)| a == s),
            "study field {s:?} is no sweep axis in model::load::AXES"
        );
        assert!(lookup(NOT_IN_STUDIES, f).is_none() && lookup(STUDY_ELSEWHERE, f).is_none());
    }
    for (f, _) in NOT_IN_STUDIES
        .iter()
        .chain(STUDY_ELSEWHERE)
        .chain(STUDY_NAMES)
    {
        assert!(
            fields.contains(f),
            "an exception names no Config field: {f:?}"
        );
    }
    for (s, _) in STUDY_ONLY {
        assert!(study.contains(s), "STUDY_ONLY names no study field: {s:?}");
    }
    assert_eq!(
        barrage_model::load::AXES.len(),
        study.len(),
        "every sweep axis is a study field"
    );
}
