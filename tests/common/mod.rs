//! A reference for the rules of RULES §3–4 and §7, written from the
//! specification with the public API only (geometry, pegs, layout, rules),
//! for tests to compare the engine against: where a peg may go, when a set
//! is home, when the game is over, whose turn is next, and (under
//! `illegal_positions = sturtevant`) which positions are illegal.

// Each test crate that includes this module may use only a part of it.
#![allow(dead_code)]

use std::collections::VecDeque;

use sternhalma::{
    AntiSpoiling, Cell, CellSet, Direction, Finish, Finisher, Geometry, IllegalPositions, Move,
    PegSet, Position, Resting,
};

/// The single hop from `here` in `direction` over the pegs `others`: the
/// landing hole and whether it is empty. An ordinary hop goes over the
/// neighbour; a long jump over the first peg on the line, landing as far
/// beyond it with every hole between empty.
pub fn jump(
    geometry: &Geometry,
    long_jumps: bool,
    here: Cell,
    direction: Direction,
    others: CellSet,
) -> Option<(Cell, bool)> {
    let mut pivot = None;
    for (i, cell) in geometry.ray(here, direction).enumerate() {
        match pivot {
            None if others.contains(cell) => pivot = Some(i),
            None if !long_jumps => return None,
            None => {}
            Some(p) if i == 2 * p + 1 => return Some((cell, !others.contains(cell))),
            Some(_) if others.contains(cell) => return None,
            Some(_) => {}
        }
    }
    None
}

/// Shortest number of hops from `from` to each hole, by hole id (`None`
/// where no hop chain reaches, and at `from` itself, which counts as empty
/// during the chain).
pub fn hop_distances(position: &Position, from: Cell) -> [Option<u8>; Cell::MAX_HOLES] {
    let geometry = position.geometry();
    let long = position.rules().long_jumps;
    let others = position.occupied().without(from);
    let mut distance = [None; Cell::MAX_HOLES];
    let mut reached = CellSet::EMPTY.with(from);
    let mut queue = VecDeque::from([(from, 0u8)]);
    while let Some((here, hops)) = queue.pop_front() {
        for direction in Direction::ALL {
            if let Some((landing, true)) = jump(geometry, long, here, direction, others) {
                if !reached.contains(landing) {
                    reached.insert(landing);
                    distance[landing.id()] = Some(hops + 1);
                    queue.push_back((landing, hops + 1));
                }
            }
        }
    }
    distance
}

/// The pegs among `swappable` that the last hop of a chain from `from`
/// lands on (every earlier landing empty, the start hole counting as
/// empty), with the fewest hops that do it, by hole id: from the start
/// hole and from every hole a chain reaches, each of the six hops.
pub fn swap_distances(
    position: &Position,
    from: Cell,
    swappable: CellSet,
) -> (CellSet, [Option<u8>; Cell::MAX_HOLES]) {
    let geometry = position.geometry();
    let long = position.rules().long_jumps;
    let others = position.occupied().without(from);
    let distance = hop_distances(position, from);
    let mut found = CellSet::EMPTY;
    let mut fewest = [None; Cell::MAX_HOLES];
    for here in geometry.cells() {
        let hops = if here == from {
            0
        } else if let Some(hops) = distance[here.id()] {
            hops
        } else {
            continue;
        };
        for direction in Direction::ALL {
            if let Some((landing, false)) = jump(geometry, long, here, direction, others) {
                if swappable.contains(landing) {
                    found.insert(landing);
                    let best: &mut Option<u8> = &mut fewest[landing.id()];
                    *best = Some(best.map_or(hops + 1, |b| b.min(hops + 1)));
                }
            }
        }
    }
    (found, fewest)
}

/// The pegs `player`'s set `set` may swap with (RULES §4, `swap`): other
/// players' pegs, not neutral, in the set's target.
pub fn swappable(position: &Position, set: usize) -> CellSet {
    let layout = position.layout();
    let target = position
        .geometry()
        .triangle(layout.set_triangle(set).opposite());
    position
        .occupied()
        .difference(position.neutral())
        .difference(position.player_pegs(layout.set_owner(set)))
        .intersection(target)
}

/// Every hole a hop chain from `from` reaches.
pub fn hop_reach(position: &Position, from: Cell) -> CellSet {
    let distance = hop_distances(position, from);
    position
        .geometry()
        .cells()
        .filter(|cell| distance[cell.id()].is_some())
        .collect()
}

/// Holes where `player`'s moves may not end under resting = forbidden:
/// other players' start and target triangles, except the player's own
/// targets.
pub fn no_rest(position: &Position, player: usize) -> CellSet {
    if position.rules().rest_in_foreign_triangles == Resting::Allowed {
        return CellSet::EMPTY;
    }
    let geometry = position.geometry();
    let layout = position.layout();
    let mut own_targets = CellSet::EMPTY;
    let mut others = CellSet::EMPTY;
    for (set, start) in layout.triangles().enumerate() {
        if layout.set_owner(set) == player {
            own_targets = own_targets.union(geometry.triangle(start.opposite()));
        } else {
            others = others
                .union(geometry.triangle(start))
                .union(geometry.triangle(start.opposite()));
        }
    }
    others.difference(own_targets)
}

/// The moves `player` would have if it were their turn and the game on.
pub fn reference_moves(position: &Position, player: usize) -> Vec<Move> {
    let geometry = position.geometry();
    let rules = position.rules();
    let layout = position.layout();
    let occupied = position.occupied();
    let other_players = occupied
        .difference(position.neutral())
        .difference(position.player_pegs(player));
    let forbidden = no_rest(position, player);
    let mut moves = Vec::new();
    for (set, start) in layout.triangles().enumerate() {
        if layout.set_owner(set) != player {
            continue;
        }
        let target = geometry.triangle(start.opposite());
        for from in position.pegs(set) {
            let neighbours = geometry.neighbor_set(from);
            let ends = neighbours
                .difference(occupied)
                .union(hop_reach(position, from));
            let mut swaps = CellSet::EMPTY;
            if rules.anti_spoiling == AntiSpoiling::Swap {
                let swappable = target.intersection(other_players);
                swaps = neighbours
                    .intersection(swappable)
                    .union(swap_distances(position, from, swappable).0);
            }
            let mut allowed = geometry.all().difference(forbidden);
            if rules.target_lock && target.contains(from) {
                allowed = allowed.intersection(target);
            }
            for to in ends.union(swaps).intersection(allowed) {
                moves.push(if swaps.contains(to) {
                    Move::Swap { from, to }
                } else if neighbours.contains(to) {
                    Move::Step { from, to }
                } else {
                    Move::Hop { from, to }
                });
            }
        }
    }
    moves.sort_by_key(|m| (m.from(), m.to()));
    if rules.illegal_positions == IllegalPositions::Sturtevant {
        moves.retain(|&mv| !reference_illegal_after(position, player, mv));
    }
    moves
}

/// RULES §7, winning: every hole of the target `target` holds a peg (of
/// the pegs `occupied`), and at least one of them is the player's own
/// (`own`).
pub fn reference_won(target: CellSet, own: CellSet, occupied: CellSet) -> bool {
    target.is_subset(occupied) && !target.intersection(own).is_empty()
}

/// RULES §7, a blocked target: for a target triangle of six holes (three
/// rows), its tip (the row of one hole) and the four holes of its outer
/// edges: the row of two next to the tip, and the two ends of the row of
/// three. Found from the holes' rows and columns; `None` for other targets.
pub fn reference_blocking_holes(geometry: &Geometry, target: CellSet) -> Option<(Cell, CellSet)> {
    if target.len() != 6 {
        return None;
    }
    let mut rows: Vec<(i32, Vec<(i32, Cell)>)> = Vec::new();
    for cell in target {
        let (q, r) = geometry.coordinates(cell);
        match rows.iter_mut().find(|(row, _)| *row == r) {
            Some((_, holes)) => holes.push((q, cell)),
            None => rows.push((r, vec![(q, cell)])),
        }
    }
    let row_of = |len: usize| -> Vec<(i32, Cell)> {
        let mut row = rows
            .iter()
            .find(|(_, holes)| holes.len() == len)
            .expect("a triangle of six holes has rows of 1, 2 and 3")
            .1
            .clone();
        row.sort_unstable();
        row
    };
    let (tip, next, last) = (row_of(1)[0].1, row_of(2), row_of(3));
    let edges = [next[0].1, next[1].1, last[0].1, last[2].1]
        .into_iter()
        .collect();
    Some((tip, edges))
}

/// Whether the pegs `pegs` of two players heading for `targets` make an
/// illegal position with `to_move` to move (RULES §7): that player has
/// won, or a target of six holes is blocked (its tip empty and its four
/// edge holes held by the opponent of its owner).
pub fn reference_illegal(
    geometry: &Geometry,
    targets: [CellSet; 2],
    pegs: [CellSet; 2],
    to_move: usize,
) -> bool {
    let occupied = pegs[0].union(pegs[1]);
    if reference_won(targets[to_move], pegs[to_move], occupied) {
        return true;
    }
    (0..2).any(|owner| {
        reference_blocking_holes(geometry, targets[owner])
            .is_some_and(|(tip, edges)| !occupied.contains(tip) && edges.is_subset(pegs[1 - owner]))
    })
}

/// Whether `mv` by `player` (of two, one set each) leads to an illegal
/// position (RULES §7), the other player to move.
pub fn reference_illegal_after(position: &Position, player: usize, mv: Move) -> bool {
    let geometry = position.geometry();
    let layout = position.layout();
    let targets = [0, 1].map(|set| geometry.triangle(layout.set_triangle(set).opposite()));
    let mut pegs = [position.pegs(0), position.pegs(1)];
    if let Some((from, to)) = mv.from().zip(mv.to()) {
        pegs[player] = pegs[player].without(from).with(to);
        if matches!(mv, Move::Swap { .. }) {
            pegs[1 - player] = pegs[1 - player].without(to).with(from);
        }
    }
    reference_illegal(geometry, targets, pegs, 1 - player)
}

/// Whether a set is home (RULES §4).
pub fn reference_is_home(position: &Position, set: usize) -> bool {
    let layout = position.layout();
    let target = position
        .geometry()
        .triangle(layout.set_triangle(set).opposite());
    let player = layout.set_owner(set);
    let other_players = position
        .occupied()
        .difference(position.neutral())
        .difference(position.player_pegs(player));
    home(
        position.rules().anti_spoiling,
        target,
        position.pegs(set),
        position.occupied(),
        other_players,
    )
}

/// Whether a set with the pegs `own` is home in `target`, among all the
/// pegs `occupied`, of which `other_players` belong to other players.
fn home(
    anti_spoiling: AntiSpoiling,
    target: CellSet,
    own: CellSet,
    occupied: CellSet,
    other_players: CellSet,
) -> bool {
    let own = own.intersection(target);
    match anti_spoiling {
        AntiSpoiling::None | AntiSpoiling::Swap => own == target,
        AntiSpoiling::FillAvailable => {
            !own.is_empty()
                && target.is_subset(occupied)
                && target.difference(other_players).is_subset(own)
        }
    }
}

pub fn reference_player_home(position: &Position, player: usize) -> bool {
    let layout = position.layout();
    (0..layout.set_count())
        .filter(|&set| layout.set_owner(set) == player)
        .all(|set| reference_is_home(position, set))
}

/// Whether the game is over (RULES §3–4), for games that started with
/// player 0 to move at ply 0 (so rounds end at multiples of the players).
pub fn reference_is_over(position: &Position) -> bool {
    let players = position.layout().player_count();
    let finished = position.finishers().len();
    let ply = position.ply();
    let by_finish = finished > 0
        && match position.rules().finish {
            Finish::First => true,
            Finish::Round => finished == players || ply % players as u32 == 0,
            Finish::Ranking => finished >= players.saturating_sub(1).max(1),
        };
    // Without a move limit a game still ends at the last ply a u32 counts.
    let by_limit = ply >= position.rules().max_plies.unwrap_or(u32::MAX);
    let side = position.side_to_move();
    if position.rules().illegal_positions == IllegalPositions::Sturtevant {
        // RULES §7: the player to move without a move has lost.
        return by_finish || by_limit || reference_moves(position, side).is_empty();
    }
    let everyone_stuck = (0..players)
        .map(|i| (side + i) % players)
        .filter(|&p| !position.is_finished(p))
        .all(|p| reference_moves(position, p).is_empty());
    by_finish || by_limit || everyone_stuck
}

/// Whose turn it is after `mover` (finished players skipped under ranking).
pub fn reference_next_player(position: &Position, mover: usize) -> usize {
    let players = position.layout().player_count();
    if position.rules().finish == Finish::Ranking {
        (1..=players)
            .map(|i| (mover + i) % players)
            .find(|&p| !position.is_finished(p))
            .unwrap_or(mover)
    } else {
        (mover + 1) % players
    }
}

/// The position after `mv` by the player to move (RULES §3–4), built as a
/// plain [`Setup`] and validated: the peg goes from `from` to `to` (for a
/// swap the other peg from `to` to `from`), every player not yet finished
/// whose sets are now all home is recorded, the mover first, then in turn
/// order, and the turn passes on (finished players skipped under ranking).
pub fn reference_play(position: &Position, mv: Move) -> Position {
    let geometry = position.geometry();
    let mover = position.side_to_move();
    let mut setup = position.to_setup();
    setup.ply += 1;
    if let Some((from, to)) = mv.from().zip(mv.to()) {
        let swap = matches!(mv, Move::Swap { .. });
        for set in setup.players.iter_mut().flatten() {
            for peg in &mut set.pegs {
                if *peg == from.id() {
                    *peg = to.id();
                } else if *peg == to.id() {
                    assert!(swap, "{mv} ends on a peg but is not a swap");
                    *peg = from.id();
                }
            }
        }
    }
    let players = setup.players.len();
    let pegs_of = |sets: &[PegSet]| -> CellSet {
        sets.iter()
            .flat_map(|set| set.pegs.iter())
            .map(|&id| Cell::new(id).expect("a hole id"))
            .collect()
    };
    let neutral = position.neutral();
    let all_pegs = setup
        .players
        .iter()
        .fold(neutral, |all, sets| all.union(pegs_of(sets)));
    for player in (0..players).map(|i| (mover + i) % players) {
        if setup.finished.iter().any(|f| f.player == player) {
            continue;
        }
        let sets = &setup.players[player];
        let other_players = all_pegs.difference(neutral).difference(pegs_of(sets));
        let finished = sets.iter().all(|set| {
            home(
                setup.rules.anti_spoiling,
                geometry.triangle(set.triangle.opposite()),
                pegs_of(std::slice::from_ref(set)),
                all_pegs,
                other_players,
            )
        });
        if finished {
            setup.finished.push(Finisher {
                player,
                ply: setup.ply,
            });
        }
    }
    setup.side_to_move = if setup.rules.finish == Finish::Ranking {
        (1..=players)
            .map(|i| (mover + i) % players)
            .find(|&p| !setup.finished.iter().any(|f| f.player == p))
            .unwrap_or(mover)
    } else {
        (mover + 1) % players
    };
    setup
        .validate()
        .unwrap_or_else(|e| panic!("{mv} from {position}: {setup}: {e}"))
}

/// Perft by the reference alone: [`reference_moves`] (or a pass when
/// there is none and the game goes on) and [`reference_play`], for games
/// that started with player 0 to move at ply 0.
pub fn reference_perft(position: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if reference_is_over(position) {
        return 0;
    }
    let side = position.side_to_move();
    let must_pass = position.rules().finish == Finish::Round && position.is_finished(side);
    let mut moves = if must_pass {
        Vec::new()
    } else {
        reference_moves(position, side)
    };
    if moves.is_empty() {
        moves.push(Move::Pass);
    }
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .into_iter()
        .map(|mv| reference_perft(&reference_play(position, mv), depth - 1))
        .sum()
}
