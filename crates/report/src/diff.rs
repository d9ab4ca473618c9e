//! `barrage compare`'s layouts: the model's [`Comparison`] of a new result with its baseline
//! (`barrage_model::compare`: pairs of cells, the test, Holm's correction, the noise floor and
//! one verdict per row) read from two parsed inputs, and laid out by [`render`] as a terminal
//! table, Markdown for a pull request, or the `barrage.compare/1` JSON. The comparison section
//! of `barrage report A B` renders the same value (`crate::compare`), so both name the same
//! verdict on every row.

pub mod render;
#[cfg(test)]
mod tests;

use crate::Input;
use barrage_model::compare::{self, CompareError, Comparison, Doc, Options};

impl Input {
    /// The input as one side of a comparison.
    pub fn doc(&self) -> Doc<'_> {
        match self {
            Input::Load(d) => Doc::Load(d),
            Input::Study(r) => Doc::Study(r),
        }
    }
}

/// Compares `new` with `base` (each with its label): two load documents or two study results.
pub fn compare(
    base: (&str, &Input),
    new: (&str, &Input),
    options: &Options,
) -> Result<Comparison, CompareError> {
    compare::compare((base.0, base.1.doc()), (new.0, new.1.doc()), options)
}
