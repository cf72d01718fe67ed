//! Built-in bots that can hold a seat of a stored match.
//!
//! A seat's bot is asked for as a [`BotSpec`] (the wire's form, stored with
//! the seat, so a match's bot moves are reproducible from the seat's seed
//! and the ply) and played as a [`SeatBot`]: a kind, a budget and a seed,
//! made once from a checked spec ([`SeatBot::new`]). A spec that cannot
//! make one is refused when the match or tournament is made (an
//! [`Invalid`] error), and a
//! stored one that no longer can is an error, never another bot. Its moves
//! go through [`SeatBot::choose`], which runs the crate's bots
//! (`sternhalma::search`) and says why when it cannot move. A `perfect`
//! bot plays from the solved tables it is given (the store's,
//! [`crate::Store::tables`]): none of its own.
//!
//! A seat's bot searches on the heavy-work pool's urgent lane, never on the
//! database writer (`crate::matches::runner`); its budget is counted in
//! nodes (never in milliseconds: moves must replay the same from the seed)
//! and capped ([`MAX_SEAT_NODES`], [`MAX_SEAT_PLAYOUTS`]) so that one move
//! holds a heavy-work thread a fraction of a second.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sternhalma::search::perfect::PerfectBot;
use sternhalma::search::{self, BotConfig, BotKind, Budget};
use sternhalma::solve::Tablebases;
use sternhalma::{Move, Position};

use crate::error::{Error, Invalid};

/// The most positions a searching seat (`alphabeta`, `paranoid`) may search
/// per move: at most 0.53 s of one thread (rhombus11p55 under `super`;
/// 0.21 s or less on every board under `classic`; BENCHMARKS.md, "Seat
/// caps").
pub const MAX_SEAT_NODES: u64 = 200_000;
/// The most playouts an `mcts` seat may run per move: at most 1.15 s of one
/// thread (star4 with six players under `super`; 0.3 s or less under
/// `classic`; BENCHMARKS.md, "Seat caps"). Kept above the stateless route's
/// cap so that matches stored with it still replay the same.
pub const MAX_SEAT_PLAYOUTS: u64 = 5_000;
/// The deepest a seat's search may go.
pub const MAX_SEAT_DEPTH: u32 = 64;

/// A built-in bot as a seat or an entrant asks for it: its kind and
/// settings, stored with the seat as JSON (settings a kind does not use
/// are kept, and ignored). The wire's form, with its documentation, is the
/// server's (`api/src/wire/bots.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BotSpec {
    /// The kind of bot, by name ([`parse_kind`]).
    pub kind: String,
    /// The seed of its choices (chosen when the seat is made, if absent).
    #[serde(
        default,
        deserialize_with = "sternhalma::wire::whole::optional",
        skip_serializing_if = "Option::is_none"
    )]
    pub seed: Option<u64>,
    /// Positions (`alphabeta`, `paranoid`) or playouts (`mcts`) per move.
    #[serde(
        default,
        deserialize_with = "sternhalma::wire::whole::optional",
        skip_serializing_if = "Option::is_none"
    )]
    pub nodes: Option<u64>,
    /// A time budget: refused for a seat ([`BotSpec::validate`]).
    #[serde(
        default,
        deserialize_with = "sternhalma::wire::whole::optional",
        skip_serializing_if = "Option::is_none"
    )]
    pub millis: Option<u64>,
    /// Search depth limit in plies.
    #[serde(
        default,
        deserialize_with = "sternhalma::wire::whole::optional",
        skip_serializing_if = "Option::is_none"
    )]
    pub depth: Option<u32>,
}

impl BotSpec {
    /// Checks the spec: [`Invalid::UnknownBot`] names the known kinds,
    /// [`Invalid::BudgetNotAllowed`] refuses a time budget and
    /// [`Invalid::BudgetTooLarge`] a budget over a seat's caps.
    ///
    /// # Errors
    /// As above.
    pub fn validate(&self) -> Result<(), Error> {
        self.config(0).map(|_| ())
    }

    /// [`BotSpec::validate`], and whether the bot can play the game that
    /// starts at `start`: the `perfect` bot needs a table with depths of
    /// its game in `tables`, those it will play from
    /// ([`PerfectBot::covers`]), without which it could not move. Every
    /// bot a match seats or a tournament enters is checked here.
    ///
    /// # Errors
    /// As [`BotSpec::validate`]; for `perfect`, [`Invalid::Tablebase`]
    /// with the table's code (`no_tablebase`, `tablebase_other_game`,
    /// `tablebase_without_depths`).
    pub fn validate_at(&self, start: &Position, tables: &Tablebases) -> Result<(), Error> {
        let config = self.config(0)?;
        if config.kind == BotKind::Perfect {
            PerfectBot::covers(tables, start).map_err(|e| {
                Error::invalid(
                    Invalid::Tablebase(e.code()),
                    format!(
                        "the perfect bot plays only where an installed table with depths covers the game: {e}"
                    ),
                )
            })?;
        }
        Ok(())
    }

    /// The bot configuration for one move, seeded `seed`.
    fn config(&self, seed: u64) -> Result<BotConfig, Error> {
        let kind = parse_kind(&self.kind)?;
        if self.millis.is_some() {
            return Err(Error::invalid(
                Invalid::BudgetNotAllowed,
                "a seat's bot takes no `millis` budget: its moves must replay the same \
                 from its seed; give `nodes` instead",
            ));
        }
        let cap = match kind {
            BotKind::Mcts => MAX_SEAT_PLAYOUTS,
            _ => MAX_SEAT_NODES,
        };
        if let Some(nodes) = self.nodes.filter(|&n| n > cap) {
            return Err(budget_too_large("a seat's nodes", nodes, cap));
        }
        if let Some(depth) = self.depth.filter(|&d| d > MAX_SEAT_DEPTH) {
            let max = u64::from(MAX_SEAT_DEPTH);
            return Err(budget_too_large("a seat's depth", u64::from(depth), max));
        }
        let default = Budget::default_for(kind);
        let budget = Budget {
            // Always a node budget for a searching kind, so a depth alone
            // cannot run away with a heavy-work thread.
            nodes: self.nodes.or(default.nodes),
            millis: None,
            depth: self.depth,
        };
        Ok(BotConfig { kind, budget, seed })
    }
}

/// A seat's bot as it plays: its kind, its budget and its seed, made only
/// from a spec that passes [`BotSpec::validate`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeatBot {
    config: BotConfig,
}

/// Why a seat's bot cannot move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CannotMove {
    /// The stable code (`no_tablebase`, `tablebase_other_game`,
    /// `tablebase_without_depths`, ...).
    pub code: &'static str,
    /// What is missing, for the operator.
    pub message: String,
}

impl std::fmt::Display for CannotMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl SeatBot {
    /// The bot `spec` asks for (its seed 0 when it has none).
    ///
    /// # Errors
    /// As [`BotSpec::validate`]: an unknown kind, a time budget, a budget
    /// over the seat caps.
    pub fn new(spec: &BotSpec) -> Result<SeatBot, Error> {
        Ok(SeatBot {
            config: spec.config(spec.seed.unwrap_or(0))?,
        })
    }

    /// The greedy bot seeded `seed` (what plays a late entrant's turn).
    pub fn greedy(seed: u64) -> SeatBot {
        SeatBot {
            config: BotConfig::new(BotKind::Greedy).with_seed(seed),
        }
    }

    /// Its seed (each ply's choices are seeded from it and the ply).
    pub fn seed(&self) -> u64 {
        self.config.seed
    }

    /// The move it plays in `position` at `ply` (its seed mixed with the
    /// ply, so its choices replay the same); a pass when the game is over.
    /// A `perfect` bot plays from `tables` (from none when `None`; the
    /// other kinds read no table). CPU-bound: run it off the writer and
    /// off actix's workers.
    ///
    /// # Errors
    /// A `perfect` bot with no table with depths of the game in `tables`
    /// (a server started again without the table it was accepted with):
    /// it does not play another bot's move in its place.
    pub fn choose(
        &self,
        position: &Position,
        ply: u32,
        tables: Option<&Arc<Tablebases>>,
    ) -> Result<Move, CannotMove> {
        if position.outcome() != sternhalma::Outcome::InProgress {
            return Ok(Move::Pass);
        }
        let config = BotConfig {
            seed: ply_seed(self.config.seed, ply),
            ..self.config
        };
        if config.kind == BotKind::Perfect {
            let tables = tables.map_or_else(Arc::default, Arc::clone);
            return PerfectBot::new(config, tables)
                .choose(position)
                .map(|result| result.best_move)
                .map_err(|e| CannotMove {
                    code: e.code(),
                    message: format!("the perfect bot cannot move: {e}"),
                });
        }
        Ok(search::new_bot(&config, None).step(position))
    }
}

/// The bot kind named `kind`.
///
/// # Errors
/// [`Invalid::UnknownBot`], naming the known kinds.
pub fn parse_kind(kind: &str) -> Result<BotKind, Error> {
    Ok(kind.parse::<BotKind>()?)
}

/// [`Invalid::BudgetTooLarge`]: `what = value` is over `max`.
pub fn budget_too_large(what: &str, value: u64, max: u64) -> Error {
    search::BudgetTooLarge {
        what: what.to_owned(),
        value,
        max,
    }
    .into()
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

    fn spec(kind: &str, seed: u64) -> BotSpec {
        BotSpec {
            kind: kind.to_owned(),
            seed: Some(seed),
            nodes: None,
            millis: None,
            depth: None,
        }
    }

    fn start() -> Position {
        Position::start(
            "rhombus5p3".parse().unwrap(),
            sternhalma::Layout::standard(2).unwrap(),
            sternhalma::Rules::classic(),
        )
        .unwrap()
    }

    #[test]
    fn every_kind_plays_legal_reproducible_moves() {
        for kind in BotKind::ALL {
            let mut position = start();
            let mut spec = spec(kind.name(), 7);
            spec.nodes = (kind != BotKind::Random && kind != BotKind::Greedy).then_some(300);
            spec.validate().unwrap();
            if kind == BotKind::Perfect {
                // No table of rhombus5p3 in the tables it is given (nor
                // any table without them): it says why, and plays nobody
                // else's move.
                let tables = Arc::new(Tablebases::default());
                let refused = SeatBot::new(&spec)
                    .unwrap()
                    .choose(&position, 0, Some(&tables));
                let why = refused.unwrap_err();
                assert_eq!(why.code, "no_tablebase");
                assert!(why.message.contains("perfect bot cannot move"), "{why}");
                let alone = SeatBot::new(&spec).unwrap().choose(&position, 0, None);
                assert_eq!(alone.unwrap_err().code, "no_tablebase");
                continue;
            }
            for ply in 0..30 {
                if position.outcome() != sternhalma::Outcome::InProgress {
                    break;
                }
                let bot = SeatBot::new(&spec).unwrap();
                let mv = bot.choose(&position, ply, None).unwrap();
                assert_eq!(mv, bot.choose(&position, ply, None).unwrap(), "{kind}");
                assert!(position.is_legal(mv), "{kind} played {mv}");
                position = position.play(mv).unwrap();
            }
        }
    }

    #[test]
    fn the_random_seat_varies_its_moves() {
        let mut position = start();
        let spec = spec("random", 7);
        let mut seen = std::collections::HashSet::new();
        for ply in 0..40 {
            if position.outcome() != sternhalma::Outcome::InProgress {
                break;
            }
            let mv = SeatBot::new(&spec)
                .unwrap()
                .choose(&position, ply, None)
                .unwrap();
            seen.insert(mv.to_string());
            position = position.play(mv).unwrap();
        }
        assert!(seen.len() > 5, "the bot varies its moves");
    }

    #[test]
    fn a_perfect_seat_needs_a_table_of_its_game() {
        // These tables have none of rhombus5p3.
        let tables = Tablebases::default();
        let refused = spec("perfect", 1)
            .validate_at(&start(), &tables)
            .unwrap_err();
        assert_eq!(refused.code(), "no_tablebase");
        assert!(refused.to_string().contains("perfect bot"), "{refused}");
        assert!(spec("greedy", 1).validate_at(&start(), &tables).is_ok());
        assert_eq!(
            spec("alphazero", 1)
                .validate_at(&start(), &tables)
                .unwrap_err()
                .code(),
            "unknown_bot"
        );
    }

    #[test]
    fn a_perfect_seat_plays_from_the_tables_it_is_given() {
        use sternhalma::solve::{Game, Tablebase};
        let game = Game::new(7, 1).unwrap();
        let start = Position::start(
            game.board(),
            sternhalma::Layout::standard(2).unwrap(),
            sternhalma::Rules::sturtevant(),
        )
        .unwrap();
        let solved = Arc::new(Tablebases::default());
        solved.install(Arc::new(Tablebase::build(&game, 1, &|_| {}).unwrap()));
        let empty = Arc::new(Tablebases::default());
        let perfect = spec("perfect", 3);
        assert!(perfect.validate_at(&start, &solved).is_ok());
        assert_eq!(
            perfect.validate_at(&start, &empty).unwrap_err().code(),
            "no_tablebase"
        );
        let bot = SeatBot::new(&perfect).unwrap();
        let mv = bot.choose(&start, 0, Some(&solved)).unwrap();
        assert!(start.is_legal(mv), "{mv}");
        // One of the best moves (best first).
        let moves = solved.get(game.board()).unwrap().moves(&start).unwrap();
        let played = moves.iter().find(|m| m.mv == mv).unwrap();
        assert_eq!(played.preference(), moves[0].preference(), "{mv}");
        assert_eq!(
            bot.choose(&start, 0, Some(&empty)).unwrap_err().code,
            "no_tablebase"
        );
    }

    #[test]
    fn seat_budgets_are_nodes_within_the_caps() {
        let code = |spec: &BotSpec| spec.validate().unwrap_err().code();
        assert_eq!(code(&spec("alphazero", 1)), "unknown_bot");
        let mut timed = spec("alphabeta", 1);
        timed.millis = Some(100);
        assert_eq!(code(&timed), "budget_not_allowed");
        let mut big = spec("alphabeta", 1);
        big.nodes = Some(MAX_SEAT_NODES + 1);
        assert_eq!(code(&big), "budget_too_large");
        big.nodes = Some(MAX_SEAT_NODES);
        assert!(big.validate().is_ok());
        let mut mcts = spec("mcts", 1);
        mcts.nodes = Some(MAX_SEAT_PLAYOUTS + 1);
        assert_eq!(code(&mcts), "budget_too_large");
        let mut deep = spec("alphabeta", 1);
        deep.depth = Some(10);
        assert_eq!(
            deep.config(1).unwrap().budget.nodes,
            Some(20_000),
            "a node cap always applies"
        );
    }
}
