//! The HTTP routes, one module per resource.

pub mod catalogue;
pub mod play;
pub mod positions;
pub mod render;
pub mod solitaire;
