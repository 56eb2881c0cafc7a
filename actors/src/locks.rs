//! The one way a `std::sync::Mutex` or `RwLock` is taken, poisoned or not: storage's
//! (`storage::locks`), the crate below this one.

pub use storage::locks::{lock, read, write};
