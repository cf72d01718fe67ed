//! The perfect bot: on a solved board (RULES §7), the best move a table
//! knows ([`Tablebase::best_move`]): the fastest win, a drawing move when
//! drawn, the longest loss; among equals, one drawn from its seed.

use std::sync::Arc;
use std::time::Instant;

use super::bot::{Bot, BotConfig, SearchResult};
use super::greedy::GreedyBot;
use super::rng::Rng;
use crate::Position;
use crate::solve::{Tablebase, TablebaseError, Tablebases, Value};

/// Plays from the table of its [`Tablebases`] (given when it is made) that
/// covers the position, which must have depths (without them a won game
/// could go round in circles). [`PerfectBot::choose`] says why it cannot
/// move where no such table covers the position; [`Bot::search`] (for
/// surfaces that checked [`PerfectBot::covers`] with the same tables
/// before they accepted the bot) plays as the greedy bot there. Neither
/// panics, not even in a finished game (a pass).
#[derive(Clone, Debug)]
pub struct PerfectBot {
    config: BotConfig,
    rng: Rng,
    tables: Arc<Tablebases>,
}

impl PerfectBot {
    /// A perfect bot seeded from `config`, playing from `tables` (those
    /// installed in them later too).
    #[must_use]
    pub fn new(config: BotConfig, tables: Arc<Tablebases>) -> PerfectBot {
        PerfectBot {
            config,
            rng: Rng::new(config.seed),
            tables,
        }
    }

    /// The table of `tables` a perfect bot would play `position` from.
    ///
    /// # Errors
    /// No table of `tables` covers it, or the one that does has no depths.
    pub fn covers(
        tables: &Tablebases,
        position: &Position,
    ) -> Result<Arc<Tablebase>, TablebaseError> {
        let table = tables.for_position(position)?;
        if !table.has_depths() {
            return Err(TablebaseError::NoDepths(format!(
                "the table of {} has values but no depths, and the perfect bot needs both to hurry a win (solve it with --depth on)",
                position.board()
            )));
        }
        Ok(table)
    }
}

impl PerfectBot {
    /// The best move in `position` from the table that covers it, with the
    /// line of best play that follows; a pass in a finished game.
    ///
    /// # Errors
    /// No table with depths of the bot's tables covers `position` (the
    /// error says which tables there are and why none fits): nothing is
    /// played.
    pub fn choose(&mut self, position: &Position) -> Result<SearchResult, TablebaseError> {
        let started = Instant::now();
        if position.is_game_over() {
            return Ok(SearchResult {
                best_move: crate::Move::Pass,
                score: 0.0,
                principal_variation: Vec::new(),
                nodes: 0,
                elapsed: started.elapsed(),
                depth: 0,
            });
        }
        let table = PerfectBot::covers(&self.tables, position)?;
        let seed = self.rng.next_u64();
        let best = table.best_move(position, seed)?;
        let score = match best.value {
            Value::Win => 1.0,
            Value::Loss => -1.0,
            _ => 0.0,
        };
        // The line of best play that follows, as far as 32 plies.
        let mut line = vec![best.mv];
        let mut next = position.play(best.mv).expect("a legal move");
        let mut nodes = position.legal_moves().len() as u64;
        while line.len() < 32 && !next.is_game_over() {
            let Ok(reply) = table.best_move(&next, seed) else {
                break;
            };
            nodes += next.legal_moves().len() as u64;
            line.push(reply.mv);
            next = next.play(reply.mv).expect("a legal move");
        }
        Ok(SearchResult {
            best_move: best.mv,
            score,
            principal_variation: line,
            nodes,
            elapsed: started.elapsed(),
            depth: best.depth.unwrap_or(0),
        })
    }
}

impl Bot for PerfectBot {
    fn search(&mut self, position: &Position) -> SearchResult {
        match self.choose(position) {
            Ok(result) => result,
            // A surface that accepted the bot checked `covers` first.
            Err(_) => GreedyBot::new(self.config).search(position),
        }
    }

    fn config(&self) -> BotConfig {
        self.config
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{BotKind, new_bot};
    use crate::solve::Game;
    use crate::{Board, Layout, Move, Rules};

    /// A game over by its move limit after two plies.
    fn finished() -> Position {
        let rules: Rules = "classic,max_plies=2".parse().unwrap();
        let mut position =
            Position::start(Board::STANDARD, Layout::standard(2).unwrap(), rules).unwrap();
        for _ in 0..2 {
            let mv = position.legal_moves()[0];
            position = position.play(mv).unwrap();
        }
        assert!(position.is_game_over());
        position
    }

    #[test]
    fn a_finished_game_gets_a_pass_never_a_panic() {
        let config = BotConfig::new(BotKind::Perfect).with_seed(3);
        let tables = Arc::new(Tablebases::default());
        let chosen = PerfectBot::new(config, tables).choose(&finished()).unwrap();
        assert_eq!(chosen.best_move, Move::Pass);
        assert!(chosen.principal_variation.is_empty());
        assert_eq!(
            new_bot(&config, None).search(&finished()).best_move,
            Move::Pass
        );
    }

    #[test]
    fn without_a_table_it_says_why_and_plays_nothing() {
        let start = Position::start(
            Board::STANDARD,
            Layout::standard(2).unwrap(),
            Rules::classic(),
        )
        .unwrap();
        let refused = PerfectBot::new(BotConfig::new(BotKind::Perfect), Arc::default())
            .choose(&start)
            .unwrap_err();
        assert_eq!(refused.code(), "no_tablebase");
    }

    #[test]
    fn two_sets_of_tables_are_independent() {
        let game = Game::new(7, 1).unwrap();
        let start = Position::start(
            game.board(),
            Layout::standard(2).unwrap(),
            Rules::sturtevant(),
        )
        .unwrap();
        let config = BotConfig::new(BotKind::Perfect).with_seed(5);
        let empty = Arc::new(Tablebases::default());
        let solved = Arc::new(Tablebases::default());
        // Made before the table is installed: it plays from it all the same.
        let mut player = PerfectBot::new(config, Arc::clone(&solved));
        let mut refuser = PerfectBot::new(config, Arc::clone(&empty));
        solved.install(Arc::new(Tablebase::build(&game, 1, &|_| {}).unwrap()));

        let refused = refuser.choose(&start).unwrap_err();
        assert_eq!(refused.code(), "no_tablebase");
        assert!(
            refused.to_string().contains("tables opened: none"),
            "{refused}"
        );
        assert!(PerfectBot::covers(&empty, &start).is_err());
        assert!(
            empty.list().is_empty(),
            "installing in one set filled the other"
        );

        let table = PerfectBot::covers(&solved, &start).unwrap();
        let played = player.choose(&start).unwrap();
        assert!(start.is_legal(played.best_move));
        assert_eq!(played.score, 1.0, "the start of 7x7 with 1 peg is won");
        let probe = table.probe(&start).unwrap();
        assert_eq!(Some(played.depth), probe.depth);
        // The factory's bot plays from the tables it is given.
        let from_factory = new_bot(&config, Some(&solved)).search(&start);
        assert_eq!(from_factory.best_move, played.best_move);
        assert_eq!(from_factory.depth, played.depth);
    }
}
