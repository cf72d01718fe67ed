//! A new game: the defaults every surface shares.

use crate::board::Board;
use crate::layout::Layout;
use crate::position::Position;
use crate::rules::Rules;
use crate::setup::{Setup, SetupError};

/// What a new game is made of, each part optional; [`NewGame::start`] fills
/// in the defaults, the same for the HTTP API, the Python module and stored
/// matches:
/// - rules: `classic`;
/// - board: the board of the preset the rules print as
///   ([`Preset::default_board`](crate::Preset::default_board): `rhombus9p10`
///   for `research`, `star4` otherwise), however the rules were spelled;
/// - layout: two players ([`NewGame::DEFAULT_PLAYERS`]);
/// - first player: 0, the layout's first.
///
/// ```
/// use sternhalma::{NewGame, Rules};
/// let standard = NewGame::default().start()?;
/// assert_eq!(standard.to_string(), "star4 classic south:111-120/north:0-9 0 0 -");
/// let research = NewGame { rules: Some(Rules::research()), ..NewGame::default() }.start()?;
/// assert_eq!(research.board().to_string(), "rhombus9p10");
/// # Ok::<(), sternhalma::SetupError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NewGame {
    /// The board.
    pub board: Option<Board>,
    /// The players and their sets.
    pub layout: Option<Layout>,
    /// The rules.
    pub rules: Option<Rules>,
    /// Who moves first (0-based).
    pub first_player: Option<usize>,
}

impl NewGame {
    /// The number of players when no layout is given.
    pub const DEFAULT_PLAYERS: usize = 2;

    /// Turns per player in the move limit of a game played by programs
    /// (stored matches, tournaments, and by default the Python module's
    /// open_spiel game and PettingZoo environment, through
    /// `Position.program_move_limit()`) whose rules set none: without one, a
    /// peg parked in an opponent's target under `classic` can block a game
    /// forever, and random play never ends (`docs/rules.md`).
    pub const PROGRAM_TURNS_PER_PLAYER: u32 = 200;

    /// The move limit for a game played by programs: the rules' own, or
    /// else [`NewGame::PROGRAM_TURNS_PER_PLAYER`] turns for each player.
    ///
    /// ```
    /// use sternhalma::{NewGame, Rules};
    /// assert_eq!(NewGame::default().program_move_limit(), Some(400));
    /// let research = NewGame { rules: Some(Rules::research()), ..NewGame::default() };
    /// assert_eq!(research.program_move_limit(), Some(200));
    /// ```
    #[must_use]
    pub fn program_move_limit(&self) -> Option<u32> {
        let setup = self.setup();
        setup.rules.max_plies.or_else(|| {
            let players = u32::try_from(setup.players.len()).unwrap_or(u32::MAX);
            Some(NewGame::PROGRAM_TURNS_PER_PLAYER.saturating_mul(players))
        })
    }

    /// The move limit of a game programs play when a request asks for
    /// `requested`: `Some(limit)` as asked (`Some(None)`: no limit), or,
    /// when it asks nothing, [`NewGame::program_move_limit`].
    ///
    /// ```
    /// use sternhalma::NewGame;
    /// let game = NewGame::default();
    /// assert_eq!(game.requested_move_limit(None), Some(400));
    /// assert_eq!(game.requested_move_limit(Some(Some(60))), Some(60));
    /// assert_eq!(game.requested_move_limit(Some(None)), None);
    /// ```
    #[must_use]
    pub fn requested_move_limit(&self, requested: Option<Option<u32>>) -> Option<u32> {
        requested.unwrap_or_else(|| self.program_move_limit())
    }

    /// The game with the rules' move limit set to `max_plies` (`None`: no
    /// limit). The board is fixed first, so a new limit never changes the
    /// default board (which follows the preset the rules print as).
    #[must_use]
    pub fn with_max_plies(mut self, max_plies: Option<u32>) -> NewGame {
        let setup = self.setup();
        self.board = Some(setup.board);
        self.rules = Some(Rules {
            max_plies,
            ..setup.rules
        });
        self
    }

    /// The unchecked start this describes, defaults filled in.
    #[must_use]
    pub fn setup(&self) -> Setup {
        let rules = self.rules.unwrap_or_else(Rules::classic);
        let board = self
            .board
            .unwrap_or_else(|| rules.nearest_preset().default_board());
        let layout = self.layout.unwrap_or_else(|| {
            Layout::standard(NewGame::DEFAULT_PLAYERS).expect("two players is a standard layout")
        });
        let mut setup = Setup::start(board, layout, rules);
        setup.side_to_move = self.first_player.unwrap_or(0);
        setup
    }

    /// The start position.
    ///
    /// # Errors
    /// A layout the board cannot hold, or a first player who does not exist.
    pub fn start(&self) -> Result<Position, SetupError> {
        self.setup().validate()
    }
}
