//! `sternhalma solve-game` and `sternhalma tablebase`, run as a user runs
//! them: table files in a real folder, read back, checked, damaged and
//! refused, stopped and resumed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

fn run(args: &[&str]) -> Output {
    binary().args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn solve(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "solve-game",
        "--board",
        "rhombus7x7",
        "--pegs",
        "2",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn seven_by_seven_with_two_pegs_is_solved_written_and_verified() {
    let out = folder("solve-7p2");
    let solved = solve(&out, &[]);
    assert!(solved.status.success(), "{}", text(&solved.stderr));
    let stdout = text(&solved.stdout);
    // The counts printed beside Table 1 of the paper, and equal to it.
    let paper = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("paper"))
        .unwrap();
    assert!(paper.ends_with("(equal)"), "{stdout}");
    assert!(
        stdout.contains("start position (south to move): win"),
        "{stdout}"
    );
    let values = out.join("rhombus7p2.values");
    let depths = out.join("rhombus7p2.depths");
    assert!(values.exists() && depths.exists(), "{stdout}");
    assert!(!out.join("rhombus7p2.checkpoint").exists());

    let info = run(&["tablebase", "info", depths.to_str().unwrap()]);
    assert!(info.status.success(), "{}", text(&info.stderr));
    let info = text(&info.stdout);
    assert!(info.contains("rules sturtevant"), "{info}");
    assert!(info.contains("checked: the body matches"), "{info}");
    let start = info.lines().find(|l| l.contains("start position")).unwrap();
    // "win in N plies" with N odd: the side to move makes the last move.
    let plies: u32 = start
        .split_whitespace()
        .rev()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(start.contains(": win in ") && plies % 2 == 1, "{start}");
    // The deepest position is no shallower than the start.
    let solved = info.lines().find(|l| l.contains("solved")).unwrap();
    let deepest: u32 = solved
        .split("deepest position: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{solved}"));
    assert!(deepest >= plies, "{solved}");

    for file in [&values, &depths] {
        let verified = run(&[
            "tablebase",
            "verify",
            file.to_str().unwrap(),
            "--sample",
            "20000",
        ]);
        assert!(verified.status.success(), "{}", text(&verified.stdout));
        // The file's entries, named as such (with 2 pegs the mirror is
        // not folded: an entry is a position with south to move).
        assert!(
            text(&verified.stdout)
                .contains("checked 20000 entries (each a position with south to move)"),
            "{}",
            text(&verified.stdout)
        );
        assert!(
            text(&verified.stdout).contains("every one consistent"),
            "{}",
            text(&verified.stdout)
        );
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn the_same_table_comes_from_any_threads_and_from_a_resumed_checkpoint() {
    let one = folder("solve-one-thread");
    let two = folder("solve-resumed");
    assert!(
        solve(&one, &["--threads", "1", "--depth", "off"])
            .status
            .success()
    );
    let stopped = solve(&two, &["--threads", "2", "--stop-after", "4"]);
    assert!(stopped.status.success(), "{}", text(&stopped.stderr));
    assert!(
        text(&stopped.stdout).contains("stopped after pass 4"),
        "{}",
        text(&stopped.stdout)
    );
    let checkpoint = two.join("rhombus7p2.checkpoint");
    assert!(checkpoint.exists());
    // A checkpoint is not a solved table.
    let refused = run(&["tablebase", "verify", checkpoint.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("a checkpoint"),
        "{}",
        text(&refused.stderr)
    );
    // `info` reads a checkpoint and says where it stopped.
    let info = run(&["tablebase", "info", checkpoint.to_str().unwrap()]);
    assert!(info.status.success(), "{}", text(&info.stderr));
    assert!(
        text(&info.stdout).contains("solved      no: a checkpoint after pass 4"),
        "{}",
        text(&info.stdout)
    );
    let resumed = solve(&two, &["--resume", "--depth", "off"]);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert!(text(&resumed.stderr).contains("resuming after pass 4"));
    let a = std::fs::read(one.join("rhombus7p2.values")).unwrap();
    let b = std::fs::read(two.join("rhombus7p2.values")).unwrap();
    assert!(a == b, "the tables differ");
    std::fs::remove_dir_all(&one).unwrap();
    std::fs::remove_dir_all(&two).unwrap();
}

#[test]
fn a_damaged_or_foreign_file_is_refused_with_the_reason() {
    let out = folder("solve-damaged");
    assert!(solve(&out, &["--depth", "off"]).status.success());
    let values = out.join("rhombus7p2.values");
    let good = std::fs::read(&values).unwrap();

    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    std::fs::write(&values, &flipped).unwrap();
    let info = run(&["tablebase", "info", values.to_str().unwrap()]);
    assert!(!info.status.success());
    assert!(
        text(&info.stderr).contains("checksum"),
        "{}",
        text(&info.stderr)
    );

    let header = String::from_utf8_lossy(&good[..4096]).into_owned();
    let other_rules = header.replace("rules_version: 1", "rules_version: 9");
    let mut foreign = other_rules.into_bytes();
    foreign.extend_from_slice(&good[4096..]);
    std::fs::write(&values, &foreign).unwrap();
    let info = run(&["tablebase", "info", values.to_str().unwrap()]);
    assert!(!info.status.success());
    assert!(
        text(&info.stderr).contains("rules version 9"),
        "{}",
        text(&info.stderr)
    );

    std::fs::write(&values, &good[..good.len() - 8]).unwrap();
    let info = run(&["tablebase", "info", values.to_str().unwrap()]);
    assert!(!info.status.success());
    assert!(
        text(&info.stderr).contains("bytes"),
        "{}",
        text(&info.stderr)
    );

    std::fs::write(&values, b"hello").unwrap();
    let info = run(&["tablebase", "info", values.to_str().unwrap()]);
    assert!(!info.status.success());
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn bad_requests_are_clear_errors() {
    let out = folder("solve-bad");
    let o = out.to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["--board", "rhombus7x7"], "how many pegs"),
        (&["--board", "rhombus7x7", "--pegs", "5"], "1, 2, 3, 4 or 6"),
        (&["--board", "rhombus9x9", "--pegs", "3"], "64 holes"),
        (&["--board", "star4", "--pegs", "3"], "rhombus"),
        (
            &["--board", "rhombus7x7", "--pegs", "3", "--max-memory", "1M"],
            "--max-memory",
        ),
    ];
    for (args, expected) in cases {
        let output = run(&[&["solve-game", "--out", o][..], args].concat());
        assert!(!output.status.success(), "{args:?}");
        let stderr = text(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    let output = run(&[
        "solve-game",
        "--board",
        "rhombus7x7",
        "--pegs",
        "2",
        "--out",
        o,
        "--resume",
    ]);
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("cannot resume"),
        "{}",
        text(&output.stderr)
    );
    std::fs::remove_dir_all(&out).unwrap();
}
