//! Peak PSS beside summed RSS in client studies whose trees fork (the fanout study: a parent and
//! its children share pages, which summed RSS counts once per process): the answer block, the
//! terminal table and the memory bars show both, with the known medians; a study whose trees
//! held one process when PSS was read shows RSS alone.

use barrage_model::process::{Sample, Samples};
use barrage_model::study::{
    ContenderInfo, ContenderRole, Metrics, Point, Results, StudyInfo, Trial,
};
use barrage_report::page::Plot;
use barrage_report::{build, Input};

const MIB: u64 = 1 << 20;

/// Three trials per contender: (name, processes in the tree at the PSS read, RSS MiB, PSS MiB).
fn study(cells: &[(&str, u32, [u64; 3], [u64; 3])]) -> Results {
    let mut trials = Vec::new();
    for (name, procs, rss, pss) in cells {
        for i in 0..3 {
            let sample = Sample {
                rss_bytes: rss[i] * MIB,
                pss_bytes: Some(pss[i] * MIB),
                processes: *procs,
                ..Sample::default()
            };
            trials.push(Trial {
                seq: trials.len(),
                contender: name.to_string(),
                trial: i as u32,
                ok: true,
                metrics: Metrics {
                    wall_s: Some(1.0 + 0.01 * i as f64),
                    peak_rss_bytes: Some(rss[i] * MIB),
                    ..Metrics::default()
                },
                samples: Some(Samples {
                    samples: vec![sample],
                    peak_rss_bytes: rss[i] * MIB,
                    peak_pss_bytes: Some(pss[i] * MIB),
                    peak_processes: *procs,
                    ..Samples::default()
                }),
                ..Trial::default()
            });
        }
    }
    let mut r = Results {
        schema: "barrage.study/2".into(),
        study: StudyInfo {
            name: "fanout".into(),
            kind: ContenderRole::Client,
            trials: 3,
            ..StudyInfo::default()
        },
        points: vec![Point::default()],
        contenders: cells
            .iter()
            .map(|c| ContenderInfo {
                name: c.0.into(),
                status: "ready".into(),
                ..ContenderInfo::default()
            })
            .collect(),
        trials,
        ..Results::default()
    };
    barrage_model::summary::update(&mut r);
    r
}

/// The answer's (contender, cell text) of the column headed `header`, if there is one.
fn answer_column(r: &Results, header: &str) -> Option<Vec<(String, String)>> {
    let a = barrage_report::answer::answer(r);
    let i = a.columns.iter().position(|c| c.header == header)?;
    Some(
        a.rows
            .iter()
            .map(|row| (row.name.clone(), row.cells[i].text.clone()))
            .collect(),
    )
}

/// The memory bars: (series names, per row the bar values).
fn memory_bars(r: &Results) -> (Vec<String>, Vec<Vec<Option<f64>>>) {
    let page = build(&[("r".into(), Input::Study(Box::new(r.clone())))]).unwrap();
    page.sections[0]
        .plots
        .iter()
        .flat_map(|g| &g.plots)
        .find_map(|p| match p {
            Plot::HBar(c) if c.title.starts_with("Peak RSS") => Some((
                c.series.iter().map(|s| s.0.clone()).collect(),
                c.rows
                    .iter()
                    .map(|row| row.bars.iter().map(|b| b.value).collect())
                    .collect(),
            )),
            _ => None,
        })
        .expect("a memory chart")
}

#[test]
fn forked_trees_show_pss_beside_rss() {
    let r = study(&[
        ("fork", 11, [120, 100, 110], [20, 22, 21]),
        ("threads", 1, [10, 12, 11], [9, 10, 11]),
    ]);
    let row = |n: &str, v: &str| (n.to_string(), v.to_string());
    assert_eq!(
        answer_column(&r, "peak RSS").unwrap(),
        [row("fork", "110.0 MiB"), row("threads", "11.0 MiB")]
    );
    assert_eq!(
        answer_column(&r, "peak PSS").unwrap(),
        [row("fork", "21.0 MiB"), row("threads", "10.0 MiB")]
    );
    let text = barrage_report::terminal::table(&r);
    let head: Vec<&str> = text
        .lines()
        .nth(1)
        .unwrap()
        .split("  ")
        .map(str::trim)
        .collect();
    let head: Vec<&str> = head.into_iter().filter(|h| !h.is_empty()).collect();
    let rss = head.iter().position(|h| *h == "peak RSS").expect(&text);
    assert_eq!(head[rss + 1], "peak PSS", "{text}");
    let (series, rows) = memory_bars(&r);
    assert_eq!(series, ["peak RSS", "peak PSS"]);
    assert_eq!(rows, [[Some(110.0), Some(21.0)], [Some(11.0), Some(10.0)]]);
}

#[test]
fn single_process_trees_show_rss_alone() {
    let r = study(&[
        ("a", 1, [10, 12, 11], [9, 10, 11]),
        ("b", 1, [20, 22, 21], [19, 20, 21]),
    ]);
    assert!(answer_column(&r, "peak RSS").is_some());
    assert!(answer_column(&r, "peak PSS").is_none());
    assert!(!barrage_report::terminal::table(&r).contains("peak PSS"));
    let (series, rows) = memory_bars(&r);
    assert_eq!(series, ["peak RSS"]);
    assert_eq!(rows, [[Some(11.0)], [Some(21.0)]]);
}
