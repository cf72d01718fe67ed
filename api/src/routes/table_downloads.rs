//! The solved tables a server installed, offered for download: a class
//! server that holds a table a student's laptop cannot solve (7×7 with 3
//! pegs takes a minute and 40 MiB; larger ones hours and gigabytes) hands
//! out its file, with its size and SHA-256 digest, to
//! `sternhalma.Tablebase.download(server)` and to another server's `serve
//! --tablebases-from`.
//!
//! Only the files of the tables installed from `--tablebases` are offered,
//! by their file names (`rhombus7p2.depths`): a table built in memory has
//! no file, and no other file of the folder is reachable. A download names
//! one of them exactly; any other name is a 404.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use actix_web::{HttpRequest, HttpResponse, get, web};
use serde::{Deserialize, Serialize};
use sternhalma::solve::{Tablebase, Tablebases};
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::service_config::ServiceConfig;

use sternhalma_http::error::{ApiError, Problem};

use super::downloads::{
    DownloadsDir, FileBytes, TrustedProxies, answer_download, attachment, open_regular, sha256_of,
    stamp,
};
use crate::base_path::BasePath;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config.service(list_tables).service(download_table);
}

/// The digests of the tables' files, each computed once per version on
/// disk (its size and modification time). Computing one holds the lock: a
/// class asking for the listing at once waits for one reading of a large
/// file, not one each. Clones share the digests.
#[derive(Clone, Debug, Default)]
pub struct TableDigests {
    read: Arc<Mutex<HashMap<PathBuf, Digest>>>,
}

#[derive(Clone, Debug)]
struct Digest {
    stamp: (u64, Option<SystemTime>),
    sha256: String,
}

impl TableDigests {
    /// The size and digest of `path`, a table's file; `None` if it cannot
    /// be read (gone, or not a regular file).
    pub fn of(&self, path: &Path) -> Option<(u64, String)> {
        let (folder, name) = split(path)?;
        let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut file, metadata) = open_regular(folder, name)?;
        let now = stamp(&metadata);
        if let Some(digest) = read.get(path).filter(|d| d.stamp == now) {
            return Some((now.0, digest.sha256.clone()));
        }
        let sha256 = sha256_of(&mut file)?;
        read.insert(
            path.to_owned(),
            Digest {
                stamp: now,
                sha256: sha256.clone(),
            },
        );
        Some((now.0, sha256))
    }
}

/// A path's folder and file name, if the name is text.
fn split(path: &Path) -> Option<(&Path, &str)> {
    Some((path.parent()?, path.file_name()?.to_str()?))
}

/// The file of an installed table offered as `name`, with its table.
fn offered(tables: &Tablebases, name: &str) -> Option<(PathBuf, Arc<Tablebase>)> {
    tables.list().into_iter().find_map(|table| {
        let path = table.source()?.to_owned();
        (split(&path)?.1 == name).then_some((path, table))
    })
}

/// The solved tables offered, and how to install them.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TableList {
    /// The file of every table the server installed from its
    /// `--tablebases` folder, sorted by board. Empty when it installed
    /// none.
    pub files: Vec<TableDownload>,
    /// The Python that downloads them all, checks them and installs them
    /// in the student's table folder.
    #[schema(example = "sternhalma.Tablebase.download(\"http://127.0.0.1:8080\")")]
    pub python: String,
    /// The command that starts another server with these tables
    /// (downloaded into its own `--tablebases` folder and checked).
    #[schema(
        example = "sternhalma serve --tablebases tables --tablebases-from http://127.0.0.1:8080"
    )]
    pub serve: String,
}

/// One table's file.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TableDownload {
    /// The file name: the board, then `.depths` (values and depths),
    /// `.packed` (values, packed by `sternhalma tablebase pack`) or
    /// `.values` (values only).
    #[schema(example = "rhombus7p2.depths")]
    pub name: String,
    /// The board of the solved game.
    #[schema(example = "rhombus7p2")]
    pub board: String,
    /// Pegs a side.
    #[schema(example = 2)]
    pub pegs: u8,
    /// Whether the file holds each position's depth to the end (`win in
    /// 7`), not only its value.
    pub depths: bool,
    /// Size in bytes.
    #[schema(example = 1_271_320)]
    pub size: u64,
    /// The SHA-256 digest of the file, 64 lowercase hex digits.
    #[schema(example = "3b4c0f8a9d6e2f1a0c5b7e9d8f6a4c2e1b3d5f7a9c8e6d4b2a0f1e3c5d7b9a8f")]
    pub sha256: String,
    /// Its address on this server, as the client reached it.
    #[schema(example = "http://127.0.0.1:8080/downloads/tables/rhombus7p2.depths")]
    pub url: String,
}

/// The solved tables this server offers for download.
///
/// The files of the tables installed from `--tablebases` (`GET
/// /v1/tablebases` lists them for probing), with sizes and SHA-256
/// digests: what `sternhalma.Tablebase.download(server)` and `sternhalma
/// serve --tablebases-from` fetch and check. A file's digest is computed
/// on the first listing after it changes on disk (a few seconds a
/// gigabyte), then kept.
#[utoipa::path(
    tag = "tablebases",
    responses(
        (status = 200, description = "The tables' files, sorted by board", body = TableList),
    )
)]
#[get("/downloads/tables/")]
pub async fn list_tables(
    request: HttpRequest,
    tables: web::Data<Tablebases>,
    dir: web::Data<DownloadsDir>,
    proxies: web::Data<TrustedProxies>,
    base_path: web::Data<BasePath>,
) -> Result<HttpResponse, ApiError> {
    let installed = tables.list();
    let digests = dir.table_digests().clone();
    let found = web::block(move || {
        installed
            .iter()
            .filter_map(|table| {
                let path = table.source()?;
                let (size, sha256) = digests.of(path)?;
                let name = split(path)?.1.to_owned();
                Some((name, table.clone(), size, sha256))
            })
            .collect::<Vec<_>>()
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))?;
    let (scheme, host) = proxies.origin(&request);
    let origin = format!("{scheme}://{host}{}", base_path.as_str());
    let files = found
        .into_iter()
        .map(|(name, table, size, sha256)| TableDownload {
            url: format!("{origin}/downloads/tables/{name}"),
            name,
            board: table.game().board().to_string(),
            pegs: table.game().pegs(),
            depths: table.has_depths(),
            size,
            sha256,
        })
        .collect();
    Ok(HttpResponse::Ok().json(TableList {
        files,
        python: format!("sternhalma.Tablebase.download(\"{origin}\")"),
        serve: format!("sternhalma serve --tablebases tables --tablebases-from {origin}"),
    }))
}

/// The table file to download.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct TablePath {
    /// A file name from the listing (`GET /downloads/tables/`).
    #[param(example = "rhombus7p2.depths")]
    pub file: String,
}

/// One solved table's file, as it is on the server's disk.
///
/// Any name the listing does not offer is a 404. As for the wheels, a cut
/// download goes on with `Range` (206, or 416 outside the file), and
/// `If-None-Match` with the ETag is answered 304 while the file is the
/// same.
#[utoipa::path(
    tag = "tablebases",
    params(TablePath),
    responses(
        (status = 200, description = "The file's bytes", content_type = "application/octet-stream", body = FileBytes,
            headers(
                ("Content-Length" = u64, description = "The file's size in bytes"),
                ("Content-Disposition" = String, description = "`attachment` with the file name"),
                ("ETag" = String, description = "The file's version on disk (its inode, size and modification time)"),
                ("Accept-Ranges" = String, description = "`bytes`: a download may ask for a range"),
            )),
        (status = 206, description = "The range of the file's bytes asked for (`Range`)", content_type = "application/octet-stream", body = FileBytes,
            headers(
                ("Content-Range" = String, description = "The bytes sent and the file's size"),
            )),
        (status = 304, description = "Not modified: the client's copy (`If-None-Match`) is the file on disk; no body"),
        (status = 400, description = "A `Range` header that is not ASCII text (`malformed_range`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such table file here (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "The file on disk is not the version `If-Match` or `If-Unmodified-Since` names (`precondition_failed`)", body = Problem, content_type = "application/problem+json"),
        (status = 416, description = "The range is not within the file (`range_not_satisfiable`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/downloads/tables/{file}")]
pub async fn download_table(
    request: HttpRequest,
    path: web::Path<TablePath>,
    tables: web::Data<Tablebases>,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner().file;
    let tables = tables.into_inner();
    let file = web::block(move || {
        let (path, _) = offered(&tables, &name)?;
        let (folder, name) = split(&path)?;
        attachment(folder, name)
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))?
    .ok_or_else(|| {
        ApiError::not_found("no such table file here; the tables are listed at /downloads/tables/")
    })?;
    Ok(answer_download(file, &request))
}
