//! Matches between bots: many seeded games, first seat alternating.

use super::bot::{Bot, BotConfig, new_bot};
use crate::Position;

/// The ply at which the arena stops a game whose rules set no `max_plies`,
/// counting it as a draw.
pub const DEFAULT_PLY_CAP: u32 = 1_000;

/// The score of a match, from the first bot's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArenaResult {
    /// Games played.
    pub games: u32,
    /// Games the first bot won.
    pub wins: u32,
    /// Games the second bot won.
    pub losses: u32,
    /// Games neither won (draws, or ties between the two).
    pub draws: u32,
    /// Plies played in all the games.
    pub plies: u64,
}

impl ArenaResult {
    /// The first bot's score rate: wins plus half the draws, over games.
    #[must_use]
    pub fn win_rate(&self) -> f64 {
        if self.games == 0 {
            return 0.0;
        }
        (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(self.games)
    }
}

/// Plays one game from `start`, seat `i` played by `bots[i]` (one bot per
/// player), until it ends or reaches `ply_cap`; returns the last position.
///
/// # Panics
/// If `bots` has fewer entries than the game has players.
pub fn play_game(bots: &mut [Box<dyn Bot>], start: &Position, ply_cap: u32) -> Position {
    let mut position = start.clone();
    while position.ply() < ply_cap && !position.legal_moves().is_empty() {
        let mv = bots[position.side_to_move()].step(&position);
        debug_assert!(position.is_legal(mv), "a bot played an illegal move");
        position.make_move(mv);
    }
    position
}

/// Plays `games` games between bot `a` and bot `b` from `start`. In game `g`
/// bot `a` holds seat `g % players` and bot `b` every other seat, so with
/// two players they alternate moving first. Each bot in game `g` is seeded
/// with its configured seed plus `g` times the number of players plus its
/// seat, so a match replays exactly under node budgets.
///
/// A game counts as a win for `a` if `a`'s [result](crate::Outcome::results)
/// is above every `b` seat's, a loss if below the best of them, and a draw
/// otherwise (draw, move limit, shared win). Games stop at the rules'
/// `max_plies`, or at [`DEFAULT_PLY_CAP`] if they set none.
///
/// The bots are made with no solved tables ([`new_bot`] given `None`): a
/// `perfect` bot here plays as the greedy one. To match a perfect bot,
/// make the bots with tables and play them with [`play_game`].
///
/// ```
/// use sternhalma::{Board, Layout, Position, Rules};
/// use sternhalma::search::{arena, BotConfig, BotKind};
/// let rules: Rules = "classic,max_plies=100".parse()?;
/// let start = Position::start("star2".parse()?, Layout::standard(2)?, rules)?;
/// let result = arena::arena(&BotConfig::new(BotKind::Greedy), &BotConfig::new(BotKind::Random), &start, 4);
/// assert_eq!(result.games, 4);
/// assert_eq!(result.wins + result.losses + result.draws, 4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn arena(a: &BotConfig, b: &BotConfig, start: &Position, games: u32) -> ArenaResult {
    let players = start.layout().player_count();
    let cap = start.rules().max_plies.unwrap_or(DEFAULT_PLY_CAP);
    let mut result = ArenaResult::default();
    for game in 0..games {
        let a_seat = game as usize % players;
        let mut bots: Vec<Box<dyn Bot>> = (0..players)
            .map(|seat| {
                let config = if seat == a_seat { a } else { b };
                let seed = config
                    .seed
                    .wrapping_add(u64::from(game) * players as u64 + seat as u64);
                new_bot(&config.with_seed(seed), None)
            })
            .collect();
        let end = play_game(&mut bots, start, cap);
        result.games += 1;
        result.plies += u64::from(end.ply() - start.ply());
        let results = end.outcome().results(players);
        let mine = results[a_seat];
        let theirs = (0..players)
            .filter(|&s| s != a_seat)
            .map(|s| results[s])
            .fold(f64::NEG_INFINITY, f64::max);
        if mine > theirs {
            result.wins += 1;
        } else if mine < theirs {
            result.losses += 1;
        } else {
            result.draws += 1;
        }
    }
    result
}
