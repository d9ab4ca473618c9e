//! The load fields a server study may sweep, declared once: their order (the first varies
//! slowest) and the short label each has in a point's label (`c=64 pipeline=16`). The lab's sweep
//! expands them; the report names an axis by them (`c` and `connections` are one axis).

/// A sweepable load field (a study's name for it, which is the load `Config`'s except `path`,
/// the `url` of a point) and its short label.
pub const AXES: &[(&str, &str)] = &[
    ("method", "method"),
    ("path", "path"),
    ("body", "body"),
    ("expect_status", "status"),
    ("expect_body", "expect_body"),
    ("keepalive", "keepalive"),
    ("http2", "http2"),
    ("pipeline", "pipeline"),
    ("streams", "streams"),
    ("threads", "threads"),
    ("connections", "c"),
    ("rate", "rate"),
    ("stages", "stages"),
    ("targets", "targets"),
    ("targets_format", "targets_format"),
    ("targets_order", "order"),
    ("seed", "seed"),
    ("body_lines", "body_lines"),
    ("ramp_up", "ramp_up"),
    ("duration", "d"),
    ("requests", "n"),
    ("timeout", "timeout"),
];

/// The short label of an axis ("connections" -> "c"); a name that is no load axis (a client
/// study's parameter, `network.rtt`) as it is.
pub fn short_label(name: &str) -> &str {
    AXES.iter()
        .find(|(f, _)| *f == name)
        .map_or(name, |(_, s)| s)
}

/// The field an axis name means, given as the field or its short label ("c" -> "connections");
/// other names as they are.
pub fn axis_field(name: &str) -> &str {
    AXES.iter()
        .find(|(f, s)| *f == name || *s == name)
        .map_or(name, |(f, _)| f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_labels_go_both_ways_and_are_unique() {
        assert_eq!(short_label("connections"), "c");
        assert_eq!(short_label("network.rtt"), "network.rtt");
        assert_eq!(axis_field("c"), "connections");
        assert_eq!(axis_field("connections"), "connections");
        assert_eq!(axis_field("size"), "size");
        for (f, s) in AXES {
            assert_eq!(axis_field(short_label(f)), *f);
            let clashes = AXES
                .iter()
                .filter(|(g, t)| g == s || t == s || t == f)
                .count();
            assert_eq!(clashes, 1, "{f}/{s} names one axis only");
        }
    }
}
