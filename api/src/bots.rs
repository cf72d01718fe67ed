//! Built-in bots that can hold a seat of a stored match.
//!
//! Everything a bot does goes through [`choose_move`]; the spec
//! ([`BotSpec`]) is stored with the seat, so a match's bot moves are
//! reproducible from the match's seed and the ply.

use serde::{Deserialize, Serialize};
use sternhalma::{Move, Position};
use utoipa::ToSchema;

use crate::error::ApiError;

/// The bot kinds this server knows.
pub const KINDS: &[&str] = &["random"];

/// A built-in bot: its kind and settings. Settings a kind does not use are
/// kept (and ignored).
#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"kind": "random", "seed": 7}))]
pub struct BotSpec {
    /// The kind of bot: `random` (a legal move chosen uniformly at random).
    #[schema(example = "random")]
    pub kind: String,
    /// The seed of its choices; a random one is chosen (and stored) when
    /// absent. The same seed replays the same choices.
    #[serde(
        default,
        deserialize_with = "crate::whole::optional",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 18446744073709551615.0)]
    pub seed: Option<u64>,
    /// Search budget in nodes (for searching bots; unused by `random`).
    #[serde(
        default,
        deserialize_with = "crate::whole::optional",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 18446744073709551615.0)]
    pub nodes: Option<u64>,
    /// Search budget in milliseconds (for searching bots; unused by
    /// `random`).
    #[serde(
        default,
        deserialize_with = "crate::whole::optional",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 18446744073709551615.0)]
    pub millis: Option<u64>,
    /// Search depth in plies (for searching bots; unused by `random`).
    #[serde(
        default,
        deserialize_with = "crate::whole::optional",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 4294967295.0)]
    pub depth: Option<u32>,
}

impl BotSpec {
    /// Checks the kind: a 422 `unknown_bot` names the known ones.
    ///
    /// # Errors
    /// The kind is not one of [`KINDS`].
    pub fn validate(&self) -> Result<(), ApiError> {
        if KINDS.contains(&self.kind.as_str()) {
            Ok(())
        } else {
            Err(ApiError::unprocessable(
                "unknown_bot",
                format!(
                    "unknown bot kind {:?}; known kinds: {}",
                    self.kind,
                    KINDS.join(", ")
                ),
            ))
        }
    }
}

/// The move the bot `spec` plays in `position`, which must be in progress
/// (a decided position has no legal move; [`Move::Pass`] is answered then).
/// `ply_seed` varies per ply (the match mixes its seat's seed with the ply),
/// so a bot's choices are reproducible.
pub fn choose_move(spec: &BotSpec, position: &Position, ply_seed: u64) -> Move {
    let moves = position.legal_moves();
    if moves.is_empty() {
        return Move::Pass;
    }
    // Every kind is `random` for now (`validate` refuses the others).
    let _ = spec;
    let random = splitmix64(ply_seed);
    // Lemire's multiply-shift: an index below `moves.len()` without modulo bias worth
    // mentioning.
    let index = ((u128::from(random) * moves.len() as u128) >> 64) as usize;
    moves[index]
}

/// The seed for the move at `ply` of a bot seeded `seed`.
pub fn ply_seed(seed: u64, ply: u32) -> u64 {
    splitmix64(seed ^ u64::from(ply).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// One step of SplitMix64 (Steele, Lea and Flood 2014): a well-mixed hash of
/// a 64-bit number.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random(seed: u64) -> BotSpec {
        BotSpec {
            kind: "random".to_owned(),
            seed: Some(seed),
            nodes: None,
            millis: None,
            depth: None,
        }
    }

    #[test]
    fn random_bot_plays_legal_reproducible_moves() {
        let mut position = Position::start(
            "rhombus5x2".parse().unwrap(),
            sternhalma::Layout::standard(2).unwrap(),
            sternhalma::Rules::classic(),
        )
        .unwrap();
        let spec = random(7);
        let mut seen = std::collections::HashSet::new();
        for ply in 0..40 {
            if position.outcome() != sternhalma::Outcome::InProgress {
                break;
            }
            let mv = choose_move(&spec, &position, ply_seed(7, ply));
            assert_eq!(mv, choose_move(&spec, &position, ply_seed(7, ply)));
            assert!(position.is_legal(mv));
            seen.insert(mv.to_string());
            position = position.play(mv).unwrap();
        }
        assert!(seen.len() > 5, "the bot varies its moves");
    }

    #[test]
    fn unknown_kinds_are_refused() {
        let mut spec = random(1);
        assert!(spec.validate().is_ok());
        spec.kind = "alphazero".to_owned();
        assert_eq!(spec.validate().unwrap_err().problem().code, "unknown_bot");
    }
}
