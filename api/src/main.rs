//! The `sternhalma` command: serve the HTTP API, print its OpenAPI document,
//! solve a solitaire crossing, or strongly solve a small game (RULES §7).

mod tablebase;
mod tablebase_tools;

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use sternhalma::solve::Tablebases;
use sternhalma_api::pages::WebAssets;
use sternhalma_api::routes::downloads::{DownloadsDir, TrustedProxies};
use sternhalma_api::{
    AdminKey, Background, BasePath, BodyTimeout, ClientLimits, CorsPolicy, Heavy, HeavyPool,
    Metrics, RateLimit, ServerConfig, Store, app_configured, openapi,
};
use sternhalma_http::access_log::{self, AccessLog};
use sternhalma_http::body_timeout::DEFAULT_BODY_TIMEOUT_SECONDS;
use sternhalma_http::clients::{
    DEFAULT_HEAVY_BURST, DEFAULT_HEAVY_PER_MINUTE, DEFAULT_LONG_POLLS_PER_CLIENT,
    DEFAULT_WRITE_BURST, DEFAULT_WRITE_TOKENS_PER_CLIENT, DEFAULT_WRITES_PER_MINUTE,
};
use sternhalma_http::connections::{
    ConnectionBudget, DEFAULT_CONNECTIONS_PER_CLIENT, DEFAULT_SEND_TIMEOUT_SECONDS, SendTimeout,
};
use sternhalma_http::heavy::DEFAULT_HEAVY_PER_CLIENT;
use sternhalma_store::quota::DEFAULT_GAMES_PER_OWNER;
use sternhalma_store::sql::Database;
use tracing_subscriber::EnvFilter;

#[derive(Parser)]
#[command(
    name = "sternhalma",
    version,
    about = "The Sternhalma rules engine for Chinese Checkers, over HTTP"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// The command line is parsed once: `Serve`'s size (all of its flags) costs
// nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Serve the HTTP API (Swagger UI at /docs/, the document at /openapi.json).
    Serve(Serve),
    /// Print the OpenAPI document (JSON) to standard output.
    Openapi,
    /// Find a shortest solitaire crossing (one set alone, south to north) and
    /// prove it shortest. Progress goes to stderr, the solution to stdout.
    Solve(Solve),
    /// Strongly solve the two-player game on a small rhombus (RULES §7):
    /// every position's value, written as table files.
    SolveGame(tablebase::SolveGame),
    /// Read, check, probe and export table files written by `solve-game`.
    Tablebase(tablebase::Tablebase),
    /// Print a new admin key for `serve --admin-key` (256 random bits, as
    /// 64 hex digits).
    AdminKey,
}

#[derive(Parser)]
struct Solve {
    /// The board: `rhombus9p10`, `star4`, ...
    #[arg(long)]
    board: sternhalma::Board,
    /// Hop chains only, no steps.
    #[arg(long)]
    hops_only: bool,
    /// Give up after this many positions (the lower bound proven is printed).
    #[arg(long)]
    max_nodes: Option<u64>,
    /// Give up when the meeting search would hold more than this many MiB
    /// of positions (counted: 16 bytes each; the lower bound proven is
    /// printed). Default: no budget.
    #[arg(long)]
    max_memory_mb: Option<u64>,
    /// Seconds between two progress lines.
    #[arg(long, default_value_t = 10.0)]
    progress_seconds: f64,
    /// Transposition table of 2^bits entries, 24 bytes each.
    #[arg(long, default_value_t = 24)]
    table_bits: u8,
    /// Positions the exact search back from the goal may keep (about 40 bytes each).
    #[arg(long, default_value_t = 2_000_000)]
    perimeter_states: usize,
    /// The search: `meet` (breadth first from both ends, the fastest
    /// proof; holds its levels in memory) or `ida` (IDA*, bounded memory).
    #[arg(long, value_enum, default_value_t = SolveMethod::Meet)]
    method: SolveMethod,
    /// Multiply the lower bound (weighted IDA*): above 1 finds a crossing
    /// sooner, at most that many times the optimum, not proven optimal.
    #[arg(long, default_value_t = 1.0)]
    weight: f64,
    /// Leave out every lower-bound table of more positions than this (one
    /// byte each): a weaker bound, but no time spent building it.
    #[arg(long, default_value_t = sternhalma::solitaire::SolveOptions::default().max_table_states)]
    max_table_states: u64,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SolveMethod {
    Meet,
    Ida,
}

#[derive(Parser)]
struct Serve {
    /// Address to bind.
    #[arg(long, env = "STERNHALMA_BIND", default_value = "127.0.0.1")]
    bind: String,
    /// Port to listen on (0: any free port, printed at start).
    #[arg(long, env = "STERNHALMA_PORT", default_value_t = 8080)]
    port: u16,
    /// Where stored matches and tournaments live: a SQLite file (created if
    /// missing), or a PostgreSQL database URL (`postgres://user@host/name`,
    /// which must exist; several replicas may share it). Its schema is
    /// migrated at start.
    #[arg(
        long,
        env = "STERNHALMA_DATABASE",
        hide_env_values = true,
        default_value = "sternhalma.sqlite3"
    )]
    database: Database,
    /// Log filter: error, warn, info, debug, trace, or a tracing directive.
    #[arg(long, env = "STERNHALMA_LOG", default_value = "info")]
    log_level: String,
    /// Write the log to this file instead of stderr, rotated by size
    /// (`--log-file-max-mb` in all, over 5 files: FILE, FILE.1, ... FILE.4,
    /// the oldest removed; each file may pass its share by the last write,
    /// at most 64 KiB).
    #[arg(long, env = "STERNHALMA_LOG_FILE", value_name = "FILE")]
    log_file: Option<std::path::PathBuf>,
    /// The most the log file and its older files hold together, in MB
    /// (with `--log-file`).
    #[arg(long, env = "STERNHALMA_LOG_FILE_MAX_MB", default_value_t = 100.0,
          value_parser = positive_megabytes)]
    log_file_max_mb: f64,
    /// Access-log lines a second each client address may write (five
    /// times as many at once); past it its lines are counted, and one line
    /// says how many were left out. 0: no budget. Behind a proxy or
    /// JupyterHub, where a class shares one address, the class shares it.
    #[arg(long, env = "STERNHALMA_LOG_LINES_PER_SECOND",
          default_value_t = access_log::DEFAULT_LINES_PER_SECOND)]
    log_lines_per_second: u32,
    /// Log format.
    #[arg(
        long,
        env = "STERNHALMA_LOG_FORMAT",
        value_enum,
        default_value = "text"
    )]
    log_format: LogFormat,
    /// Origins whose browser pages may call the API: `*` for any, or a
    /// comma-separated list (`https://a.example,http://localhost:3000`).
    /// Default (or `none`): same origin only, no CORS headers. Programs
    /// outside browsers are not affected.
    #[arg(long, env = "STERNHALMA_CORS_ORIGINS", default_value = "none")]
    cors_origins: String,
    /// Writes (`POST`s that store: matches, moves, resignations) one client
    /// (IP address) may send per minute, after a burst; 0: no limit. Over
    /// it: 429 `rate_limited` with `Retry-After`. Default: five a second,
    /// so thirty bots ask the one database writer for at most 150 commits
    /// a second. A write with a bearer token (a seat's, an entrant's, a
    /// creator's, the admin key) once answered with success from a client
    /// has this rate of its own there: see `--write-tokens-per-client`.
    #[arg(long, env = "STERNHALMA_WRITE_RATE", default_value_t = DEFAULT_WRITES_PER_MINUTE)]
    write_rate: u32,
    /// Writes one client (or token) may send at once before `--write-rate`
    /// applies.
    #[arg(long, env = "STERNHALMA_WRITE_BURST", default_value_t = DEFAULT_WRITE_BURST)]
    write_burst: u32,
    /// Bearer tokens whose writes one client (IP address: a class behind a
    /// school's NAT) may have counted each at `--write-rate` of its own,
    /// rather than sharing the address's; 0: every write counted per
    /// address. A token counts apart once a write with it has been
    /// answered with success from that address (made-up tokens never
    /// are); beyond this many the one least recently used goes back to
    /// the address's rate.
    #[arg(long, env = "STERNHALMA_WRITE_TOKENS_PER_CLIENT", default_value_t = DEFAULT_WRITE_TOKENS_PER_CLIENT)]
    write_tokens_per_client: usize,
    /// Heavy requests (bot moves, replays, renders, solitaire solves and
    /// jobs) one client may send per minute, after a burst; 0: no limit.
    /// Default: one a second, so thirty students share two cores without one
    /// of them filling the heavy queue.
    #[arg(long, env = "STERNHALMA_HEAVY_RATE", default_value_t = DEFAULT_HEAVY_PER_MINUTE)]
    heavy_rate: u32,
    /// Heavy requests one client may send at once before `--heavy-rate`
    /// applies (a page of rendered positions loads whole).
    #[arg(long, env = "STERNHALMA_HEAVY_BURST", default_value_t = DEFAULT_HEAVY_BURST)]
    heavy_burst: u32,
    /// Long-polls (`?wait_ply=`, `?wait_ms=`) one client may hold open at
    /// once; 0: no cap. Beyond: 429 `too_many_waits` with `Retry-After`.
    #[arg(long, env = "STERNHALMA_LONG_POLLS_PER_CLIENT", default_value_t = DEFAULT_LONG_POLLS_PER_CLIENT)]
    long_polls_per_client: usize,
    /// Connections one client (IP address) may hold open at once; 0: no
    /// cap. A connection beyond is shut as soon as it is accepted. Default:
    /// a class behind one NAT, thirty browsers of six connections each and
    /// their bots, fits; two addresses cannot take the server's files.
    #[arg(long, env = "STERNHALMA_CONNECTIONS_PER_CLIENT", default_value_t = DEFAULT_CONNECTIONS_PER_CLIENT)]
    connections_per_client: usize,
    /// Seconds a request's whole body may take to arrive after its head;
    /// 0: no limit. Beyond: 408 `body_timeout` and the connection closed,
    /// so a client that announces a body and sends nothing frees its
    /// connection.
    #[arg(long, env = "STERNHALMA_BODY_TIMEOUT_SECONDS", default_value_t = DEFAULT_BODY_TIMEOUT_SECONDS)]
    body_timeout_seconds: u64,
    /// Seconds an answer may wait unread (its client reads nothing, or too
    /// little) before the connection is closed; 0: the system's timeout
    /// (many minutes). So a client that pipelines requests and never reads
    /// the answers frees its connection and the memory it held.
    #[arg(long, env = "STERNHALMA_SEND_TIMEOUT_SECONDS", default_value_t = DEFAULT_SEND_TIMEOUT_SECONDS)]
    send_timeout_seconds: u64,
    /// Free space to keep on the disk under a SQLite database, in MB: below
    /// it, new matches and tournaments are refused (507 `disk_full`) while
    /// games under way go on; 0 stores until the disk is full (then every
    /// write is refused, and nothing stored before is lost).
    #[arg(long, env = "STERNHALMA_MIN_FREE_DISK_MB", default_value_t = 256)]
    min_free_disk_mb: u64,
    /// Games one client (IP address) may have stored: the matches it
    /// created and the games of its tournaments, finished ones included;
    /// 0: no quota. Past it, a new match or tournament is refused with 403
    /// `storage_quota_exceeded` (nothing stored is touched). What the
    /// admin key creates counts against nobody. `--no-limits` turns the
    /// quota off.
    #[arg(long, env = "STERNHALMA_STORED_GAMES_PER_CLIENT", default_value_t = DEFAULT_GAMES_PER_OWNER)]
    stored_games_per_client: u64,
    /// Turn every per-client limit off (rates, the long-poll cap, the
    /// heavy-work cap, the connection cap and the storage quota), e.g. behind a proxy or
    /// JupyterHub where all clients share one address.
    #[arg(long, env = "STERNHALMA_NO_LIMITS")]
    no_limits: bool,
    /// When set, creating a match or a tournament needs `Authorization:
    /// Bearer <key>` (everything else a match's or a tournament's own
    /// tokens guard). The key must hold at least 128 bits of randomness as
    /// its length and alphabet count them (32 hex digits, 22 letters of
    /// both cases and digits, or 20 characters mixing letters, digits and
    /// punctuation): a shorter one is refused; `sternhalma admin-key`
    /// prints a new one.
    /// Prefer the environment variable: arguments are visible to every
    /// user of the machine. Never logged.
    #[arg(long, env = "STERNHALMA_ADMIN_KEY", hide_env_values = true)]
    admin_key: Option<String>,
    /// The address of a reverse proxy in front of this server (repeat, or
    /// separate with commas): only requests from these addresses may name
    /// the host and scheme clients see (`Forwarded`, `X-Forwarded-Host`,
    /// `X-Forwarded-Proto`), as the pip commands of `/downloads/` use
    /// them. From anyone else those headers are ignored. The proxy must set
    /// or strip `Forwarded` itself (it is read first). The per-client limits
    /// still count the proxy's address as one client: behind one, raise
    /// them or pass `--no-limits`.
    #[arg(long, env = "STERNHALMA_TRUSTED_PROXY", value_delimiter = ',')]
    trusted_proxy: Vec<std::net::IpAddr>,
    /// Also answer under this path prefix, and name it in every address
    /// the server gives (its pages' links and API calls, redirects,
    /// `Location`, Swagger UI's document, the downloads' commands): for a
    /// reverse proxy that forwards `/services/game/...` with the prefix
    /// kept, as JupyterHub's does for a service. Requests without the
    /// prefix are still answered, at the root (programs on this machine
    /// use the server's own address). `/`, letters, digits and `-._~`
    /// only; a trailing slash is dropped; empty or `/`: none.
    #[arg(
        long,
        env = "STERNHALMA_BASE_PATH",
        value_name = "PREFIX",
        default_value = "",
        hide_default_value = true
    )]
    base_path: BasePath,
    /// Worker threads (default: one per core).
    #[arg(long, env = "STERNHALMA_WORKERS")]
    workers: Option<usize>,
    /// Threads for heavy work: solitaire solves and jobs, bot moves,
    /// replays and pictures (default: one per core). One more thread takes
    /// only the work of clients holding short questions alone.
    #[arg(long, env = "STERNHALMA_HEAVY_WORKERS")]
    heavy_workers: Option<usize>,
    /// Heavy work that may wait for a thread, in requests at their largest
    /// budgets (counted as `--heavy-per-client` counts); beyond it, a client
    /// holding nothing takes the place of the newest requests of the client
    /// holding the most, and else the answer is 429 or 503 `busy` with
    /// `Retry-After` (default: four per heavy thread).
    #[arg(long, env = "STERNHALMA_HEAVY_QUEUE")]
    heavy_queue: Option<usize>,
    /// Heavy work one client (IP address) may have running or waiting at
    /// once, in requests at their largest budgets (a smaller budget counts
    /// its share of one, a picture a thousandth); 0: no cap. Beyond: 429
    /// `too_many_heavy_requests` with `Retry-After`, so one client cannot
    /// fill the heavy queue. Whatever the cap, the pool serves the clients
    /// with work waiting in turn. `--no-limits` turns the cap off.
    #[arg(long, env = "STERNHALMA_HEAVY_PER_CLIENT", default_value_t = DEFAULT_HEAVY_PER_CLIENT)]
    heavy_per_client: usize,
    /// Start without resuming what the last run left under way: the
    /// tournaments left running wait until they change (their creator or
    /// the server's admin key starting, pausing or abandoning them), and
    /// the matches with a bot to move until someone reads or changes them.
    /// For an operator who must stop a runaway tournament: start with
    /// this, then pause or abandon it with the admin key.
    #[arg(long, env = "STERNHALMA_NO_RESUME")]
    no_resume: bool,
    /// Serve the web pages from this folder (e.g. `api/web`) instead of
    /// the copy compiled into the binary: to edit them without rebuilding.
    #[arg(long, env = "STERNHALMA_WEB_DIR")]
    web_dir: Option<PathBuf>,
    /// Install the solved tables (RULES §7) in this folder at start: every
    /// `<board>.depths` or `<board>.values` file that `sternhalma
    /// solve-game` wrote, and every `<board>.packed` file that `sternhalma
    /// tablebase pack` wrote (per board its depths first, then its packed
    /// values, then its values; checkpoints skipped). A file that cannot be read stops the start. `GET
    /// /v1/tablebases` lists them; the probe, the analysis and the
    /// `perfect` bot use them, and `/downloads/tables/` offers their
    /// files to students (`sternhalma.Tablebase.download(server)`) and to
    /// other servers (`--tablebases-from`).
    #[arg(long, env = "STERNHALMA_TABLEBASES")]
    tablebases: Option<PathBuf>,
    /// With `--tablebases`: first download into that folder the tables
    /// another Sternhalma server offers (`URL/downloads/tables/`), each
    /// checked against the size and SHA-256 digest its listing gives; a
    /// file already there with the same digest is kept. A table that
    /// cannot be fetched or does not match stops the start.
    #[arg(
        long,
        env = "STERNHALMA_TABLEBASES_FROM",
        requires = "tablebases",
        value_name = "URL"
    )]
    tablebases_from: Option<String>,
    /// With `--tablebases`: first solve the small games missing there (7×7
    /// with 1 and 2 pegs, 4×4 with 6; seconds each, with depths) and write
    /// them to the folder (created if missing), so that the next start
    /// only reads them.
    #[arg(long, env = "STERNHALMA_BUILD_TABLEBASES", requires = "tablebases")]
    build_tablebases: bool,
    /// Offer the Python wheels in this folder at `/downloads/` (what
    /// `scripts/wheel` builds, and `scripts/wheelhouse` downloads beside
    /// it), so a class installs the module with `pip install --no-index
    /// --find-links http://<this machine>:8080/downloads/ --trusted-host
    /// <this machine>:8080 "sternhalma[notebooks]"`, no Rust nor internet
    /// needed. A missing folder offers nothing.
    #[arg(long, env = "STERNHALMA_DOWNLOADS_DIR", default_value = "dist")]
    downloads_dir: PathBuf,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

/// `--log-file-max-mb`: a size from 0.01 MB (10 kB) up.
fn positive_megabytes(text: &str) -> Result<f64, String> {
    let mb: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of megabytes"))?;
    if mb.is_finite() && (0.01..=1e9).contains(&mb) {
        Ok(mb)
    } else {
        Err(format!("{text} MB: give 0.01 to 1000000000"))
    }
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Openapi => {
            println!(
                "{}",
                openapi().to_pretty_json().expect("the document serialises")
            );
            std::process::ExitCode::SUCCESS
        }
        Command::Solve(options) => solve(&options),
        Command::SolveGame(options) => tablebase::solve_game(&options),
        Command::Tablebase(options) => tablebase::tablebase(&options),
        Command::AdminKey => match AdminKey::generate() {
            Ok(key) => {
                println!("{key}");
                std::process::ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("sternhalma: {e}");
                std::process::ExitCode::FAILURE
            }
        },
        Command::Serve(serve) => match run(serve) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("sternhalma: {e}");
                std::process::ExitCode::FAILURE
            }
        },
    }
}

fn solve(options: &Solve) -> std::process::ExitCode {
    use sternhalma::solitaire::{self, Problem, Progress, SolveError, SolveOptions};
    let problem = Problem::new(options.board, options.hops_only);
    eprintln!(
        "solving {}{}: layout 1, rules {}",
        options.board,
        if options.hops_only {
            " (hops only)"
        } else {
            ""
        },
        Problem::rules()
    );
    let mut report = |p: &Progress| {
        eprintln!(
            "nodes {} bound {} rate {:.0} nodes/s elapsed {:.1} s",
            p.nodes,
            p.bound,
            p.nodes_per_second,
            p.elapsed.as_secs_f64()
        );
        std::ops::ControlFlow::Continue(())
    };
    let result = solitaire::solve(
        &problem,
        SolveOptions {
            method: match options.method {
                SolveMethod::Meet => solitaire::Method::Meet,
                SolveMethod::Ida => solitaire::Method::Ida,
            },
            max_nodes: options.max_nodes,
            max_memory_bytes: options.max_memory_mb.map(|mb| mb.saturating_mul(1 << 20)),
            progress: Some(&mut report),
            progress_interval: std::time::Duration::from_secs_f64(
                options.progress_seconds.max(0.0),
            ),
            table_bits: options.table_bits,
            perimeter_states: options.perimeter_states,
            weight: options.weight,
            max_table_states: options.max_table_states,
        },
    );
    match result {
        Ok(solution) => {
            println!(
                "length {} {} nodes {} seconds {:.3}",
                solution.length,
                if solution.optimal {
                    "optimal"
                } else {
                    "not proven optimal"
                },
                solution.nodes,
                solution.elapsed.as_secs_f64()
            );
            let texts: Vec<String> = solution.moves.iter().map(ToString::to_string).collect();
            println!("{}", texts.join(" "));
            if solution.memory_bytes > 0 {
                eprintln!(
                    "memory counted: {} bytes ({:.1} MiB) at most",
                    solution.memory_bytes,
                    solution.memory_bytes as f64 / f64::from(1 << 20)
                );
            }
            std::process::ExitCode::SUCCESS
        }
        Err(
            error @ (SolveError::NodeLimit { lower_bound, nodes }
            | SolveError::MemoryLimit {
                lower_bound, nodes, ..
            }
            | SolveError::Interrupted { lower_bound, nodes }),
        ) => {
            println!("no solution proven: at least {lower_bound} moves (nodes {nodes})");
            eprintln!("sternhalma: {error}");
            std::process::ExitCode::from(2)
        }
        Err(error) => {
            println!("impossible");
            eprintln!("sternhalma: {error}");
            std::process::ExitCode::from(2)
        }
    }
}

/// Raises the soft limit of open files to the hard limit: each connection,
/// long-polls included, holds one, and the usual soft limit of 1024 would
/// cap a class's long-polls and pages well below what the machine allows.
/// Answers the limit now in force.
fn raise_open_files_limit() -> u64 {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => {
            tracing::info!(
                open_files = limit,
                "open-file limit raised to the hard limit"
            );
            limit
        }
        Err(e) => {
            let (soft, _) = rlimit::Resource::NOFILE.get().unwrap_or((1024, 1024));
            tracing::warn!(error = %e, open_files = soft, "cannot raise the open-file limit");
            soft
        }
    }
}

fn run(serve: Serve) -> Result<(), Box<dyn std::error::Error>> {
    // Checked first: a key a class could guess is refused before anything
    // is opened.
    let admin_key = serve
        .admin_key
        .as_deref()
        .map(AdminKey::new)
        .transpose()
        .map_err(|e| format!("invalid --admin-key: {e}"))?;
    let filter = EnvFilter::try_new(&serve.log_level)
        .map_err(|e| format!("invalid --log-level {:?}: {e}", serve.log_level))?;
    // Logs go to stderr (colours only on a terminal) or to `--log-file`;
    // stdout carries just the address line, for scripts that start the
    // server on port 0. One thread writes them, a batch at a time;
    // `_flush` writes what is left when `run` returns.
    let (sink, _flush) = match &serve.log_file {
        Some(path) => {
            // Whole bytes: the flag is at least 0.01 MB and below 2^53.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let max_bytes = (serve.log_file_max_mb * 1e6) as u64;
            access_log::file(path, max_bytes)
                .map_err(|e| format!("cannot write the log file {}: {e}", path.display()))?
        }
        None => access_log::stderr(),
    };
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(sink)
        .with_ansi(
            serve.log_file.is_none() && std::io::IsTerminal::is_terminal(&std::io::stderr()),
        );
    match serve.log_format {
        LogFormat::Text => subscriber.init(),
        LogFormat::Json => subscriber.json().init(),
    }
    // The server's one set of solved tables, filled below: the store
    // plays and judges its games with it, and every worker's app reads it
    // (the probe, the analysis, the perfect bot).
    let tables = Arc::new(Tablebases::default());
    let (store, version) = Store::open(&serve.database, Arc::clone(&tables))
        .map_err(|e| format!("cannot open database {}: {e}", serve.database.display()))?;
    store.set_min_free_disk(serve.min_free_disk_mb.saturating_mul(1_000_000));
    store.set_games_per_owner((!serve.no_limits).then_some(serve.stored_games_per_client));
    tracing::info!(database = %serve.database.display(), schema_version = version, shared = store.is_shared(), "database ready");
    if let (Some(from), Some(folder)) = (&serve.tablebases_from, &serve.tablebases) {
        let downloaded = tablebase::download_tables(from, folder)?;
        tracing::info!(from = %from, folder = %folder.display(), downloaded, "tables fetched");
    }
    if let Some(folder) = &serve.tablebases {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let installed =
            tablebase::install_folder(&tables, folder, serve.build_tablebases, threads)?;
        tracing::info!(
            folder = %folder.display(),
            tables = installed.len(),
            "solved tables installed (GET /v1/tablebases)"
        );
    }
    let open_files = raise_open_files_limit();
    let cors = match serve.cors_origins.trim() {
        "*" => CorsPolicy::Any,
        "none" | "" => CorsPolicy::Off,
        list => CorsPolicy::Origins(list.split(',').map(|s| s.trim().to_owned()).collect()),
    };
    let limits = if serve.no_limits {
        ClientLimits::off()
    } else {
        ClientLimits::new(
            RateLimit::per_minute(serve.write_rate, serve.write_burst),
            RateLimit::per_minute(serve.heavy_rate, serve.heavy_burst),
            (serve.long_polls_per_client > 0).then_some(serve.long_polls_per_client),
        )
        .with_write_tokens_per_client(Some(serve.write_tokens_per_client))
        .with_connections_per_client(Some(serve.connections_per_client))
    };
    tracing::info!(
        cors = ?cors,
        write_rate = if serve.no_limits { 0 } else { serve.write_rate },
        write_burst = serve.write_burst,
        heavy_rate = if serve.no_limits { 0 } else { serve.heavy_rate },
        heavy_burst = serve.heavy_burst,
        long_polls_per_client = if serve.no_limits { 0 } else { serve.long_polls_per_client },
        write_tokens_per_client = limits.write_tokens_per_client(),
        connections_per_client = limits.connections().cap().unwrap_or(0),
        body_timeout_seconds = serve.body_timeout_seconds,
        admin_key = admin_key.is_some(),
        "client limits (per IP address; 0: none)"
    );
    tracing::info!(
        downloads_dir = %serve.downloads_dir.display(),
        "Python wheels in this folder offered at /downloads/"
    );
    let config = ServerConfig {
        cors,
        limits: limits.clone(),
        body_timeout: BodyTimeout::new(Some(std::time::Duration::from_secs(
            serve.body_timeout_seconds,
        ))),
        admin_key,
        metrics: Metrics::new(),
        web: match serve.web_dir {
            Some(dir) => {
                tracing::info!(web_dir = %dir.display(), "web pages served from a folder");
                WebAssets::Dir(dir)
            }
            None => WebAssets::Embedded,
        },
        downloads: DownloadsDir::new(serve.downloads_dir),
        trusted_proxies: TrustedProxies::new(serve.trusted_proxy),
        base_path: serve.base_path.clone(),
    };
    // The installed tables' digests for /downloads/tables/, computed now on
    // a thread of their own (seconds a gigabyte), so that the class's
    // first listing finds them ready rather than waiting for them.
    let digests = config.downloads.table_digests().clone();
    let offered = tables.list();
    std::thread::spawn(move || {
        for table in offered {
            if let Some(path) = table.source() {
                let _ = digests.of(path);
            }
        }
    });
    let listener = TcpListener::bind((serve.bind.as_str(), serve.port))
        .map_err(|e| format!("cannot listen on {}:{}: {e}", serve.bind, serve.port))?;
    let address = listener.local_addr()?;
    if serve.base_path.is_none() {
        tracing::info!(%address, "listening; the web board at http://{address}/, Swagger UI at http://{address}/docs/");
    } else {
        let base = &serve.base_path;
        tracing::info!(%address, base_path = %base, "listening at the root and under the base path; the web board at http://{address}{base}/, Swagger UI at http://{address}{base}/docs/");
    }
    println!("sternhalma listening on http://{address}");
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let workers = serve.workers.unwrap_or(cores).max(1);
    // actix counts connections per worker: the workers together stay below
    // the open-file limit, less what the database and the rest need, so
    // that accepting never fails for want of a file (new connections wait
    // in the listen queue instead).
    let budget = ConnectionBudget::new(open_files, workers);
    let send_timeout = SendTimeout::new(Some(std::time::Duration::from_secs(
        serve.send_timeout_seconds,
    )));
    // Near the budget, the client holding the most connections gives way.
    limits.connections().set_budget(budget.total);
    let access_log = match serve.log_lines_per_second {
        0 => AccessLog::default(),
        n => AccessLog::with_budget(std::sync::Arc::new(access_log::LogBudget::new(n))),
    };
    tracing::info!(
        open_files = budget.open_files,
        reserved = budget.reserved,
        workers,
        per_worker = budget.per_worker,
        total = budget.total,
        "connections at most (the open-file limit less a reserve, shared by the workers)"
    );
    let heavy_workers = serve.heavy_workers.unwrap_or(cores).max(1);
    let heavy_queue = serve
        .heavy_queue
        .unwrap_or(sternhalma_http::heavy::QUEUE_PER_WORKER * heavy_workers);
    let heavy_per_client = if serve.no_limits {
        0
    } else {
        serve.heavy_per_client
    };
    tracing::info!(
        heavy_workers,
        heavy_queue,
        heavy_per_client,
        "heavy-work pool ready (clients served in turn; per client, 0: no cap)"
    );
    let heavy = Heavy::new(
        HeavyPool::new(heavy_workers, heavy_queue).per_client_cap(Some(heavy_per_client)),
    );
    actix_web::rt::System::new().block_on(async move {
        // The background work, once for the server (every worker's app
        // shares it): the director resumes the tournaments running, and
        // matches left with a bot to move by the last run (stopped between
        // a move and the bots' reply) go on.
        let resume = !serve.no_resume;
        let background = Background::start_resuming(&store, heavy.pool(), resume);
        if resume {
            match background.runner.resume_all().await {
                Ok(0) => {}
                Ok(resumed) => tracing::info!(resumed, "resuming matches with a bot to move"),
                Err(error) => {
                    tracing::warn!(error = %error, "cannot resume matches");
                }
            }
        } else {
            tracing::info!("nothing left under way is resumed (--no-resume)");
        }
        let server = actix_web::HttpServer::new(move || {
            // The access log names the peer's address (not a header a
            // client could forge); headers, where the tokens travel, are
            // never logged.
            app_configured(
                config.clone(),
                store.clone(),
                heavy.clone(),
                background.clone(),
            )
            .wrap(access_log.clone())
        })
        .workers(workers)
        .max_connections(budget.per_worker)
        // Each connection counted against its client's cap as it is
        // accepted; one over the cap is shut at once.
        .on_connect(move |io, extensions| {
            send_timeout.apply(io);
            limits.on_connect(io, extensions);
        })
        // A client that closes its connection ends its request at once: a
        // long-poll it left frees its slot (and its socket) now, not at its
        // timeout. Clients that half-close after sending are rare.
        .h1_allow_half_closed(false)
        .shutdown_timeout(10)
        .listen(listener)?
        .run();
        // actix stops gracefully on SIGINT (Ctrl-C) and SIGTERM: in-flight
        // requests finish, new connections are refused.
        server.await
    })?;
    tracing::info!("stopped");
    Ok(())
}
