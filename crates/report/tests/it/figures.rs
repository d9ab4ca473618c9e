//! A figure a study declared (`study.figures` in results.json) is reported like any metric: its
//! column in the summary table holds the known medians and trial values, a contender that never
//! printed it has an empty cell (not a zero), and the CSV, the terminal table, the answer block
//! and the client bars show it under its declared label and unit. The report reads the
//! declaration from the document; nothing re-declares it.

use barrage_model::figure::{Figure, Unit};
use barrage_model::metric::Better;
use barrage_model::study::{
    ContenderInfo, ContenderRole, Metrics, Point, Results, StudyInfo, Trial,
};
use barrage_report::page::Plot;
use barrage_report::{build, parse, Input};

const MIB: f64 = 1048576.0;

/// A contender: its name, wall time, and the MiB it says it allocated in each of three trials.
type Contender<'a> = (&'a str, f64, Option<[f64; 3]>);

/// lean: 1, 2, 3 MiB allocated (median 2); heavy: 10, 20, 30 MiB (median 20); silent prints none.
/// lean is the fastest by wall time, so it is the reference of the comparisons.
const CELLS: &[Contender] = &[
    ("lean", 1.0, Some([1.0, 3.0, 2.0])),
    ("heavy", 1.5, Some([30.0, 10.0, 20.0])),
    ("silent", 2.0, None),
];

fn document(cells: &[Contender]) -> String {
    let mut trials = Vec::new();
    for &(name, wall, alloc) in cells {
        for i in 0..3 {
            let mut metrics = Metrics {
                wall_s: Some(wall * (1.0 + 0.01 * i as f64)),
                ..Metrics::default()
            };
            if let Some(a) = alloc {
                metrics.figures.insert("alloc_bytes".into(), a[i] * MIB);
            }
            trials.push(Trial {
                seq: trials.len(),
                contender: name.into(),
                trial: i as u32,
                ok: true,
                metrics,
                ..Trial::default()
            });
        }
    }
    let r = Results {
        schema: "barrage.study/2".into(),
        status: "complete".into(),
        study: StudyInfo {
            name: "figures".into(),
            kind: ContenderRole::Client,
            trials: 3,
            figures: vec![Figure {
                key: "alloc_bytes".into(),
                label: "allocated".into(),
                unit: Unit::Bytes,
                better: Better::Lower,
                compared: true,
                required: false,
            }],
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
    serde_json::to_string(&r).unwrap()
}

fn results(cells: &[Contender]) -> Results {
    match parse(&document(cells)).expect("a results document") {
        Input::Study(r) => *r,
        Input::Load(_) => panic!("not a study"),
    }
}

#[test]
fn the_figures_column_shows_its_known_values() {
    let r = results(CELLS);
    let table = barrage_report::study_section::table(&r);
    let col = table
        .columns
        .iter()
        .position(|c| c.key() == "alloc_bytes")
        .expect("a column of the figure");
    // Bytes stay bytes in the table (a chunk of 1,460 B would read 0.00139 in MiB).
    assert_eq!(table.columns[col].header(), "allocated (B)");
    let cell = |name: &str| &table.row("", name).unwrap().cells[col];
    assert_eq!(cell("lean").values, [MIB, 3.0 * MIB, 2.0 * MIB]);
    assert_eq!(cell("lean").center(), Some(2.0 * MIB));
    assert_eq!(cell("lean").text(), "2.1M [1.05M, 3.15M]");
    assert_eq!(cell("heavy").center(), Some(20.0 * MIB));
    assert_eq!(
        table
            .cell(table.row("", "heavy").unwrap(), "alloc_bytes")
            .unwrap()
            .center(),
        Some(20.0 * MIB)
    );
    // Never printed: an empty cell, not a zero.
    assert!(cell("silent").values.is_empty() && cell("silent").summary.is_none());
    assert_eq!(cell("silent").text(), "-");
    // Compared with the best by wall time, worded by the declared label.
    let vs = table.row("", "heavy").unwrap().vs_best[col]
        .as_ref()
        .unwrap();
    assert_eq!(vs.reference, "lean");
    assert_eq!(vs.ratio, 10.0);
    assert!(vs.text.starts_with("10.0x more allocated"), "{}", vs.text);
    assert!(table.row("", "silent").unwrap().vs_best[col].is_none());

    // summary.csv: the figure's statistics as raw bytes, empty for the contender without it.
    let csv = barrage_report::summary_csv::render(&r);
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let at = head
        .iter()
        .position(|h| *h == "alloc_bytes_median")
        .unwrap();
    let field = |name: &str| {
        let line = csv
            .lines()
            .find(|l| l.split(',').nth(2) == Some(name))
            .unwrap();
        line.split(',').nth(at).unwrap().to_string()
    };
    assert_eq!(field("lean"), (2.0 * MIB).to_string());
    assert_eq!(field("heavy"), (20.0 * MIB).to_string());
    assert_eq!(field("silent"), "");

    // The terminal table and the answer block show it under its label.
    let text = barrage_report::terminal::table(&r);
    let at = text.lines().nth(1).unwrap().find("allocated").expect(&text);
    let under = |name: &str| {
        let line = text
            .lines()
            .find(|l| l.contains(&format!(" {name} ")))
            .unwrap();
        line[at..].split("  ").next().unwrap().trim().to_string()
    };
    assert_eq!(
        [under("lean"), under("heavy"), under("silent")],
        ["2.0 MiB", "20.0 MiB", "-"],
        "{text}"
    );
    let a = barrage_report::answer::answer(&r);
    let i = a
        .columns
        .iter()
        .position(|c| c.header == "allocated")
        .unwrap();
    let shown: Vec<(&str, &str)> = a
        .rows
        .iter()
        .map(|row| (row.name.as_str(), row.cells[i].text.as_str()))
        .collect();
    assert_eq!(
        shown,
        [("lean", "2.0 MiB"), ("heavy", "20.0 MiB"), ("silent", "-")]
    );

    // Its own bar chart among the client runs' plots, values from its column.
    let page = build(&[("r".into(), Input::Study(Box::new(r)))]).unwrap();
    let chart = page.sections[0]
        .plots
        .iter()
        .flat_map(|g| &g.plots)
        .find_map(|p| match p {
            Plot::HBar(c) if c.metrics == [Some("alloc_bytes".to_string())] => Some(c),
            _ => None,
        })
        .expect("a chart of the figure");
    assert_eq!(chart.x.label, "allocated (B)");
    let bars: Vec<(&str, Option<f64>)> = chart
        .rows
        .iter()
        .map(|row| (row.label.as_str(), row.bars[0].value))
        .collect();
    assert_eq!(
        bars,
        [
            ("lean", Some(2.0 * MIB)),
            ("heavy", Some(20.0 * MIB)),
            ("silent", None)
        ]
    );
}

#[test]
fn paired_contenders_show_the_figure_close_and_keepalive() {
    let r = results(&[
        ("ruby-close", 2.0, Some([9.0, 8.0, 10.0])),
        ("ruby-keepalive", 1.0, Some([0.1, 0.2, 0.3])),
        ("go-close", 0.5, None),
        ("go-keepalive", 0.25, None),
    ]);
    let a = barrage_report::answer::answer(&r);
    let headers: Vec<(&str, &str)> = a
        .columns
        .iter()
        .map(|c| (c.group.as_str(), c.header.as_str()))
        .collect();
    assert_eq!(
        headers[3..],
        [("allocated", "close"), ("allocated", "keep-alive")],
        "{headers:?}"
    );
    assert_eq!(headers[0], ("", "wall, close"));
    let shown: Vec<(&str, &str, &str)> = a
        .rows
        .iter()
        .map(|row| {
            (
                row.name.as_str(),
                row.cells[3].text.as_str(),
                row.cells[4].text.as_str(),
            )
        })
        .collect();
    // Ranked by wall time with keep-alive; 0.2 MiB is shown in KiB.
    assert_eq!(shown, [("go", "-", "-"), ("ruby", "9.0 MiB", "209,715 B")]);
    // The best of each column (the only value there); an empty cell is never the best.
    assert!(a.rows[1].cells[3].best && a.rows[1].cells[4].best);
    assert!(!a.rows[0].cells[3].best && !a.rows[0].cells[4].best);
}
