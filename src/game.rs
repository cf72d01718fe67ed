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
///   ([`Preset::default_board`](crate::Preset::default_board): `rhombus9x4`
///   for `research`, `star4` otherwise), however the rules were spelled;
/// - layout: two players ([`NewGame::DEFAULT_PLAYERS`]);
/// - first player: 0, the layout's first.
///
/// ```
/// use sternhalma::{NewGame, Rules};
/// let standard = NewGame::default().start()?;
/// assert_eq!(standard.to_string(), "star4 classic south:111-120/north:0-9 0 0 -");
/// let research = NewGame { rules: Some(Rules::research()), ..NewGame::default() }.start()?;
/// assert_eq!(research.board().to_string(), "rhombus9x4");
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
