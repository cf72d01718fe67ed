//! The strong solver (`sternhalma::solve`) against a second, deliberately
//! simple solver, state by state: 7×7 with 1 and 2 pegs and 4×4 with 6.
//!
//! The simple solver knows nothing of the strong one: no ranking, no
//! folding by symmetry, no bit tricks. It builds every position of the
//! game through the ordinary API (`Setup::validate`, so the rules of
//! RULES §7 come from the position's own checks), keys them in a hash map,
//! lists each one's successors with `legal_moves` and `play`, and runs
//! plain synchronous value iteration: in round `d` a position is a win if
//! a successor was proven lost before round `d`, a loss if every successor
//! was proven won before it; round 0 holds the positions that are over
//! (`Position::outcome`, which also says who wins when the side to move
//! has no move). The round a position is proven in is its depth to the
//! end. Both values and depths must equal the strong solver's.

use std::collections::HashMap;

use sternhalma::solve::{Game, Value, check_position, solve, solve_depths, value_of};
use sternhalma::{Board, Finisher, Layout, Position, Rules, Setup, SetupProblem};

/// A position's key: side to move, south's pegs, north's pegs, as id sets.
type Key = (usize, u64, u64);

fn bits(ids: &[usize]) -> u64 {
    ids.iter().fold(0, |b, &i| b | 1 << i)
}

fn subsets(items: &[usize], k: usize) -> Vec<Vec<usize>> {
    if k == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        for mut rest in subsets(&items[i + 1..], k - 1) {
            rest.insert(0, first);
            all.push(rest);
        }
    }
    all
}

/// Every position: `Some` the position, or `None` where the rules refuse
/// it (illegal).
fn every_position(board: Board) -> Vec<(Key, Option<Position>)> {
    let holes: Vec<usize> = (0..board.geometry().len()).collect();
    let pegs = board.pegs_per_set();
    let mut all = Vec::new();
    for south in subsets(&holes, pegs) {
        let rest: Vec<usize> = holes
            .iter()
            .copied()
            .filter(|h| !south.contains(h))
            .collect();
        for north in subsets(&rest, pegs) {
            for side in 0..2 {
                let mut setup =
                    Setup::start(board, Layout::standard(2).unwrap(), Rules::sturtevant());
                setup.players[0][0].pegs = south.clone();
                setup.players[1][0].pegs = north.clone();
                setup.side_to_move = side;
                setup.ply = 10;
                let position = match setup.validate() {
                    Ok(position) => Some(position),
                    // The player who just moved has won: a finished game.
                    Err(e)
                        if e.problems()
                            == [SetupProblem::HomeButNotFinished { player: 1 - side }] =>
                    {
                        setup.finished = vec![Finisher {
                            player: 1 - side,
                            ply: 10,
                        }];
                        Some(setup.validate().unwrap())
                    }
                    Err(_) => None,
                };
                all.push(((side, bits(&south), bits(&north)), position));
            }
        }
    }
    all
}

fn key_of(position: &Position) -> Key {
    (
        position.side_to_move(),
        position
            .player_pegs(0)
            .iter()
            .fold(0, |b, c| b | 1 << c.id()),
        position
            .player_pegs(1)
            .iter()
            .fold(0, |b, c| b | 1 << c.id()),
    )
}

/// The simple solver: each position's depth to the end (`None`: a draw),
/// or `Err(())` for an illegal position.
fn simple_solve(board: Board) -> HashMap<Key, Result<Option<u32>, ()>> {
    let positions = every_position(board);
    let index: HashMap<Key, usize> = positions
        .iter()
        .enumerate()
        .map(|(i, (key, _))| (*key, i))
        .collect();
    let successors: Vec<Vec<usize>> = positions
        .iter()
        .map(|(_, position)| match position {
            Some(p) if !p.is_game_over() => p
                .legal_moves()
                .into_iter()
                .map(|m| index[&key_of(&p.play(m).unwrap())])
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    // Proven depth: even a loss for the side to move, odd a win.
    let mut depth: Vec<Option<u32>> = positions
        .iter()
        .map(|(_, position)| match position {
            Some(p) if p.is_game_over() => {
                let winner = p.outcome().winners();
                assert_eq!(winner, [1 - p.side_to_move()], "the side to move lost");
                Some(0)
            }
            _ => None,
        })
        .collect();
    let mut round = 0;
    loop {
        round += 1;
        let before = depth.clone();
        let mut changed = false;
        for (i, (_, position)) in positions.iter().enumerate() {
            if position.is_none() || before[i].is_some() {
                continue;
            }
            let known = |s: &usize| before[*s];
            let won = successors[i]
                .iter()
                .any(|s| known(s).is_some_and(|d| d % 2 == 0));
            let lost = successors[i]
                .iter()
                .all(|s| known(s).is_some_and(|d| d % 2 == 1));
            if won || lost {
                depth[i] = Some(round);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    positions
        .iter()
        .enumerate()
        .map(|(i, (key, position))| (*key, position.as_ref().map(|_| depth[i]).ok_or(())))
        .collect()
}

fn compare(side: u8, pegs: u8) {
    let game = Game::new(side, pegs).unwrap();
    let simple = simple_solve(game.board());
    let (table, _) = solve(&game, 2);
    let depths = solve_depths(&game, &table, 2, &|_, _| {}).unwrap();
    let r = game.ranking();
    assert_eq!(simple.len() as u64, game.positions());
    let mut seen = [0u64; 4];
    for (&(side_to_move, south, north), expected) in &simple {
        // South to move is the table's own side; north to move is folded
        // onto it by the 180° rotation and the colour swap.
        let index = if side_to_move == 0 {
            r.index(south, north)
        } else {
            r.index(r.rotate(north), r.rotate(south))
        };
        let (value, depth) = match expected {
            Err(()) => (Value::Illegal, None),
            Ok(None) => (Value::Draw, None),
            Ok(Some(d)) if d % 2 == 0 => (Value::Loss, Some(*d)),
            Ok(Some(d)) => (Value::Win, Some(*d)),
        };
        let key = (side_to_move, south, north);
        assert_eq!(table.get(index), value, "{key:?} of {game}");
        let strong_depth = depths.get(index);
        assert_eq!(value_of(strong_depth), value, "{key:?} of {game}");
        if let Some(d) = depth {
            assert_eq!(u32::from(strong_depth), d, "depth of {key:?} of {game}");
        }
        seen[value as usize] += 1;
    }
    // Every kind of value met where the game has it (no draws on 7x7 with
    // 1 or 2 pegs), so the comparison covers them.
    assert!(seen[Value::Win as usize] > 0 && seen[Value::Loss as usize] > 0);
    assert!(seen[Value::Illegal as usize] > 0);
    let (mover, other) = game.start();
    assert_eq!(table.get(r.index(mover, other)), Value::Win, "{game}");
    // Every entry is consistent with its successors' values and depths,
    // the twins of the mirror's symmetric blocks (marked illegal, held by
    // no position, so not met above) included; and the counts weigh each
    // entry by the positions it holds.
    for index in 0..r.states() {
        check_position(&game, &table, Some(&depths), index).unwrap();
    }
    // Each position with south to move has its twin with north to move.
    let counts = game.counts(&table);
    let of = |value: Value| {
        let n = seen[value as usize];
        assert_eq!(n % 2, 0, "{value} of {game}");
        n / 2
    };
    assert_eq!(
        [counts.wins, counts.losses, counts.draws, counts.illegal],
        [
            of(Value::Win),
            of(Value::Loss),
            of(Value::Draw),
            of(Value::Illegal)
        ],
        "{game}"
    );
}

#[test]
fn seven_by_seven_with_one_peg_state_by_state() {
    compare(7, 1);
}

#[test]
fn seven_by_seven_with_two_pegs_state_by_state() {
    compare(7, 2);
}

#[test]
fn four_by_four_with_six_pegs_state_by_state() {
    compare(4, 6);
}

/// A table file an older engine wrote (format 1: no mirror) is solved
/// again and replaced when opened with `open_or_build`, while one from a
/// newer engine is refused, not overwritten.
#[test]
fn an_outdated_table_file_is_solved_again_and_a_newer_one_refused() {
    use sternhalma::solve::{Tablebase, file};
    let folder = std::env::temp_dir().join(format!("sternhalma-outdated-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let game = Game::new(7, 1).unwrap();
    let built = Tablebase::open_or_build(&folder, &game, 1, &|_| {}).unwrap();
    let path = built.source().unwrap().to_owned();
    let good = std::fs::read(&path).unwrap();
    let header = String::from_utf8_lossy(&good[..file::HEADER_BYTES]).into_owned();
    let with_format = |format: u32| {
        let text = header.replace(
            &format!("format: {}\n", file::FORMAT_VERSION),
            &format!("format: {format}\n"),
        );
        assert_ne!(text, header);
        let mut bytes = text.into_bytes();
        bytes.extend_from_slice(&good[file::HEADER_BYTES..]);
        bytes
    };
    std::fs::write(&path, with_format(file::FORMAT_VERSION - 1)).unwrap();
    assert!(file::is_outdated(&path));
    let e = Tablebase::open(&path).err().unwrap().to_string();
    assert!(e.contains("older engine"), "{e}");
    let again = Tablebase::open_or_build(&folder, &game, 1, &|_| {}).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), good);
    assert_eq!(again.counts(), built.counts());
    std::fs::write(&path, with_format(file::FORMAT_VERSION + 1)).unwrap();
    assert!(!file::is_outdated(&path));
    let e = Tablebase::open_or_build(&folder, &game, 1, &|_| {})
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("newer engine"), "{e}");
    assert_ne!(std::fs::read(&path).unwrap(), good);
    std::fs::remove_dir_all(&folder).unwrap();
}

#[test]
fn table_one_of_the_paper_for_one_and_two_pegs_and_the_illegal_count_for_six() {
    for (side, pegs) in [(7, 1), (7, 2), (4, 6)] {
        let game = Game::new(side, pegs).unwrap();
        let (table, _) = solve(&game, 2);
        let ours = game.counts(&table).published();
        let paper = sternhalma::solve::published(side, pegs).unwrap();
        if pegs == 6 {
            // RULES §7: the 6-peg counts are not reproduced by the rules as
            // published; the positions and illegal ones are.
            assert_eq!([ours[0], ours[3]], [paper[0], paper[3]], "{game}");
            assert_eq!(
                Some(ours),
                sternhalma::solve::reproduced(side, pegs),
                "{game}"
            );
        } else {
            assert_eq!(ours, paper, "{game}");
        }
    }
}

/// The fixed point, hence the table, does not depend on the threads'
/// timing, with the mirror folded too (4×4 with 6 pegs folds it).
#[test]
fn a_mirrored_table_is_the_same_bytes_from_one_thread_or_two() {
    let game = Game::new(4, 6).unwrap();
    assert!(game.ranking().folds_mirror());
    assert!(!Game::new(7, 2).unwrap().ranking().folds_mirror());
    let (one, _) = solve(&game, 1);
    let (two, _) = solve(&game, 2);
    assert!(one.words().eq(two.words()), "the tables differ");
    // The mirror fixes the 4 holes on the axis through both tips and swaps
    // 6 pairs: 6 + 90 + 20 = 116 six-peg sets are their own image, so
    // (C(16, 6) + 116) / 2 = 4,062 blocks of C(10, 6) = 210 entries.
    assert_eq!(one.len(), 4_062 * 210);
}

/// A values file's table is lent as read, not copied (a checkpoint of 7×7
/// with 4 pegs is 3.7 GiB); a depths file's values are derived, and both
/// forms hold the solved values.
#[test]
fn a_values_file_lends_its_table_and_a_depths_file_derives_it() {
    use std::borrow::Cow;
    use sternhalma::solve::{Tablebase, file};
    let folder = std::env::temp_dir().join(format!("sternhalma-loaded-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let game = Game::new(7, 1).unwrap();
    let (table, _) = solve(&game, 1);
    let values = folder.join("values");
    std::fs::create_dir_all(&folder).unwrap();
    file::write_values(&values, &game, &table, 0, true).unwrap();
    let built = Tablebase::open_or_build(&folder, &game, 1, &|_| {}).unwrap();
    let depths = built.source().unwrap().to_owned();
    let expected: Vec<u64> = table.words().collect();
    for (path, lent) in [(&values, true), (&depths, false)] {
        let (_, _, loaded) = file::read(path).unwrap();
        let words: Vec<u64> = match loaded.values() {
            Cow::Borrowed(t) if lent => t.words().collect(),
            Cow::Owned(t) if !lent => t.words().collect(),
            other => panic!(
                "{}: lent {}",
                path.display(),
                matches!(other, Cow::Borrowed(_))
            ),
        };
        assert_eq!(words, expected, "{}", path.display());
        let owned: Vec<u64> = loaded.into_values().words().collect();
        assert_eq!(owned, expected, "{}", path.display());
    }
    std::fs::remove_dir_all(&folder).unwrap();
}

/// A table's counts are scanned for once, on first use or when it is
/// installed, and are those of a fresh count of its values: with depths
/// (7×7 with 1 peg) and without, with the mirror folded (4×4 with 6 pegs)
/// and not. The tables are this test's own.
#[test]
fn a_tables_counts_are_scanned_for_once_and_equal_a_fresh_count() {
    use std::sync::Arc;
    use sternhalma::solve::{Tablebase, Tablebases};
    for (side, pegs) in [(7, 1), (4, 6)] {
        let game = Game::new(side, pegs).unwrap();
        let (values, _) = solve(&game, 1);
        let fresh = game.counts(&values);
        let depths = solve_depths(&game, &values, 1, &|_, _| {}).unwrap();
        let with_depths = Tablebase::from_solved(game.clone(), values.clone(), Some(depths));
        let without = Tablebase::from_solved(game.clone(), values, None);
        for table in [with_depths, without] {
            let what = format!("{game}, depths {}", table.has_depths());
            assert_eq!(table.count_scans(), 0, "{what}");
            for _ in 0..100 {
                assert_eq!(table.counts(), fresh, "{what}");
            }
            assert_eq!(table.count_scans(), 1, "{what}");
        }
        // Installing counts the table, once; a listing then asks again for
        // free.
        let tables = Tablebases::default();
        let table = Arc::new(Tablebase::build(&game, 1, &|_| {}).unwrap());
        assert_eq!(table.count_scans(), 0, "{game}");
        tables.install(Arc::clone(&table));
        assert_eq!(table.count_scans(), 1, "{game}");
        for listed in tables.list().iter().chain(tables.list().iter()) {
            assert_eq!(listed.counts(), fresh, "{game}");
        }
        assert_eq!(table.count_scans(), 1, "{game}");
    }
}

/// The position text of `south`'s and `north`'s pegs with `side` to move
/// at ply 10, with `finished` as the notation's field.
fn text(board: Board, south: &[usize], north: &[usize], side: usize, finished: &str) -> String {
    let list = |holes: &[usize]| {
        holes
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        "{board} sturtevant south:{}/north:{} {side} 10 {finished}",
        list(south),
        list(north)
    )
}

/// Random positions of every small solved board, read from text as a
/// client writes them (the finished field left out, or naming either
/// player): whenever the text is read, the table's probe and the
/// position's own outcome agree. A game over is a loss in 0 for the side
/// to move and a win of the other; a game going on has a move, and its
/// probe is its best move's.
#[test]
fn the_probe_and_the_outcome_agree_on_random_positions_of_every_small_solved_board() {
    use sternhalma::search::Rng;
    use sternhalma::solve::Tablebase;

    for (side, pegs) in [(7, 1), (7, 2), (4, 6)] {
        let game = Game::new(side, pegs).unwrap();
        let board = game.board();
        let table = Tablebase::build(&game, 2, &|_| {}).unwrap();
        let holes = board.geometry().len();
        let pegs = usize::from(pegs);
        let mut rng = Rng::new(u64::from(side) * 100 + pegs as u64);
        let (mut read, mut over, mut finished_named, mut implied) = (0, 0, 0, 0);
        for _ in 0..20_000 {
            // Distinct holes: the first `pegs` south's, the next north's.
            let mut all: Vec<usize> = (0..holes).collect();
            for i in 0..2 * pegs {
                let j = i + rng.below(holes - i);
                all.swap(i, j);
            }
            let (south, north) = (&all[..pegs], &all[pegs..2 * pegs]);
            let to_move = rng.below(2);
            let finished = match rng.below(4) {
                0 => "0@10".to_owned(),
                1 => "1@10".to_owned(),
                _ => "-".to_owned(),
            };
            let text = text(board, south, north, to_move, &finished);
            let Ok(position) = text.parse::<Position>() else {
                continue;
            };
            read += 1;
            finished_named += usize::from(finished != "-");
            // A finish the board shows and the text leaves out is read.
            implied += usize::from(finished == "-" && position.to_string().ends_with("@10"));
            let probe = table.probe(&position).unwrap();
            let moves = table.moves(&position).unwrap();
            if position.is_game_over() {
                over += 1;
                assert_eq!(probe.to_string(), "loss in 0", "{text}");
                assert_eq!(
                    position.outcome(),
                    sternhalma::Outcome::Won {
                        winner: 1 - to_move
                    },
                    "{text}"
                );
                assert!(
                    moves.is_empty() && position.legal_moves().is_empty(),
                    "{text}"
                );
            } else {
                assert_eq!(
                    position.outcome(),
                    sternhalma::Outcome::InProgress,
                    "{text}"
                );
                assert_ne!(probe.depth, Some(0), "{text}");
                assert_eq!(moves[0].probe(), probe, "{text}");
                assert_eq!(moves.len(), position.legal_moves().len(), "{text}");
            }
        }
        // The sample reaches every kind of answer.
        assert!(
            read > 1_000 && over > 10 && finished_named > 10 && implied > 10,
            "{board}: {read} read, {over} over, {finished_named} naming a finisher, {implied} finished by the board alone"
        );
    }
}

/// A packed table (issue 50, item 2) reads every entry as the table it
/// was packed from: whole (unpacked) and entry by entry (random access),
/// in chunks of several sizes (1: every entry a chunk; 7: chunks that end
/// anywhere in a block; the default), on the solved small boards (the
/// mirror folded and not, draws and none); then through a file, as a
/// tablebase probes it, and a damaged file is refused.
#[test]
fn a_packed_table_reads_every_entry_as_the_table_it_was_packed_from() {
    use sternhalma::solve::{PackedTable, Tablebase, file, packed::CHUNK_ENTRIES};
    for (side, pegs) in [(7, 1), (7, 2), (4, 6), (5, 1), (4, 3)] {
        let game = Game::new(side, pegs).unwrap();
        let (table, _) = solve(&game, 2);
        for chunk in [1, 7, CHUNK_ENTRIES] {
            let packed = PackedTable::pack(&game, &table, chunk, 2, &|_, _| {});
            let what = format!("{game}, chunks of {chunk}");
            let unpacked = packed.check(2).unwrap();
            assert!(unpacked.words().eq(table.words()), "{what}: unpacked");
            // The same bytes whatever the threads.
            let bytes = packed.to_bytes();
            for threads in [1, 3] {
                let again = PackedTable::pack(&game, &table, chunk, threads, &|_, _| {});
                assert!(again.to_bytes() == bytes, "{what}: {threads} threads");
            }
            // Every entry read on its own (a sample of the larger tables
            // in large chunks: each read decodes up to a chunk).
            let step = if chunk > 64 && table.len() > 100_000 {
                97
            } else {
                1
            };
            for index in (0..table.len()).step_by(step) {
                assert_eq!(packed.get(index), table.get(index), "{what}: entry {index}");
            }
            // Many at once, out of order and repeated: each chunk decoded
            // once for all its entries.
            let many: Vec<u64> = (0..table.len())
                .rev()
                .step_by(3)
                .chain((0..table.len()).step_by(5))
                .collect();
            let values = packed.get_many(&many);
            for (&index, &value) in many.iter().zip(&values) {
                assert_eq!(value, table.get(index), "{what}: entry {index} of many");
            }
            let again = PackedTable::from_bytes(&game, &bytes).unwrap();
            assert!(
                again.unpack(1).words().eq(table.words()),
                "{what}: read back"
            );
        }
    }
    // Through a file: a tablebase probes it as it probes the values.
    let folder = std::env::temp_dir().join(format!("sternhalma-packed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let game = Game::new(7, 2).unwrap();
    let (table, _) = solve(&game, 2);
    let packed = PackedTable::pack(&game, &table, CHUNK_ENTRIES, 2, &|_, _| {});
    let path = sternhalma::solve::tablebase::packed_path(&folder, &game);
    file::write_packed(&path, &packed).unwrap();
    let opened = Tablebase::open(&path).unwrap();
    let plain = Tablebase::from_solved(game.clone(), table.clone(), None);
    assert!(!opened.has_depths());
    assert_eq!(opened.counts(), plain.counts());
    // On disk, smaller than the 2-bit values even on this small board,
    // models included (in memory the models outweigh their gain here;
    // BENCHMARKS.md has the large boards).
    let on_disk = std::fs::metadata(&path).unwrap().len();
    assert!(on_disk < plain.bytes(), "{on_disk} bytes");
    for index in (0..table.len()).step_by(101) {
        assert_eq!(
            opened.probe_index(index).unwrap(),
            plain.probe_index(index).unwrap()
        );
    }
    let every: Vec<u64> = (0..table.len()).collect();
    assert_eq!(
        opened.probe_indices(&every).unwrap(),
        plain.probe_indices(&every).unwrap()
    );
    let past = opened.probe_indices(&[0, table.len()]).unwrap_err();
    assert_eq!(past.code(), "tablebase_not_a_position");
    let (mover, other) = game.start();
    let start = Position::start(
        game.board(),
        Layout::standard(2).unwrap(),
        Rules::sturtevant(),
    )
    .unwrap();
    assert_eq!(opened.moves(&start).unwrap(), plain.moves(&start).unwrap());
    assert_eq!(
        opened
            .probe_index(game.ranking().index(mover, other))
            .unwrap()
            .value,
        Value::Win
    );
    // Cut short: refused for its size.
    let whole = std::fs::read(&path).unwrap();
    std::fs::write(&path, &whole[..whole.len() - 100]).unwrap();
    let refused = Tablebase::open(&path).unwrap_err().to_string();
    assert!(refused.contains("the body holds"), "{refused}");
    // A byte of the body changed: refused by its checksum.
    let mut bytes = whole.clone();
    let last = bytes.len() - 3;
    bytes[last] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let refused = Tablebase::open(&path).unwrap_err().to_string();
    assert!(refused.contains("checksum"), "{refused}");
    std::fs::remove_dir_all(&folder).unwrap();
}

/// A packed body altered anywhere (as a crafted file with its checksum
/// made again would be) is refused, or reads without a panic: every
/// entry decodes to some value, and a whole decoding finds the counts
/// wrong where the values are.
#[test]
fn a_packed_body_altered_anywhere_is_refused_or_read_without_a_panic() {
    use sternhalma::solve::PackedTable;
    let game = Game::new(4, 6).unwrap();
    let (table, _) = solve(&game, 2);
    let body = PackedTable::pack(&game, &table, 64, 2, &|_, _| {}).to_bytes();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut refused, mut read, mut caught) = (0, 0, 0);
    for trial in 0..300 {
        let mut bad = body.clone();
        // The header part (chunk size, counts, model 1's runs), then
        // anywhere.
        let at = if trial % 2 == 0 {
            (random() % 600) as usize
        } else {
            (random() % bad.len() as u64) as usize
        };
        bad[at] ^= 1 << (random() % 8);
        if trial % 7 == 0 {
            bad.truncate(bad.len() - 1 - (random() % 50) as usize);
        }
        match PackedTable::from_bytes(&game, &bad) {
            Err(_) => refused += 1,
            Ok(packed) => {
                read += 1;
                for index in (0..table.len()).step_by(13) {
                    let _ = packed.get(index);
                }
                if packed.check(1).is_err() {
                    caught += 1;
                }
            }
        }
    }
    assert!(refused > 0 && read > 0, "{refused} refused, {read} read");
    assert!(caught > 0, "no altered body found wrong by its counts");
}
