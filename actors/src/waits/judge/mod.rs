//! A wait's own judging: the local detectors a condition's clauses name (the process exits,
//! an error appears, a count passes a number) and the decision taken on each observation.
//! The seam every judge implements, model or not, is `crate::condition::judge`.

#[cfg(test)]
mod corpus;
pub mod decide;
pub mod detectors;
