//! `sternhalma solve-game` and `sternhalma tablebase`: the solved game of
//! RULES §7 from the command line, and the tables `sternhalma serve
//! --tablebases` installs. The solver, the table files and the checks live
//! in the core (`sternhalma::solve`); this converts flags, draws the
//! progress bar and prints.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use sternhalma::solve::{self, Counts, Game, Progress, Solver, Value, file, published, reproduced};

/// `solve-game`: every position's value of one game.
#[derive(Parser)]
pub struct SolveGame {
    /// The board, named by its side and the pegs of a home: `rhombus7p3`
    /// (7×7 with 3 pegs a side), `rhombus7p4`, `rhombus4p6`. Also read: a
    /// square rhombus with `--pegs` (`rhombus7x7 --pegs 3`), and the older
    /// names by home rows (`rhombus7x2`), with a note.
    #[arg(long)]
    board: String,
    /// Pegs a side (1, 2, 3, 4 or 6), where `--board` does not say.
    #[arg(long)]
    pegs: Option<u8>,
    /// Folder for the table files (created if missing).
    #[arg(long, default_value = "tables")]
    out: PathBuf,
    /// Threads (default: every core).
    #[arg(long, value_parser = parse_threads)]
    threads: Option<usize>,
    /// Refuse to start when the tables would need more memory than this:
    /// bytes, or with a suffix K, M, G (binary), e.g. `16G`.
    #[arg(long, value_parser = parse_bytes)]
    max_memory: Option<u64>,
    /// Go on from the checkpoint in `--out` instead of starting afresh.
    #[arg(long)]
    resume: bool,
    /// Write a checkpoint after a pass when this many seconds have passed
    /// since the last one (0: after every pass).
    #[arg(long, default_value_t = 300.0)]
    checkpoint_seconds: f64,
    /// Stop after this many passes (counting those of a resumed
    /// checkpoint), leaving a checkpoint to go on from with `--resume`.
    #[arg(long)]
    stop_after: Option<u32>,
    /// Also compute the depth to the end (a byte a position): `auto` for
    /// games of up to 16 M positions a side, `on`, or `off`.
    #[arg(long, value_enum, default_value_t = DepthChoice::Auto)]
    depth: DepthChoice,
    /// No progress bar (progress lines on stderr instead).
    #[arg(long)]
    quiet: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum DepthChoice {
    Auto,
    On,
    Off,
}

/// Positions a side below which `--depth auto` computes depths.
const AUTO_DEPTH_STATES: u64 = 1 << 24;

/// `tablebase`: read and check table files.
#[derive(Parser)]
pub struct Tablebase {
    #[command(subcommand)]
    command: TablebaseCommand,
}

#[derive(Subcommand)]
enum TablebaseCommand {
    /// Print a table file's header, its counts beside the published ones
    /// and the start position's value, after checking the file whole.
    Info {
        /// The table file.
        file: PathBuf,
    },
    /// Probe positions: for each, one line with its value for the side to
    /// move and the best move (`win in 33 48-45`, `draw 12-13`, `loss in
    /// 0` once the game is over). With no POSITION, reads them from
    /// standard input, one a line, and answers one line each, in order, on
    /// every core. A position is a position string, a placement
    /// (`47,48/0,1 0`: south's holes, north's, the side to move, 0 for
    /// south) or a table index (digits alone). A bad line is answered
    /// `error: ...` and named on standard error; the command then ends
    /// with status 1, after answering every line. A packed table is read
    /// entry by entry (some microseconds a read) unless `--unpack`.
    Probe {
        /// The table file.
        file: PathBuf,
        /// Positions to probe (each one argument: quote position strings).
        positions: Vec<String>,
        /// Threads for standard input (default: every core).
        #[arg(long, value_parser = parse_threads)]
        threads: Option<usize>,
        /// The value alone, without the best move (`win in 33`): a table
        /// read or two a position instead of one per legal move.
        #[arg(long)]
        no_move: bool,
        /// A packed table: decode it whole first, then answer at the speed
        /// of its values, in their memory (2 bits an entry: 3.7 GiB for
        /// 7×7 with 4 pegs). For batch work on many positions.
        #[arg(long)]
        unpack: bool,
    },
    /// Write every legal position of the table with its value and depth,
    /// one a line, in table order (each entry's positions: south to move,
    /// then north; a position, then its mirror image where the table
    /// folds the mirror), to standard output (a packed table unpacked
    /// first).
    Export {
        /// The table file.
        file: PathBuf,
        /// `csv`: `index,side_to_move,south,north,value,depth` (holes of a
        /// side separated by spaces, the depth empty for a draw or a table
        /// without depths); `text`: `47,48/0,1 0 win in 33`, the placement
        /// `tablebase probe` reads and its value.
        #[arg(long, value_enum, default_value_t = crate::tablebase_tools::ExportFormat::Csv)]
        format: crate::tablebase_tools::ExportFormat,
        /// Threads (default: every core).
        #[arg(long, value_parser = parse_threads)]
        threads: Option<usize>,
    },
    /// Pack a table of values (or a table of depths: its values) for a
    /// server to hold: about a fifth of a bit an entry on 7×7 with 3 pegs, each entry read on
    /// its own in microseconds (docs/tablebases.md, "Packed tables").
    /// Every entry is decoded and compared with the table before the file
    /// is written.
    Pack {
        /// The table file (`.values` or `.depths`).
        file: PathBuf,
        /// Where to write it (default: `<board>.packed` beside FILE).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Entries a chunk codes: a read decodes half a chunk on average;
        /// larger chunks pack a little smaller.
        #[arg(long, default_value_t = solve::packed::CHUNK_ENTRIES, value_parser = clap::value_parser!(u32).range(1..=i64::from(solve::packed::MAX_CHUNK_ENTRIES)))]
        chunk: u32,
        /// Threads (default: every core).
        #[arg(long, value_parser = parse_threads)]
        threads: Option<usize>,
    },
    /// Check sampled positions against the rules and their successors (a
    /// packed table: first decoded whole, its counts checked against its
    /// header's).
    Verify {
        /// The table file.
        file: PathBuf,
        /// Another table file of the same game (values, depths or packed)
        /// to compare with entry by entry.
        #[arg(long)]
        against: Option<PathBuf>,
        /// Positions to check, drawn uniformly (every position if at least
        /// the table's size).
        #[arg(long, default_value_t = 100_000)]
        sample: u64,
        /// Seed of the sample.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

/// Most threads a command takes (`--threads`).
const MAX_THREADS: usize = 256;

fn parse_threads(text: &str) -> Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_THREADS).contains(n))
        .ok_or_else(|| format!("{text:?} is not a thread count: 1 to {MAX_THREADS}"))
}

fn parse_bytes(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (digits, scale) = match text.char_indices().last() {
        Some((i, 'K' | 'k')) => (&text[..i], 1u64 << 10),
        Some((i, 'M' | 'm')) => (&text[..i], 1 << 20),
        Some((i, 'G' | 'g')) => (&text[..i], 1 << 30),
        Some((i, 'T' | 't')) => (&text[..i], 1 << 40),
        _ => (text, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("{text:?} is not a size: write bytes, or e.g. 512M, 16G"))
}

fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / f64::from(1u32 << 30))
}

/// The peak resident memory of this process, from /proc (Linux).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("sternhalma: {message}");
    ExitCode::FAILURE
}

/// The files of a game's tables in `folder`.
fn paths(folder: &Path, game: &Game) -> (PathBuf, PathBuf, PathBuf) {
    let stem = game.board().to_string();
    (
        folder.join(format!("{stem}.values")),
        folder.join(format!("{stem}.depths")),
        folder.join(format!("{stem}.checkpoint")),
    )
}

fn row(label: &str, r: [u64; 4]) -> String {
    format!(
        "  {label:<13} {:>18} {:>18} {:>14} {:>14}",
        r[0], r[1], r[2], r[3]
    )
}

/// `println!` that ends the command quietly when standard output is
/// closed (`tablebase verify FILE | head`), as `tablebase probe` and
/// `export` do, instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            eprintln!("sternhalma: standard output: {e}");
            std::process::exit(1);
        }
    }};
}

/// Table 1 of Sturtevant (2019) beside these counts.
fn print_table1(game: &Game, counts: &Counts) {
    say!(
        "  {:<13} {:>18} {:>18} {:>14} {:>14}",
        "",
        "positions",
        "first-player wins",
        "draws",
        "illegal"
    );
    let ours = counts.published();
    say!("{}", row("this table", ours));
    if let Some(paper) = published(game.side(), game.pegs()) {
        let same = if paper == ours { "  (equal)" } else { "" };
        say!("{}{same}", row("paper", paper));
    }
    if let Some(other) = reproduced(game.side(), game.pegs())
        && Some(other) != published(game.side(), game.pegs())
    {
        let same = if other == ours { "  (equal)" } else { "" };
        say!("{}{same}", row("reproduction", other));
    }
}

/// `sternhalma solve-game`.
pub fn solve_game(options: &SolveGame) -> ExitCode {
    let game = match Game::parse(&options.board, options.pegs) {
        Ok(game) => game,
        Err(e) => return fail(e),
    };
    if options.board != game.board().to_string() {
        eprintln!(
            "sternhalma: note: {} is named {} (the one name of its files, positions and API)",
            options.board,
            game.board()
        );
    }
    let threads = options
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    let states = game.ranking().states();
    let depth = match options.depth {
        DepthChoice::On => true,
        DepthChoice::Off => false,
        DepthChoice::Auto => states <= AUTO_DEPTH_STATES,
    };
    let table_bytes = states.div_ceil(32) * 8;
    // Depths: a byte a position, and a 2-byte counter while they are made.
    let needed = table_bytes + if depth { 3 * states } else { 0 };
    if let Some(limit) = options.max_memory
        && needed > limit
    {
        return fail(format!(
            "{game} needs {} for its tables ({} positions a side{}); --max-memory is {}",
            gib(needed),
            states,
            if depth { ", with depths" } else { "" },
            gib(limit)
        ));
    }
    if let Err(e) = std::fs::create_dir_all(&options.out) {
        return fail(format!("{}: {e}", options.out.display()));
    }
    let (values_path, depths_path, checkpoint_path) = paths(&options.out, &game);
    eprintln!(
        "solving {game}: {} positions ({} with south to move{}), rules {}, {threads} threads, {} of values",
        game.positions(),
        game.ranking().positions_a_side(),
        if game.ranking().folds_mirror() {
            format!("; {states} entries with the mirror folded")
        } else {
            String::new()
        },
        game.rules(),
        gib(table_bytes)
    );
    let started = Instant::now();
    let mut solver = if options.resume {
        match file::read(&checkpoint_path) {
            Ok((header, loaded_game, loaded)) => {
                if loaded_game.board() != game.board() {
                    return fail(format!(
                        "{}: a checkpoint of {}, not {}",
                        checkpoint_path.display(),
                        loaded_game.board(),
                        game.board()
                    ));
                }
                eprintln!(
                    "resuming after pass {} ({} positions unknown)",
                    header.passes, header.counts.draws
                );
                Solver::resume(&game, loaded.into_values(), header.passes, threads)
            }
            Err(e) => return fail(format!("cannot resume: {e}")),
        }
    } else {
        Solver::new(&game, threads)
    };
    let bar = if options.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(solver.tiles())
    };
    bar.set_style(
        ProgressStyle::with_template(
            "pass {prefix:>2} [{bar:30}] {pos}/{len} tiles · {msg} · {elapsed} (ETA {eta})",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    let progress = |p: Progress| {
        if p.tiles_done == 1 {
            bar.set_position(0);
            bar.set_prefix(p.pass.to_string());
        }
        bar.set_position(p.tiles_done);
        bar.set_message(format!("{} unknown", p.unknown));
    };
    let mut last_checkpoint = Instant::now();
    let mut expansions = 0u64;
    let mut checkpoint_error = None;
    let finished = solver.run(&progress, &mut |solver, report| {
        expansions += report.expansions;
        let line = format!(
            "pass {}: {} proven, {} expanded, {} unknown, {:.1} s",
            report.pass, report.proven, report.expansions, report.unknown, report.seconds
        );
        if options.quiet {
            eprintln!("{line}");
        } else {
            bar.println(line);
        }
        let stop = options.stop_after.is_some_and(|n| solver.passes() >= n);
        if report.proven > 0
            && (stop
                || last_checkpoint.elapsed() >= Duration::from_secs_f64(options.checkpoint_seconds))
        {
            match file::write_values(
                &checkpoint_path,
                &game,
                solver.table(),
                solver.passes(),
                false,
            ) {
                Ok(_) => last_checkpoint = Instant::now(),
                Err(e) => checkpoint_error = Some(e),
            }
        }
        !stop
    });
    bar.finish_and_clear();
    if let Some(e) = checkpoint_error.as_ref().filter(|_| finished) {
        eprintln!("sternhalma: warning: a checkpoint could not be written: {e}");
    }
    if !finished {
        return match checkpoint_error {
            Some(e) => fail(format!(
                "stopped, but the checkpoint could not be written: {e}"
            )),
            None => {
                println!(
                    "{game}: stopped after pass {} with {} positions unknown; checkpoint {} (go on with --resume)",
                    solver.passes(),
                    solver.unknown(),
                    checkpoint_path.display()
                );
                ExitCode::SUCCESS
            }
        };
    }
    let seconds = started.elapsed().as_secs_f64();
    let passes = solver.passes();
    let table = solver.into_table();
    let header = match file::write_values(&values_path, &game, &table, passes, true) {
        Ok(header) => header,
        Err(e) => return fail(e),
    };
    let _ = std::fs::remove_file(&checkpoint_path);
    let (mover, other) = game.start();
    let start = table.get(game.ranking().index(mover, other));
    println!("{game}: solved in {passes} passes, {seconds:.1} s on {threads} threads");
    println!(
        "  {} positions a side a second a thread; {expansions} expansions ({:.0} a second a thread)",
        (game.ranking().positions_a_side() as f64 / seconds / threads as f64).round(),
        expansions as f64 / seconds / threads as f64
    );
    if let Some(peak) = peak_memory() {
        println!("  peak memory {}", gib(peak));
    }
    print_table1(&game, &game.counts(&table));
    println!("  start position (south to move): {start}");
    println!("  wrote {}", values_path.display());
    if depth {
        let started = Instant::now();
        let result = solve::solve_depths(&game, &table, threads, &|layer, placed| {
            if !options.quiet {
                eprintln!("depth {layer}: {placed} positions placed");
            }
        });
        drop(table);
        let depths = match result {
            Ok(depths) => depths,
            Err(e) => return fail(e),
        };
        let written = match file::write_depths(&depths_path, &game, &depths) {
            Ok(header) => header,
            Err(e) => return fail(e),
        };
        if written.counts != header.counts {
            return fail(format!(
                "the depths' values {:?} differ from the solver's {:?}",
                written.counts, header.counts
            ));
        }
        let start_depth = depths.get(game.ranking().index(mover, other));
        println!(
            "  depths: {} rounds, {:.1} s; the start is a {} in {start_depth} plies; wrote {}",
            depths.rounds,
            started.elapsed().as_secs_f64(),
            solve::value_of(start_depth),
            depths_path.display()
        );
    }
    ExitCode::SUCCESS
}

/// Opens every solved table in `folder` and installs it in `tables` (the
/// server's one set, [`solve::Tablebases`]): per board a `<board>.depths`
/// file rather than its `<board>.packed` (the depths hold the values too),
/// and that rather than its `<board>.values` (the same values, packed in
/// a sixth of the memory on 7×7 with 3 pegs; more than the values on the
/// small boards, which are served with their depths);
/// checkpoints, partial files and other files are skipped. With `build`,
/// the [`SMALL_GAMES`](solve::tablebase::SMALL_GAMES) missing are then solved on `threads` threads and
/// written to `folder` (created if missing). Each table is logged: board,
/// pegs, depths or not, MiB, its file, and how long it took. Answers the
/// tables installed.
///
/// # Errors
/// No such folder (without `build`), a table file refused (damaged, a
/// checkpoint, of other rules: the file and the reason named), or a table
/// built that cannot be written.
pub fn install_folder(
    tables: &solve::Tablebases,
    folder: &Path,
    build: bool,
    threads: usize,
) -> Result<Vec<Arc<solve::Tablebase>>, String> {
    if build {
        std::fs::create_dir_all(folder)
            .map_err(|e| format!("--tablebases {}: {e}", folder.display()))?;
    }
    let entries =
        std::fs::read_dir(folder).map_err(|e| format!("--tablebases {}: {e}", folder.display()))?;
    // Per board (its one name, whatever the file's), the values, depths
    // and packed file; a file under the board's one name wins over one
    // under an older name.
    let mut files: BTreeMap<String, [Option<(PathBuf, bool)>; 3]> = BTreeMap::new();
    for entry in entries {
        let path = entry
            .map_err(|e| format!("--tablebases {}: {e}", folder.display()))?
            .path();
        let slot = match path.extension().and_then(|e| e.to_str()) {
            Some("values") => 0,
            Some("depths") => 1,
            Some("packed") => 2,
            // `.checkpoint` (an unfinished solve), `.partial` (a file
            // being written) and anything else.
            _ => continue,
        };
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()).map(str::to_owned) else {
            continue;
        };
        if !path.is_file() {
            continue;
        }
        let mut path = path;
        let mut key = stem.clone();
        let mut canonical = true;
        // A file an older engine named by home rows (`rhombus7x2.values`)
        // takes the board's one name (`rhombus7p3.values`) where no file of
        // that name is there, and is read where it is if it cannot.
        if let Ok(board) = stem.parse::<sternhalma::Board>()
            && board.to_string() != stem
        {
            key = board.to_string();
            let renamed =
                path.with_file_name(format!("{board}.{}", ["values", "depths", "packed"][slot]));
            canonical = false;
            if !renamed.exists() {
                match std::fs::rename(&path, &renamed) {
                    Ok(()) => {
                        tracing::info!(was = %path.display(), now = %renamed.display(), "a table file renamed to its board's name");
                        path = renamed;
                        canonical = true;
                    }
                    Err(e) => {
                        tracing::warn!(file = %path.display(), error = %e, "a table file under an older name could not be renamed; read where it is");
                    }
                }
            }
        }
        let place = &mut files.entry(key).or_default()[slot];
        if place
            .as_ref()
            .is_none_or(|(_, was_canonical)| canonical && !was_canonical)
        {
            *place = Some((path, canonical));
        }
    }
    let mut installed = Vec::new();
    for [values, depths, packed] in files.into_values() {
        let Some((path, _)) = depths.or(packed).or(values) else {
            continue;
        };
        if build && file::is_outdated(&path) {
            // Written by an older engine: the small games are solved again
            // below (open_or_build replaces the file), the others are not.
            tracing::warn!(file = %path.display(), "an outdated table file skipped (solve the game again with solve-game)");
            continue;
        }
        let started = Instant::now();
        let table = solve::Tablebase::open(&path)
            .map_err(|e| format!("--tablebases: cannot open a table file: {e}"))?;
        installed.push(install(tables, table, "opened", started));
    }
    if build {
        for (side, pegs) in solve::tablebase::SMALL_GAMES {
            let game = Game::new(side, pegs).map_err(|e| e.to_string())?;
            if tables.get(game.board()).is_some() {
                continue;
            }
            tracing::info!(board = %game.board(), pegs, "solving a small game missing from --tablebases");
            let started = Instant::now();
            let table = solve::Tablebase::open_or_build(folder, &game, threads, &|_| {})
                .map_err(|e| format!("--build-tablebases: {game}: {e}"))?;
            installed.push(install(tables, table, "built", started));
        }
    }
    Ok(installed)
}

/// Installs `table` in `tables`, logging it.
fn install(
    tables: &solve::Tablebases,
    table: solve::Tablebase,
    how: &str,
    started: Instant,
) -> Arc<solve::Tablebase> {
    let game = table.game();
    tracing::info!(
        board = %game.board(),
        pegs = game.pegs(),
        depths = table.has_depths(),
        mib = format!("{:.2}", table.bytes() as f64 / f64::from(1u32 << 20)),
        file = %table.source().map(|p| p.display().to_string()).unwrap_or_default(),
        seconds = format!("{:.2}", started.elapsed().as_secs_f64()),
        "tablebase {how} and installed"
    );
    let table = Arc::new(table);
    tables.install(Arc::clone(&table));
    table
}

/// `sternhalma tablebase`.
pub fn tablebase(options: &Tablebase) -> ExitCode {
    match &options.command {
        TablebaseCommand::Info { file: path } => info(path),
        TablebaseCommand::Verify {
            file: path,
            against,
            sample,
            seed,
        } => verify(path, against.as_deref(), *sample, *seed),
        TablebaseCommand::Pack {
            file: path,
            out,
            chunk,
            threads,
        } => pack(path, out.as_deref(), *chunk, *threads),
        TablebaseCommand::Probe {
            file: path,
            positions,
            threads,
            no_move,
            unpack,
        } => crate::tablebase_tools::probe(path, positions, *threads, !*no_move, *unpack),
        TablebaseCommand::Export {
            file: path,
            format,
            threads,
        } => crate::tablebase_tools::export(path, *format, *threads),
    }
}

fn info(path: &Path) -> ExitCode {
    let (header, game, loaded) = match file::read(path) {
        Ok(read) => read,
        Err(e) => return fail(e),
    };
    say!("{}", path.display());
    say!("  game        {game}, rules {}", header.rules);
    say!(
        "  kind        {}",
        match header.kind {
            file::Kind::Values => "values (2 bits a position)".to_owned(),
            file::Kind::Depths => "depths to the end (a byte a position)".to_owned(),
            file::Kind::Packed => format!(
                "packed values ({:.3} bits an entry, decoded whole to check it)",
                header.body_bytes as f64 * 8.0 / header.states as f64
            ),
        }
    );
    say!(
        "  format      {} (rules version {})",
        file::FORMAT_VERSION,
        file::RULES_VERSION
    );
    say!(
        "  positions   {} a side, {} in all; {} entries{}",
        game.ranking().positions_a_side(),
        game.positions(),
        header.states,
        if header.mirror {
            " (the mirror folded: a position and its image share one)"
        } else {
            ""
        }
    );
    // A solved table of values keeps no pass count (its bytes do not
    // depend on the passes); a table of depths keeps its rounds.
    let solved = match (header.complete, header.kind) {
        (false, _) => format!("no: a checkpoint after pass {}", header.passes),
        (true, file::Kind::Values | file::Kind::Packed) => "yes".to_owned(),
        (true, file::Kind::Depths) => format!(
            "yes (the deepest position: {} plies to the end under best play)",
            header.passes.saturating_sub(1)
        ),
    };
    say!("  solved      {solved}");
    say!(
        "  checksum    {:016x} (checked: the body matches)",
        header.checksum
    );
    let values = match loaded.checked_values() {
        Ok(values) => values,
        Err(e) => return fail(format!("{}: {e}", path.display())),
    };
    let c = &game.counts(&values);
    say!(
        "  south to move: {} wins, {} losses, {} draws, {} illegal",
        c.wins,
        c.losses,
        c.draws,
        c.illegal
    );
    print_table1(&game, c);
    let (mover, other) = game.start();
    let index = game.ranking().index(mover, other);
    match &loaded {
        file::Loaded::Depths(depths) => {
            let d = depths.get(index);
            say!(
                "  start position (south to move): {} in {d} plies",
                solve::value_of(d)
            );
        }
        file::Loaded::Values(table) => {
            say!("  start position (south to move): {}", table.get(index));
        }
        file::Loaded::Packed(packed) => {
            say!("  start position (south to move): {}", packed.get(index));
        }
    }
    ExitCode::SUCCESS
}

/// A small deterministic generator for the sample (SplitMix64).
fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn verify(path: &Path, against: Option<&Path>, sample: u64, seed: u64) -> ExitCode {
    let (header, game, loaded) = match file::read(path) {
        Ok(read) => read,
        Err(e) => return fail(e),
    };
    if !header.complete {
        return fail(format!(
            "{}: a checkpoint, not a solved table: its unknown positions are not draws yet",
            path.display()
        ));
    }
    let table = match loaded.checked_values() {
        Ok(table) => table,
        Err(e) => return fail(format!("{}: {e}", path.display())),
    };
    if header.kind == file::Kind::Packed {
        say!(
            "{}: decoded whole: {} entries, counts equal to those it holds",
            path.display(),
            header.states
        );
    }
    if let Some(other) = against {
        let (other_header, other_game, other_loaded) = match file::read(other) {
            Ok(read) => read,
            Err(e) => return fail(e),
        };
        if other_game.board() != game.board() || !other_header.complete {
            return fail(format!(
                "{}: not a solved table of {} to compare with",
                other.display(),
                game.board()
            ));
        }
        let differ = table.count_differences(&other_loaded.values());
        if differ > 0 {
            return fail(format!(
                "{} and {}: {differ} of {} entries differ",
                path.display(),
                other.display(),
                header.states
            ));
        }
        say!(
            "{}: every one of its {} entries equal to {}'s",
            path.display(),
            header.states,
            other.display()
        );
    }
    let depths = match &loaded {
        file::Loaded::Depths(depths) => Some(depths),
        file::Loaded::Values(_) | file::Loaded::Packed(_) => None,
    };
    let states = header.states;
    let every = sample >= states;
    let count = if every { states } else { sample };
    let mut random = seed;
    let mut failures = Vec::new();
    let mut by_value = [0u64; 4];
    for i in 0..count {
        let index = if every {
            i
        } else {
            next_random(&mut random) % states
        };
        by_value[table.get(index) as usize] += 1;
        if let Err(e) = solve::check_position(&game, &table, depths, index) {
            failures.push(e);
        }
    }
    // An entry is a position with south to move, and with the mirror
    // folded also its mirror image: what the file holds, one value each.
    say!(
        "{}: checked {count} {}{} ({} wins, {} losses, {} draws, {} illegal or unused, south to move)",
        path.display(),
        if header.mirror {
            "entries (each a position with south to move and its mirror image, where that is another)"
        } else {
            "entries (each a position with south to move)"
        },
        if every { ", all" } else { "" },
        by_value[Value::Win as usize],
        by_value[Value::Loss as usize],
        by_value[Value::Draw as usize],
        by_value[Value::Illegal as usize],
    );
    if failures.is_empty() {
        say!("  every one consistent with the rules and its successors");
        ExitCode::SUCCESS
    } else {
        for f in failures.iter().take(10) {
            say!("  {f}");
        }
        fail(format!("{} inconsistent positions", failures.len()))
    }
}

/// `tablebase pack`: packs the values of the table file `path`, checks
/// every entry of the packed table against them, and writes it.
fn pack(path: &Path, out: Option<&Path>, chunk: u32, threads: Option<usize>) -> ExitCode {
    let threads = crate::tablebase_tools::threads(threads);
    let started = Instant::now();
    let (header, game, loaded) = match file::read(path) {
        Ok(read) => read,
        Err(e) => return fail(e),
    };
    if !header.complete {
        return fail(format!(
            "{}: a checkpoint, not a solved table (finish it with solve-game --resume)",
            path.display()
        ));
    }
    if header.kind == file::Kind::Packed {
        return fail(format!("{}: already packed", path.display()));
    }
    let table = loaded.values();
    let entries = header.states;
    eprintln!("packing {game}: {entries} entries, chunks of {chunk}, {threads} threads");
    let shown = std::sync::atomic::AtomicU64::new(u64::MAX);
    let packed = solve::PackedTable::pack(&game, &table, chunk, threads, &|done, all| {
        let percent = done * 100 / all.max(1);
        if shown.swap(percent, std::sync::atomic::Ordering::Relaxed) != percent {
            eprint!("\r  {percent:>3}% of the blocks coded");
        }
    });
    eprintln!();
    // Every entry decoded and compared before the file is written.
    let differ = packed.unpack(threads).count_differences(&table);
    if differ > 0 {
        return fail(format!(
            "{differ} of {entries} entries decode to another value than the table's: the packing is wrong, no file written"
        ));
    }
    let target = out.map_or_else(
        || solve::tablebase::packed_path(path.parent().unwrap_or(Path::new(".")), &game),
        Path::to_owned,
    );
    let written = match file::write_packed(&target, &packed) {
        Ok(header) => header,
        Err(e) => return fail(e),
    };
    let two_bits = entries.div_ceil(32) * 8;
    say!(
        "wrote {}: {} bytes of body, {:.3} bits an entry, {:.1}x smaller than the 2-bit values ({two_bits} bytes); every entry checked; {:.1} s",
        target.display(),
        written.body_bytes,
        written.body_bytes as f64 * 8.0 / entries as f64,
        two_bits as f64 / written.body_bytes as f64,
        started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

/// Downloads into `folder` (created if missing) the solved tables another
/// server offers at `/downloads/tables/` (`serve --tablebases-from URL`),
/// each checked against the size and SHA-256 digest the listing gives. A
/// file already in `folder` with the same digest is kept; another is
/// replaced only once the new one has arrived whole and checked (written
/// beside it as `<name>.partial`, then renamed). Answers how many files
/// were downloaded.
///
/// # Errors
/// The server cannot be reached or does not answer a listing, a name that
/// is not a table file's, a download cut short or whose digest differs,
/// or a file that cannot be written.
pub fn download_tables(from: &str, folder: &Path) -> Result<usize, String> {
    use std::io::{Read, Write};

    use sha2::{Digest, Sha256};

    use sternhalma_api::routes::table_downloads::TableList;

    let base = from.trim_end_matches('/');
    if !base.starts_with("http://") {
        return Err(format!(
            "--tablebases-from {from}: an http:// address of a Sternhalma server (a class server on its network), e.g. http://teacher.local:8080"
        ));
    }
    // A server that stops answering stops the start after a minute of
    // silence, not never; a large file may take as long as it takes.
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_per_read(Some(Duration::from_secs(60)))
        .build()
        .into();
    let listing_url = format!("{base}/downloads/tables/");
    let listing: TableList = agent
        .get(&listing_url)
        .call()
        .map_err(|e| format!("--tablebases-from: {listing_url}: {e}"))?
        .body_mut()
        .read_json()
        .map_err(|e| format!("--tablebases-from: {listing_url}: not a listing of tables: {e}"))?;
    std::fs::create_dir_all(folder)
        .map_err(|e| format!("--tablebases {}: {e}", folder.display()))?;
    let mut downloaded = 0;
    for file in &listing.files {
        let table_file = Path::new(&file.name)
            .extension()
            .is_some_and(|e| e == "values" || e == "depths" || e == "packed");
        if !table_file
            || file.name.starts_with('.')
            || !file
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
        {
            return Err(format!(
                "--tablebases-from: {listing_url} offers {:?}, which is not a table file's name",
                file.name
            ));
        }
        let target = folder.join(&file.name);
        if let Ok(mut existing) = std::fs::File::open(&target)
            && existing.metadata().is_ok_and(|m| m.len() == file.size)
            && sternhalma_api::routes::downloads::sha256_of(&mut existing).as_deref()
                == Some(file.sha256.as_str())
        {
            tracing::info!(file = %target.display(), "table file already here, same digest");
            continue;
        }
        let started = Instant::now();
        // Fetched from the server named, under the name listed (the
        // listing's own address may be one a proxy sees, not this one);
        // written under a name of this process alone, which the install
        // skips (`.partial`), then renamed into place once checked.
        let url = format!("{listing_url}{}", file.name);
        let partial = folder.join(format!(".{}.{}.partial", file.name, std::process::id()));
        let fail = |why: String| {
            let _ = std::fs::remove_file(&partial);
            format!("--tablebases-from: {url}: {why}")
        };
        let mut response = agent.get(&url).call().map_err(|e| fail(e.to_string()))?;
        let mut body = response
            .body_mut()
            .with_config()
            .limit(file.size.saturating_add(1))
            .reader();
        let mut out = std::fs::File::create(&partial)
            .map_err(|e| fail(format!("cannot write {}: {e}", partial.display())))?;
        let mut hasher = Sha256::new();
        let mut buffer = vec![0u8; 1 << 20];
        let (mut received, mut logged) = (0u64, 0u64);
        loop {
            let n = match body.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(fail(format!(
                        "the download failed after {received} bytes: {e}"
                    )));
                }
            };
            hasher.update(&buffer[..n]);
            out.write_all(&buffer[..n])
                .map_err(|e| fail(format!("cannot write {}: {e}", partial.display())))?;
            received += n as u64;
            // A line every tenth of a large file.
            if file.size > 64 << 20 && received - logged >= file.size / 10 {
                logged = received;
                tracing::info!(file = %file.name, percent = received * 100 / file.size, "downloading a table");
            }
        }
        let sha256 = hex::encode(hasher.finalize());
        if received != file.size || sha256 != file.sha256 {
            return Err(fail(format!(
                "received {received} bytes with SHA-256 {sha256}; the listing says {} bytes with {}: not installed",
                file.size, file.sha256
            )));
        }
        out.sync_all()
            .map_err(|e| fail(format!("cannot write {}: {e}", partial.display())))?;
        drop(out);
        std::fs::rename(&partial, &target)
            .map_err(|e| fail(format!("cannot write {}: {e}", target.display())))?;
        tracing::info!(
            file = %target.display(),
            bytes = file.size,
            seconds = format!("{:.1}", started.elapsed().as_secs_f64()),
            "table downloaded, its digest checked"
        );
        downloaded += 1;
    }
    Ok(downloaded)
}
