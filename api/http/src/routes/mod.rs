//! The stateless routes, one module per resource.

pub mod bots;
pub mod catalogue;
pub mod play;
pub mod positions;
pub mod render;
pub mod solitaire;
pub mod solitaire_jobs;
pub mod tablebases;
