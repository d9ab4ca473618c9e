//! The report's views of the documents it reads: own serde types with only the fields shown and
//! defaults everywhere, so the report keeps working as the engine and lab formats grow.

pub mod load;
pub mod study;
