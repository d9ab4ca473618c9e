//! barrage's exporters: turn a study's `results.json` (`barrage.study/1`) or `barrage load --json`
//! documents (`barrage.load/1`) into Markdown, CSV, or one self-contained HTML file with SVG plots.
//!
//! [`parse`] reads a document, [`build`] computes the report as a [`page::Page`] value (tables,
//! comparisons, plots), and [`render`] lays it out in the chosen [`Format`]. With two or more
//! study files the first is the baseline and each later one is compared with it point by point;
//! with two or more load documents likewise, every test of every pair Holm-corrected as one
//! family (`barrage_model::compare::load_family`). Every verdict shown is the model's.
//! [`diff`] is `barrage compare`'s: a new result against its baseline, metric by metric, judged
//! against a noise floor.

pub mod answer;
pub mod compare;
pub mod csv;
pub mod diff;
pub mod hdr;
pub mod html;
pub mod interact;
pub mod load_section;
pub mod markdown;
pub mod overload;
pub mod page;
pub mod questions;
pub mod study_section;
pub mod summary_csv;
pub mod svg;
pub mod table;
pub mod terminal;
pub mod trend;

use barrage_model::load::LoadDoc;
use barrage_model::study::Results;
use thiserror::Error;

/// Why a report could not be made.
#[derive(Debug, Error)]
pub enum ReportError {
    #[error("not a results document: {0}")]
    Json(#[from] serde_json::Error),
    #[error("unknown schema {0:?} (expected barrage.study/2, barrage.study/1, barrage.load/2 or barrage.load/1)")]
    Schema(String),
    #[error("nothing to report")]
    Empty,
}

/// A parsed input document.
#[derive(Debug, Clone)]
pub enum Input {
    Study(Box<Results>),
    Load(Box<LoadDoc>),
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Html,
    Markdown,
    Csv,
}

/// Reads a document by its `schema` key.
pub fn parse(text: &str) -> Result<Input, ReportError> {
    let v: serde_json::Value = serde_json::from_str(text)?;
    let schema = v
        .get("schema")
        .and_then(|s| s.as_str())
        .unwrap_or_default()
        .to_string();
    match schema.as_str() {
        s if barrage_model::study::SCHEMAS_READ.contains(&s) => {
            let mut r: Results = serde_json::from_value(v)?;
            // The statistics are the model's, recomputed from the trials: a file written by an
            // older lab is reported with the same tests, intervals and warnings as a new one.
            barrage_model::summary::update(&mut r);
            Ok(Input::Study(Box::new(r)))
        }
        "barrage.load/2" | "barrage.load/1" => {
            Ok(Input::Load(Box::new(serde_json::from_value(v)?)))
        }
        _ => Err(ReportError::Schema(schema)),
    }
}

/// Choices that shape the report.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Point labels ("c=64", "keep-alive c=16") at which to plot the latency distributions;
    /// empty: the largest value of the swept parameter.
    pub hdr_points: Vec<String>,
}

/// Builds the report of labelled inputs (labels are usually file names) with default options.
pub fn build(inputs: &[(String, Input)]) -> Result<page::Page, ReportError> {
    build_with(inputs, &Options::default())
}

/// Builds the report of labelled inputs with `options`.
pub fn build_with(
    inputs: &[(String, Input)],
    options: &Options,
) -> Result<page::Page, ReportError> {
    if inputs.is_empty() {
        return Err(ReportError::Empty);
    }
    let studies: Vec<(String, &Results)> = labelled(inputs, Input::study);
    let loads: Vec<(String, &LoadDoc)> = labelled(inputs, Input::load);
    let title = match (studies.as_slice(), loads.len()) {
        ([(_, s)], 0) => format!("barrage study: {}", s.study.name),
        ([(_, a), (_, b)], 0) if compare::comparable(a, b) => {
            format!("barrage studies: {} vs {}", a.study.name, b.study.name)
        }
        (many, 0) if many.len() > 3 => {
            // Many runs of one family ("pingpong-overload-go", "pingpong-overload-rust"): their
            // shared prefix and a count, not a paragraph of names.
            let names: Vec<&str> = many.iter().map(|(_, s)| s.study.name.as_str()).collect();
            let mut prefix = names[0];
            for n in &names[1..] {
                while !n.starts_with(prefix) {
                    prefix = &prefix[..prefix.len() - 1];
                }
            }
            format!("barrage studies: {prefix}… ({} runs)", many.len())
        }
        (many, 0) if many.len() > 1 => format!(
            "barrage studies: {}",
            many.iter()
                .map(|(_, s)| s.study.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ([], 1) => "barrage load run".to_string(),
        ([], n) => format!("barrage load runs ({n})"),
        _ => "barrage report".to_string(),
    };
    let mut page = page::Page {
        title,
        sections: Vec::new(),
    };
    if let Some((base_label, base)) = studies.first() {
        // Files with no contender in common (e.g. one overload study per server) are shown
        // side by side, not compared.
        for (label, other) in studies.iter().skip(1) {
            if compare::comparable(base, other) {
                page.sections
                    .push(compare::section(base_label, base, label, other));
            }
        }
    }
    // Several overload studies (one per server): one section across them answers first, each
    // server's own section follows folded.
    let cross = overload::section(&studies);
    let fold = cross.is_some();
    page.sections.extend(cross);
    for (label, s) in &studies {
        let mut sec = study_section::section(label, s, &options.hdr_points);
        sec.folded = fold;
        page.sections.push(sec);
    }
    // Load runs after the first are compared with it, as `barrage compare` does (one engine),
    // and every test of every pair is one family: what the page claims holds at α together.
    if let Some((base_label, base)) = loads.first() {
        let others: Vec<(&str, &LoadDoc)> =
            loads[1..].iter().map(|(l, d)| (l.as_str(), *d)).collect();
        let options = barrage_model::compare::Options::default();
        let family = barrage_model::compare::load_family((base_label, base), &others, &options);
        for cmp in family.into_iter().flatten() {
            page.sections.push(page::Section {
                heading: format!("Comparison: {} vs baseline {base_label}", cmp.new),
                notes: cmp.notes.clone(),
                comparison: Some(cmp),
                ..page::Section::default()
            });
        }
    }
    if !loads.is_empty() {
        page.sections.push(load_section::section(&loads));
    }
    Ok(page)
}

/// The inputs of one kind, with their labels.
fn labelled<'a, T: ?Sized>(
    inputs: &'a [(String, Input)],
    pick: impl Fn(&'a Input) -> Option<&'a T>,
) -> Vec<(String, &'a T)> {
    inputs
        .iter()
        .filter_map(|(l, i)| pick(i).map(|x| (l.clone(), x)))
        .collect()
}

impl Input {
    /// The study results, if this is one.
    pub fn study(&self) -> Option<&Results> {
        match self {
            Input::Study(s) => Some(s),
            Input::Load(_) => None,
        }
    }

    /// The load document, if this is one.
    pub fn load(&self) -> Option<&LoadDoc> {
        match self {
            Input::Load(d) => Some(d),
            Input::Study(_) => None,
        }
    }
}

/// Renders the page in `format`; `generator` names the program in the HTML footer.
pub fn render(page: &page::Page, format: Format, generator: &str) -> String {
    match format {
        Format::Html => html::render(page, generator),
        Format::Markdown => markdown::render(page),
        Format::Csv => csv::render(page),
    }
}
