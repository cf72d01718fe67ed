//! `sternhalma tablebase probe` and `sternhalma tablebase export`, run as a
//! researcher runs them: the real binary on table files in a real folder,
//! its answers checked against the core's probe of each position.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use sternhalma::Position;
use sternhalma::search::Rng;
use sternhalma::solve::{Game, Tablebase, Value, published, reproduced};

fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sternhalma"))
}

fn folder(name: &str) -> PathBuf {
    let dir = sternhalma_store::db::scratch_root()
        .join(format!("sternhalma-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The table of `side`×`side` with `pegs` pegs, solved into `dir` as
/// `solve-game` writes it; the table and its file.
fn table(dir: &Path, side: u8, pegs: u8) -> (Tablebase, PathBuf) {
    let game = Game::new(side, pegs).unwrap();
    let table = Tablebase::open_or_build(dir, &game, 2, &|_| {}).unwrap();
    let path = table.source().unwrap().to_owned();
    (table, path)
}

/// `sternhalma tablebase probe FILE` with `input` on standard input.
fn probe_stdin(path: &Path, input: &str, extra: &[&str]) -> Output {
    probe_bytes(path, input.as_bytes(), extra)
}

/// `sternhalma tablebase probe FILE` with `input` on standard input.
fn probe_bytes(path: &Path, input: &[u8], extra: &[&str]) -> Output {
    let mut child = binary()
        .args(["tablebase", "probe", path.to_str().unwrap()])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    // Written from another thread: the answers fill the pipe meanwhile.
    // A command that stops early (no table) leaves it unread.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

/// Positions of `game` reached by seeded random play, ends included.
fn sample(game: &Game, count: usize, seed: u64) -> Vec<Position> {
    let start = Position::start(
        game.board(),
        sternhalma::Layout::standard(2).unwrap(),
        sternhalma::Rules::sturtevant(),
    )
    .unwrap();
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut position = start.clone();
        for _ in 0..rng.below(60) {
            let moves = position.legal_moves();
            if moves.is_empty() {
                break;
            }
            position = position.play(moves[rng.below(moves.len())]).unwrap();
        }
        out.push(position);
    }
    out
}

/// The holes of `set` joined by `separator`.
fn holes(set: u64, separator: &str) -> String {
    (0..64)
        .filter(|i| set & (1 << i) != 0)
        .map(|i: u32| i.to_string())
        .collect::<Vec<_>>()
        .join(separator)
}

/// The placement text of a position of the solved game (`47,48/0,1 0`).
fn placement(position: &Position) -> String {
    let south = position
        .pegs_of_triangle(sternhalma::Triangle::South)
        .unwrap();
    let north = position
        .pegs_of_triangle(sternhalma::Triangle::North)
        .unwrap();
    let bits =
        |cells: sternhalma::CellSet| cells.iter().fold(0u64, |set, cell| set | 1 << cell.id());
    format!(
        "{}/{} {}",
        holes(bits(south), ","),
        holes(bits(north), ","),
        position.side_to_move()
    )
}

/// What the core says of `position`: its probe, and its best move (the
/// first of `moves`).
fn expected(table: &Tablebase, position: &Position) -> String {
    let probe = table.probe(position).unwrap();
    match table.moves(position).unwrap().first() {
        Some(best) => format!("{probe} {}", best.mv),
        None => probe.to_string(),
    }
}

/// What the core says of the entry of `position`'s index: the entry
/// stands for the position with south to move, so the same value, and
/// with north to move the move rotated.
fn expected_by_index(table: &Tablebase, position: &Position) -> String {
    let index = table.index(position).unwrap();
    let canonical = table.position_of(&table.placement(index).unwrap()).unwrap();
    if position.side_to_move() == 0 {
        assert_eq!(placement(&canonical), placement(position));
    }
    expected(table, &canonical)
}

#[test]
fn probe_answers_as_the_core_probes_from_arguments_and_standard_input() {
    let dir = folder("probe-7p2");
    let (table, path) = table(&dir, 7, 2);
    let mut positions = sample(table.game(), 300, 50);
    // Games over: the ends of best lines.
    for start in positions.clone().iter().step_by(30) {
        positions.push(table.mainline(start).unwrap().positions.pop().unwrap());
    }
    let over = positions.iter().filter(|p| p.is_game_over()).count();
    assert!(over > 0 && over < positions.len(), "{over}");

    // Arguments: a position string, a placement, an index; one line each.
    let start = &positions[0];
    let index = table.index(start).unwrap();
    let output = binary()
        .args(["tablebase", "probe", path.to_str().unwrap()])
        .arg(start.to_string())
        .arg(placement(start))
        .arg(index.to_string())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let want = expected(&table, start);
    let by_index = expected_by_index(&table, start);
    assert_eq!(
        text(&output.stdout),
        format!("{want}\n{want}\n{by_index}\n")
    );

    // Standard input: every position three ways, one answer a line, in
    // order, on two threads and on one.
    let mut input = String::new();
    let mut want = String::new();
    let mut values = String::new();
    for position in &positions {
        let answer = expected(&table, position);
        let index = table.index(position).unwrap();
        let by_index = expected_by_index(&table, position);
        input.push_str(&format!("{position}\n{}\n{index}\n", placement(position)));
        // A game over written as a placement: over by its pegs alone.
        want.push_str(&format!("{answer}\n{answer}\n{by_index}\n"));
        let probe = table.probe(position).unwrap();
        values.push_str(&format!("{probe}\n{probe}\n{probe}\n"));
    }
    for threads in ["2", "1"] {
        let output = probe_stdin(&path, &input, &["--threads", threads]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        assert_eq!(text(&output.stdout), want, "{threads} threads");
        assert!(output.stderr.is_empty(), "{}", text(&output.stderr));
    }
    // The values alone.
    let output = probe_stdin(&path, &input, &["--no-move"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), values);
}

#[test]
fn probe_answers_bad_lines_with_an_error_names_them_and_fails_at_the_end() {
    let dir = folder("probe-bad");
    let (table, path) = table(&dir, 7, 2);
    let start = "rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -";
    let answer = expected(&table, &start.parse().unwrap());
    let lines = [
        start,
        "rhombus7p2 sturtevant south:47,47/north:0,1 0 0 -",
        "",
        "47,48/0 0",
        "rhombus7p1 sturtevant south:48/north:0 0 0 -",
        "99999999999",
        "47,48/0,1 0\r",
    ];
    // No final newline: the last line is a line all the same.
    let output = probe_stdin(&path, &lines.join("\n"), &[]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = text(&output.stdout);
    let answers: Vec<&str> = stdout.lines().collect();
    assert_eq!(answers.len(), lines.len(), "{stdout}");
    assert_eq!(answers[0], answer);
    assert_eq!(answers[6], answer);
    for (i, why) in [
        (1, "invalid position"),
        (2, "an empty line"),
        (3, "north has 1 peg,"),
        (4, "the table is of"),
        (5, "past the table"),
    ] {
        assert!(answers[i].starts_with("error: "), "{}", answers[i]);
        assert!(answers[i].contains(why), "{}", answers[i]);
    }
    let stderr = text(&output.stderr);
    for line in [2, 3, 4, 5, 6] {
        assert!(stderr.contains(&format!("line {line}: ")), "{stderr}");
    }
    assert!(stderr.contains("5 bad lines"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    // Bytes that are not text: answered all the same.
    let output = probe_bytes(&path, b"\xff\xfe\n47,48/0,1 0\n", &[]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = text(&output.stdout);
    assert!(
        stdout.starts_with("error: the line is not UTF-8"),
        "{stdout}"
    );
    assert_eq!(stdout.lines().nth(1), Some(answer.as_str()));
    assert!(text(&output.stderr).contains("line 1: "));

    // A line longer than the blocks standard input is read in is still
    // one line (blanks around a position are ignored).
    let long = format!("47,48/0,1 0{}\n47,48/0,1 1\n", " ".repeat(9 << 20));
    let output = probe_stdin(&path, &long, &[]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "win in 33 48-45\nwin in 33 0-3\n");

    // An argument that is no position: named by its place.
    let output = binary()
        .args([
            "tablebase",
            "probe",
            path.to_str().unwrap(),
            start,
            "nonsense",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("position 2: "));

    // A file that is not a table: a clear error, nothing answered.
    let missing = dir.join("nowhere.depths");
    let output = probe_stdin(&missing, "47,48/0,1 0\n", &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert!(text(&output.stderr).contains("nowhere.depths"));
}

/// `sternhalma tablebase export FILE --format FORMAT`: its lines.
fn export(path: &Path, format: &str) -> Vec<String> {
    let output = binary()
        .args([
            "tablebase",
            "export",
            path.to_str().unwrap(),
            "--format",
            format,
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    text(&output.stdout).lines().map(str::to_owned).collect()
}

#[test]
fn export_lists_every_legal_position_once_with_its_probe() {
    let dir = folder("export");
    // 7×7 with 2 pegs keeps each position apart; 4×4 with 6 folds the
    // mirror and has draws.
    for (side, pegs) in [(7, 2), (4, 6)] {
        let (table, path) = table(&dir, side, pegs);
        let game = table.game();
        let rows = export(&path, "csv");
        assert_eq!(rows[0], "index,side_to_move,south,north,value,depth");
        let rows = &rows[1..];
        let [positions, _, draws, illegal] = reproduced(side, pegs)
            .or_else(|| published(side, pegs))
            .unwrap();
        assert_eq!(rows.len() as u64, positions - illegal, "{game}");
        let mut seen = HashSet::new();
        let mut last_index = 0;
        let mut drawn = 0;
        let mut rng = Rng::new(u64::from(side));
        for row in rows {
            let fields: Vec<&str> = row.split(',').collect();
            assert_eq!(fields.len(), 6, "{row}");
            let index: u64 = fields[0].parse().unwrap();
            assert!(index >= last_index, "table order: {row}");
            last_index = index;
            assert!(
                seen.insert((fields[1], fields[2], fields[3])),
                "{row} twice"
            );
            drawn += u64::from(fields[4] == "draw");
            // One row in 500, and every draw, probed as a position.
            if rng.below(500) != 0 && fields[4] != "draw" {
                continue;
            }
            let side_to_move: usize = fields[1].parse().unwrap();
            let position: Position = format!(
                "{} sturtevant south:{}/north:{} {side_to_move} {side_to_move} -",
                game.board(),
                fields[2].replace(' ', ","),
                fields[3].replace(' ', ",")
            )
            .parse()
            .unwrap_or_else(|e| {
                // A game over, whose string names the finisher.
                let probe = table
                    .probe_index(index)
                    .unwrap_or_else(|_| panic!("{row}: {e}"));
                assert_eq!(probe.to_string(), "loss in 0", "{row}: {e}");
                format!(
                    "{} sturtevant south:{}/north:{} {side_to_move} {side_to_move} {}@{side_to_move}",
                    game.board(),
                    fields[2].replace(' ', ","),
                    fields[3].replace(' ', ","),
                    1 - side_to_move
                )
                .parse()
                .unwrap()
            });
            assert_eq!(table.index(&position).unwrap(), index, "{row}");
            let probe = table.probe(&position).unwrap();
            assert_eq!(fields[4], probe.value.name(), "{row}");
            let depth = probe
                .depth
                .filter(|_| probe.value != Value::Draw)
                .map(|d| d.to_string())
                .unwrap_or_default();
            assert_eq!(fields[5], depth, "{row}");
        }
        assert_eq!(drawn, draws, "{game}");

        // The text form: the placement `probe` reads, then the value; the
        // same rows in the same order.
        let texts = export(&path, "text");
        assert_eq!(texts.len(), rows.len());
        let mut input = String::new();
        let mut values = Vec::new();
        for (row, line) in rows.iter().zip(&texts).step_by(97) {
            let fields: Vec<&str> = row.split(',').collect();
            let placement = format!(
                "{}/{} {}",
                fields[2].replace(' ', ","),
                fields[3].replace(' ', ","),
                fields[1]
            );
            assert!(line.starts_with(&format!("{placement} ")), "{row} / {line}");
            input.push_str(&placement);
            input.push('\n');
            values.push(line[placement.len() + 1..].to_owned());
        }
        let output = probe_stdin(&path, &input, &[]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        for (answer, value) in text(&output.stdout).lines().zip(&values) {
            assert!(answer.starts_with(value.as_str()), "{answer} / {value}");
        }
    }
}

#[test]
fn export_of_a_table_without_depths_leaves_the_depth_empty() {
    let dir = folder("export-values");
    let game = Game::new(7, 1).unwrap();
    let (values, _) = sternhalma::solve::solve(&game, 1);
    let path = dir.join(format!("{}.values", game.board()));
    sternhalma::solve::file::write_values(&path, &game, &values, 0, true).unwrap();
    let rows = export(&path, "csv");
    assert_eq!(rows.len() as u64, 1 + 4_704 - 96);
    assert!(
        rows[1..]
            .iter()
            .all(|r| r.ends_with(",win,") || r.ends_with(",loss,"))
    );
    let texts = export(&path, "text");
    assert!(
        texts
            .iter()
            .all(|t| t.ends_with(" win") || t.ends_with(" loss"))
    );
    // `| head`: the reader goes away, and the export stops quietly.
    let mut child = binary()
        .args(["tablebase", "export", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
}

#[test]
fn a_thread_count_past_the_cap_is_refused_before_any_work() {
    let dir = folder("threads-cap");
    let (_, path) = table(&dir, 7, 1);
    for command in ["probe", "export"] {
        for threads in ["0", "257", "18446744073709551615", "many"] {
            let output = binary()
                .args(["tablebase", command])
                .arg(&path)
                .args(["--threads", threads])
                .output()
                .unwrap();
            assert_eq!(
                output.status.code(),
                Some(2),
                "{command} --threads {threads}"
            );
            let stderr = text(&output.stderr);
            assert!(
                stderr.contains("1 to 256"),
                "{command} --threads {threads}: {stderr}"
            );
            assert!(output.stdout.is_empty());
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `tablebase info` and `verify` piped into a reader that goes away
/// (`| head -1`) end quietly, as `probe` and `export` do: no panic.
#[test]
fn info_and_verify_end_quietly_when_their_reader_goes_away() {
    let dir = folder("closed-stdout");
    let (_, path) = table(&dir, 7, 1);
    for command in ["info", "verify"] {
        let mut child = binary()
            .args(["tablebase", command])
            .arg(&path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = text(&output.stderr);
        assert!(!stderr.contains("panicked"), "{command}: {stderr}");
        assert!(output.status.success(), "{command}: {stderr}");
    }
}
