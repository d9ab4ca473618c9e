//! The report's header names the machine each run was on, from what its results.json records
//! (CPU model, CPUs, memory, kernel, OS, host): two runs on different machines each say theirs,
//! in HTML under the section's heading (before the answer) and in Markdown under its title.

use barrage_model::study::{
    ContenderInfo, ContenderRole, Machine, Point, Results, StudyInfo, Trial,
};
use barrage_report::{build, render, Format, Input};

fn run(name: &str, machine: Machine) -> Results {
    let trials = (0..2)
        .map(|i| {
            let mut t = Trial {
                seq: i,
                contender: "c".into(),
                trial: i as u32,
                ok: true,
                ..Trial::default()
            };
            t.metrics.wall_s = Some(1.0 + i as f64 / 10.0);
            t
        })
        .collect();
    let mut r = Results {
        schema: "barrage.study/2".into(),
        study: StudyInfo {
            name: name.into(),
            kind: ContenderRole::Client,
            trials: 2,
            ..StudyInfo::default()
        },
        machine,
        points: vec![Point::default()],
        contenders: vec![ContenderInfo {
            name: "c".into(),
            status: "ready".into(),
            ..ContenderInfo::default()
        }],
        trials,
        ..Results::default()
    };
    barrage_model::summary::update(&mut r);
    r
}

const EPYC: &str =
    "AMD EPYC, 2 CPUs, 4.0 GiB memory, Linux 6.18.44-fc-v782, Debian GNU/Linux 12 (bookworm), host vm";
const XEON: &str = "Intel(R) Xeon(R) Processor, 2 CPUs, Linux 6.18.44-fc-v769";

fn runs() -> Vec<(String, Input)> {
    let epyc = Machine {
        hostname: "vm".into(),
        os: "Debian GNU/Linux 12 (bookworm)".into(),
        kernel: "6.18.44-fc-v782".into(),
        cpu_model: "AMD EPYC".into(),
        cpus: 2,
        available_cpus: vec![0, 1],
        memory_bytes: 4 << 30,
    };
    let xeon = Machine {
        kernel: "6.18.44-fc-v769".into(),
        cpu_model: "Intel(R) Xeon(R) Processor".into(),
        cpus: 2,
        ..Machine::default()
    };
    vec![
        (
            "a/results.json".into(),
            Input::Study(Box::new(run("a", epyc))),
        ),
        (
            "b/results.json".into(),
            Input::Study(Box::new(run("b", xeon))),
        ),
    ]
}

#[test]
fn html_header_names_each_runs_machine() {
    let html = render(&build(&runs()).unwrap(), Format::Html, "t");
    let a = html.find("<h2>Study a").expect("section a");
    let b = html.find("<h2>Study b").expect("section b");
    let line = |m: &str| format!("<p class=\"machine\">Machine: {m}</p>");
    let epyc = html.find(&line(EPYC)).expect(EPYC);
    let xeon = html.find(&line(XEON)).expect(XEON);
    // Each under its own heading, before that section's answer.
    assert!(a < epyc && epyc < b && b < xeon, "{a} {epyc} {b} {xeon}");
    let question_a = html[a..].find("class=\"question\"").unwrap() + a;
    assert!(epyc < question_a);
}

#[test]
fn markdown_header_names_each_runs_machine() {
    let md = render(&build(&runs()).unwrap(), Format::Markdown, "t");
    let lines: Vec<&str> = md.lines().collect();
    let after = |heading: &str| {
        let i = lines.iter().position(|l| l.starts_with(heading)).unwrap();
        lines[i + 2]
    };
    assert_eq!(after("## Study a"), format!("Machine: {EPYC}"));
    assert_eq!(after("## Study b"), format!("Machine: {XEON}"));
}

#[test]
fn a_run_without_machine_facts_says_unknown() {
    let r = run("old", Machine::default());
    let md = render(
        &build(&[("r".into(), Input::Study(Box::new(r)))]).unwrap(),
        Format::Markdown,
        "t",
    );
    assert!(md.contains("\nMachine: unknown\n"), "{md}");
}

/// Two runs of different machines compared (`barrage compare`, the report's comparison): the
/// machines are said first, before any row; runs of one machine say nothing of it.
#[test]
fn a_comparison_across_machines_says_so_first() {
    let inputs = runs();
    let (Input::Study(a), Input::Study(b)) = (&inputs[0].1, &inputs[1].1) else {
        unreachable!()
    };
    let opts = barrage_model::compare::Options::default();
    let d = barrage_model::compare::compare(
        ("a", barrage_model::compare::Doc::Study(a)),
        ("b", barrage_model::compare::Doc::Study(b)),
        &opts,
    )
    .unwrap();
    let m = d.machines.clone().expect("different machines");
    assert!(
        m.contains("AMD EPYC x2 vs Intel(R) Xeon(R) Processor x2"),
        "{m}"
    );
    let text = barrage_report::diff::render::text(&d);
    let first_row = text.find("wall").expect("a row");
    assert!(text.find(&m).is_some_and(|i| i < first_row), "{text}");
    let md = barrage_report::diff::render::markdown(&d);
    assert!(
        md.find(&m).is_some_and(|i| i < md.find("| ").unwrap()),
        "{md}"
    );
    // The report's comparison section: its first note.
    let page = build(&inputs).unwrap();
    let cmp = page
        .sections
        .iter()
        .find(|s| s.comparison.is_some())
        .expect("a comparison section");
    assert_eq!(cmp.notes.first(), Some(&m));
    // One machine: nothing said.
    let same = barrage_model::compare::compare(
        ("a", barrage_model::compare::Doc::Study(a)),
        ("a", barrage_model::compare::Doc::Study(a)),
        &opts,
    )
    .unwrap();
    assert_eq!(same.machines, None);
}
