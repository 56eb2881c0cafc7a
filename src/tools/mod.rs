//! The tool surface: what each call means, from its name to its answer.
//!
//! [`spine`] lists every method once, as a type; [`catalogue`] gives each tool its
//! description and JSON Schema; [`limits`] is where every bound of a call comes from;
//! [`params`] decodes and checks a call's params into the tree's typed requests; [`methods`]
//! dispatches a call to the tree; [`wire`] turns the tree's answers into JSON results;
//! [`export`] and [`strict_schema`] give the catalogue to other APIs as function tools.

pub mod catalogue;
pub mod export;
pub mod limits;
pub mod methods;
pub mod params;
pub mod spine;
pub mod strict_schema;
pub mod wire;
