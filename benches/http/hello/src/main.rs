//! A minimal actix-web JSON server for the HTTP side-by-side bench: `POST
//! /echo` parses a JSON object with a `position` string (the body the bench
//! sends to `/v1/legal-moves`) and answers it back in a small JSON object.
//! `POST /echo/{bytes}` answers the same padded to about `bytes` bytes, to
//! tell the cost of an answer's size from the cost of computing it.
//!
//! It starts the way `sternhalma serve` does: one worker per core unless
//! `--workers N` says otherwise, HTTP/1 half-closed connections off, and it
//! prints `... listening on http://ADDRESS` on stdout (with `--port 0`, any
//! free port).
//!
//! ```sh
//! cargo build --release --manifest-path benches/http/hello/Cargo.toml --target-dir target/http-hello
//! target/http-hello/release/sternhalma-http-hello --port 0 --workers 2
//! ```

use std::net::TcpListener;

use actix_web::{App, HttpServer, post, web};
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct Request {
    position: String,
}

#[derive(Serialize)]
struct Reply {
    position: String,
    length: usize,
    /// Only in answers of `/echo/{bytes}`: filler making the body as large
    /// as asked (to see what the size of an answer costs).
    #[serde(skip_serializing_if = "String::is_empty")]
    padding: String,
}

#[post("/echo")]
async fn echo(body: web::Json<Request>) -> web::Json<Reply> {
    let position = body.into_inner().position;
    web::Json(Reply {
        length: position.len(),
        position,
        padding: String::new(),
    })
}

/// `/echo` with an answer of about `bytes` bytes.
#[post("/echo/{bytes}")]
async fn echo_sized(body: web::Json<Request>, bytes: web::Path<usize>) -> web::Json<Reply> {
    let position = body.into_inner().position;
    let filler = bytes.into_inner().saturating_sub(position.len() + 50);
    web::Json(Reply {
        length: position.len(),
        position,
        padding: "x".repeat(filler),
    })
}

fn main() -> std::io::Result<()> {
    let mut port = 8081_u16;
    let mut workers = std::thread::available_parallelism().map_or(2, usize::from);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_default();
        match flag.as_str() {
            "--port" => port = value.parse().expect("--port takes a number"),
            "--workers" => workers = value.parse().expect("--workers takes a number"),
            other => panic!("unknown argument {other} (--port N, --workers N)"),
        }
    }
    let listener = TcpListener::bind(("127.0.0.1", port))?;
    println!("hello listening on http://{}", listener.local_addr()?);
    actix_web::rt::System::new().block_on(async move {
        HttpServer::new(|| App::new().service(echo).service(echo_sized))
            .workers(workers)
            .h1_allow_half_closed(false)
            .listen(listener)?
            .run()
            .await
    })
}
