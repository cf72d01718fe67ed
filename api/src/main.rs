//! The `sternhalma` command: serve the HTTP API, print its OpenAPI document,
//! or solve a solitaire crossing.

use std::net::TcpListener;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use sternhalma_api::matches::runner::BotRunner;
use sternhalma_api::{CorsPolicy, Heavy, HeavyPool, Store, app_with, openapi};
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

#[derive(Subcommand)]
enum Command {
    /// Serve the HTTP API (Swagger UI at /docs/, the document at /openapi.json).
    Serve(Serve),
    /// Print the OpenAPI document (JSON) to standard output.
    Openapi,
    /// Find a shortest solitaire crossing (one set alone, south to north) and
    /// prove it shortest. Progress goes to stderr, the solution to stdout.
    Solve(Solve),
}

#[derive(Parser)]
struct Solve {
    /// The board: `rhombus9x4`, `star4`, ...
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
    /// SQLite database of stored matches: created if missing, its schema
    /// migrated at start.
    #[arg(
        long,
        env = "STERNHALMA_DATABASE",
        default_value = "sternhalma.sqlite3"
    )]
    database: PathBuf,
    /// Log filter: error, warn, info, debug, trace, or a tracing directive.
    #[arg(long, env = "STERNHALMA_LOG", default_value = "info")]
    log_level: String,
    /// Log format.
    #[arg(
        long,
        env = "STERNHALMA_LOG_FORMAT",
        value_enum,
        default_value = "text"
    )]
    log_format: LogFormat,
    /// Origins allowed to call from browsers: `*` for any, a comma-separated
    /// list, or `none`.
    #[arg(long, env = "STERNHALMA_CORS_ORIGINS", default_value = "*")]
    cors_origins: String,
    /// Worker threads (default: one per core).
    #[arg(long, env = "STERNHALMA_WORKERS")]
    workers: Option<usize>,
    /// Threads for heavy work: solitaire solves and jobs, bot moves,
    /// replays and pictures (default: one per core).
    #[arg(long, env = "STERNHALMA_HEAVY_WORKERS")]
    heavy_workers: Option<usize>,
    /// Heavy requests that may wait for a thread; beyond them the answer is
    /// 503 `busy` with `Retry-After` (default: four per heavy thread).
    #[arg(long, env = "STERNHALMA_HEAVY_QUEUE")]
    heavy_queue: Option<usize>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
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

fn run(serve: Serve) -> Result<(), Box<dyn std::error::Error>> {
    let filter = EnvFilter::try_new(&serve.log_level)
        .map_err(|e| format!("invalid --log-level {:?}: {e}", serve.log_level))?;
    // Logs go to stderr (colours only on a terminal); stdout carries just the
    // address line, for scripts that start the server on port 0.
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    match serve.log_format {
        LogFormat::Text => subscriber.init(),
        LogFormat::Json => subscriber.json().init(),
    }
    let (store, version) = Store::open(&serve.database)
        .map_err(|e| format!("cannot open database {}: {e}", serve.database.display()))?;
    tracing::info!(database = %serve.database.display(), schema_version = version, "database ready");
    let cors = match serve.cors_origins.as_str() {
        "*" => CorsPolicy::Any,
        "none" => CorsPolicy::Off,
        list => CorsPolicy::Origins(list.split(',').map(|s| s.trim().to_owned()).collect()),
    };
    let listener = TcpListener::bind((serve.bind.as_str(), serve.port))
        .map_err(|e| format!("cannot listen on {}:{}: {e}", serve.bind, serve.port))?;
    let address = listener.local_addr()?;
    tracing::info!(%address, "listening; Swagger UI at http://{address}/docs/");
    println!("sternhalma listening on http://{address}");
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let workers = serve.workers.unwrap_or(cores);
    let heavy_workers = serve.heavy_workers.unwrap_or(cores).max(1);
    let heavy_queue = serve
        .heavy_queue
        .unwrap_or(sternhalma_api::heavy::QUEUE_PER_WORKER * heavy_workers);
    tracing::info!(heavy_workers, heavy_queue, "heavy-work pool ready");
    let heavy = Heavy::new(HeavyPool::new(heavy_workers, heavy_queue));
    actix_web::rt::System::new().block_on(async move {
        // Matches left with a bot to move by the last run (stopped between
        // a move and the bots' reply) go on.
        let runner = BotRunner::new(store.clone(), heavy.pool().clone());
        match runner.resume_all().await {
            Ok(0) => {}
            Ok(resumed) => tracing::info!(resumed, "resuming matches with a bot to move"),
            Err(error) => tracing::warn!(error = %error.problem().detail, "cannot resume matches"),
        }
        let server = actix_web::HttpServer::new(move || {
            app_with(cors.clone(), store.clone(), heavy.clone()).wrap(
                actix_web::middleware::Logger::new("%r %s %b %Dms").log_target("sternhalma::http"),
            )
        })
        .workers(workers)
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
