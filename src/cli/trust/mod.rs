//! `mcpdeck lint`, `pin`, `verify` and `scan`: tool trust from the command
//! line, on [`crate::trust`].

pub mod lint;
pub mod pin;
pub mod scan;
