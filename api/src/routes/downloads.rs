//! Wheels of the Python module, offered for download: a class on a LAN
//! installs `sternhalma` with pip from the teacher's server, with no Rust
//! toolchain and, once `scripts/wheelhouse` has put every dependency's
//! wheel beside ours, with no internet either (`pip install --no-index
//! --find-links http://<server>/downloads/ ...`: pip reads the HTML
//! listing). `scripts/wheel` builds the wheel into `dist/`; `sternhalma
//! serve --downloads-dir` names the folder served. The JavaScript example
//! clients are offered too, at `/downloads/examples/<name>.js`, from a copy
//! compiled into the binary (`examples/clients/`).
//!
//! Only wheels are offered: regular files (not links) directly in the
//! folder, not hidden, whose names are wheel names (`*.whl` with its tags)
//! made of letters, digits and `._+-`. A download names one of them exactly;
//! any other name (`..`, a path, a hidden or unlisted file) is a 404, so a
//! request cannot read anything else on the disk. Likewise an example is
//! one of the compiled-in names exactly.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::net::IpAddr;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::SystemTime;

use actix_files::NamedFile;
use actix_web::http::StatusCode;
use actix_web::http::header::{
    self, Accept, ContentDisposition, DispositionParam, DispositionType, HeaderValue,
};
use actix_web::{HttpRequest, HttpResponse, ResponseError as _, get, mime, web};
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::service_config::ServiceConfig;

use sternhalma_http::error::{ApiError, Problem};

use crate::base_path::BasePath;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config
        .service(list_downloads)
        .service(download_file)
        .service(download_example);
}

/// The folder whose wheels `/downloads/` offers (`--downloads-dir`; by
/// default `dist` in the server's working directory). A folder that does
/// not exist offers nothing.
///
/// Each wheel's digest is computed once per version on disk (its size and
/// modification time) and kept in memory, so a listing of a wheelhouse
/// (hundreds of files, hundreds of megabytes) hashes each file once, and
/// afterwards reads only the folder. The bytes are not kept: a download
/// streams the file from the disk (the system's page cache shares it among
/// a class downloading at once). Clones share the digests; build one per
/// server.
#[derive(Clone, Debug)]
pub struct DownloadsDir {
    folder: PathBuf,
    read: Arc<Mutex<HashMap<String, Wheel>>>,
    /// The digests of the solved tables' files (`/downloads/tables/`).
    tables: super::table_downloads::TableDigests,
}

/// The reverse proxies in front of the server (`--trusted-proxy`): only a
/// request from one of them may say, in `Forwarded` or `X-Forwarded-*`,
/// which host and scheme its client used. Anyone else could otherwise put
/// another server's address into the pip command a class copies.
#[derive(Clone, Debug, Default)]
pub struct TrustedProxies(Vec<IpAddr>);

impl TrustedProxies {
    /// Believes the forwarding headers of requests from `addresses`.
    pub fn new(addresses: Vec<IpAddr>) -> TrustedProxies {
        TrustedProxies(addresses)
    }

    /// The scheme and host the client of `request` used: from the
    /// forwarding headers when a trusted proxy sent it, else this server's
    /// own (`http`, and the `Host` the request names).
    pub fn origin(&self, request: &HttpRequest) -> (String, String) {
        // An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d.
        let trusted = request
            .peer_addr()
            .is_some_and(|peer| self.0.contains(&peer.ip().to_canonical()));
        if trusted {
            let info = request.connection_info();
            return (info.scheme().to_owned(), info.host().to_owned());
        }
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
            .or_else(|| request.uri().authority().map(ToString::to_string))
            .unwrap_or_else(|| request.app_config().host().to_owned());
        ("http".to_owned(), host)
    }
}

/// A wheel's digest, as computed from the disk.
#[derive(Clone, Debug)]
struct Wheel {
    /// Size and modification time when read: another version on disk is
    /// read again.
    stamp: (u64, Option<SystemTime>),
    sha256: String,
    tags: WheelTags,
}

/// The bytes read from a file at a time, for its digest.
const CHUNK: usize = 256 * 1024;

/// The file `name` of `folder` opened for reading if it is one the folder
/// offers: a regular file (a link is not followed, nor swapped in between
/// the check and the opening) with an offered name (see [`offered`]).
/// The file `name` of `folder` ([`open_regular`]) as a download: bytes,
/// an attachment of that name, whatever its name says.
pub(crate) fn attachment(folder: &Path, name: &str) -> Option<NamedFile> {
    let (file, _) = open_regular(folder, name)?;
    // `from_file` reads the open file's metadata again (its ETag and
    // Last-Modified), which cannot fail where the opening did not.
    let file = NamedFile::from_file(file, name).ok()?;
    Some(
        file.set_content_type(mime::APPLICATION_OCTET_STREAM)
            .set_content_disposition(ContentDisposition {
                disposition: DispositionType::Attachment,
                parameters: vec![DispositionParam::Filename(name.to_owned())],
            }),
    )
}

/// A file's download answered: actix-files answers the range and the
/// conditions, and reads the file a chunk at a time on the blocking pool
/// (a file that shrinks meanwhile ends the answer with an error: the
/// client sees it cut short, never other bytes); its refusals as problem
/// details.
pub(crate) fn answer_download(file: NamedFile, request: &HttpRequest) -> HttpResponse {
    let mut response = refusal_as_problem(file.into_response(request));
    response.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

pub(crate) fn open_regular(folder: &Path, name: &str) -> Option<(File, std::fs::Metadata)> {
    let path = folder.join(name);
    let metadata = std::fs::symlink_metadata(&path).ok()?;
    if !metadata.is_file() {
        return None;
    }
    let file = File::open(&path).ok()?;
    let opened = file.metadata().ok()?;
    (opened.is_file() && opened.dev() == metadata.dev() && opened.ino() == metadata.ino())
        .then_some((file, opened))
}

/// A file's version on disk, as the digests are kept: its size and
/// modification time.
pub(crate) fn stamp(metadata: &std::fs::Metadata) -> (u64, Option<SystemTime>) {
    (metadata.len(), metadata.modified().ok())
}

/// The SHA-256 digest of the rest of `file`, 64 lowercase hex digits, or
/// `None` if it cannot be read.
pub fn sha256_of(file: &mut File) -> Option<String> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; CHUNK];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(hex::encode(hasher.finalize()))
}

impl DownloadsDir {
    /// Offers the wheels of `folder`.
    pub fn new(folder: impl Into<PathBuf>) -> DownloadsDir {
        DownloadsDir {
            folder: folder.into(),
            read: Arc::default(),
            tables: super::table_downloads::TableDigests::default(),
        }
    }

    /// The folder.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// The digests of the solved tables' files, shared by the clones.
    pub fn table_digests(&self) -> &super::table_downloads::TableDigests {
        &self.tables
    }

    /// The wheel named `name` opened for download, if this folder offers
    /// it: an attachment of bytes, whatever its name says.
    fn open(&self, name: &str) -> Option<NamedFile> {
        offered(name)?;
        attachment(&self.folder, name)
    }

    /// The digest of the wheel named `name` if this folder offers it.
    /// Hashes the file unless the digest in memory is of the same version
    /// (size and modification time); the lock is not held meanwhile.
    fn wheel(&self, name: &str) -> Option<Wheel> {
        let tags = offered(name)?;
        let (mut file, metadata) = open_regular(&self.folder, name)?;
        let before = stamp(&metadata);
        let cached = self
            .read
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .filter(|w| w.stamp == before)
            .cloned();
        if let Some(wheel) = cached {
            return Some(wheel);
        }
        // Stamped as it was before the reading: a file still being written
        // is hashed again once it is done.
        let wheel = Wheel {
            stamp: before,
            sha256: sha256_of(&mut file)?,
            tags,
        };
        self.read
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_owned(), wheel.clone());
        Some(wheel)
    }

    /// The wheels in the folder with their sizes, sorted by name; the
    /// digests of files gone from it are dropped. A missing folder holds
    /// none; a file that goes while it is read (a wheel being replaced) is
    /// left out.
    fn scan(&self) -> std::io::Result<Vec<(String, u64, Wheel)>> {
        let mut found = Vec::new();
        match std::fs::read_dir(&self.folder) {
            Ok(entries) => {
                for entry in entries {
                    let Some(name) = entry?.file_name().to_str().map(str::to_owned) else {
                        continue;
                    };
                    if let Some(wheel) = self.wheel(&name) {
                        found.push((name, wheel.stamp.0, wheel));
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        self.read
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|name, _| {
                found
                    .binary_search_by(|(n, ..)| n.as_str().cmp(name))
                    .is_ok()
            });
        Ok(found)
    }
}

impl Default for DownloadsDir {
    /// `dist`, in the working directory.
    fn default() -> DownloadsDir {
        DownloadsDir::new("dist")
    }
}

/// The wheels offered, by name, the commands that install the module from
/// this server alone, and the example clients.
#[derive(Debug, Serialize, ToSchema)]
pub struct DownloadList {
    /// Every wheel in the server's downloads folder, sorted by name: the
    /// module's and, once `scripts/wheelhouse` has filled the folder, every
    /// dependency's. Empty when the folder is empty or missing.
    pub files: Vec<Download>,
    /// This listing's address, as the client reached it: the page pip reads
    /// with `--find-links`.
    #[schema(example = "http://127.0.0.1:8080/downloads/")]
    pub find_links: String,
    /// The commands that install the module from this server alone, with
    /// no package index: they work once the folder holds the wheelhouse
    /// (`scripts/wheelhouse`), the wheels of every dependency for the
    /// student's Python.
    pub offline: OfflineCommands,
    /// The example clients in JavaScript (Node 18 or later, no packages),
    /// sorted by name. The Python ones come with the module: `python -m
    /// sternhalma.examples.random_bot`, `python -m
    /// sternhalma.examples.tournament_entrant`.
    pub examples: Vec<ExampleClient>,
}

/// `pip install` from this server alone: `--no-index` (no package index),
/// `--find-links` naming this listing, and, over plain HTTP,
/// `--trusted-host` naming this server (pip ignores a listing on another
/// machine over HTTP without it).
#[derive(Debug, Serialize, ToSchema)]
pub struct OfflineCommands {
    /// The module and numpy.
    #[schema(
        example = "pip install --no-index --find-links http://127.0.0.1:8080/downloads/ --trusted-host 127.0.0.1:8080 sternhalma"
    )]
    pub plain: String,
    /// The class setup of the teaching notebooks: the module with its
    /// `[notebooks]` extra (JupyterLab, matplotlib, requests, nbgrader,
    /// PettingZoo).
    #[schema(
        example = "pip install --no-index --find-links http://127.0.0.1:8080/downloads/ --trusted-host 127.0.0.1:8080 \"sternhalma[notebooks]\""
    )]
    pub notebooks: String,
}

/// One wheel.
#[derive(Debug, Serialize, ToSchema)]
pub struct Download {
    /// The file name.
    #[schema(
        example = "sternhalma-0.1.0-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
    )]
    pub name: String,
    /// Size in bytes.
    #[schema(example = 795141)]
    pub size: u64,
    /// The SHA-256 digest of the file, 64 lowercase hex digits.
    #[schema(example = "3b4c0f8a9d6e2f1a0c5b7e9d8f6a4c2e1b3d5f7a9c8e6d4b2a0f1e3c5d7b9a8f")]
    pub sha256: String,
    /// Its address on this server, as the client reached it.
    #[schema(
        example = "http://127.0.0.1:8080/downloads/sternhalma-0.1.0-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
    )]
    pub url: String,
    /// The command that installs this file alone; its dependencies come
    /// from the package index (or pip's cache). Without internet, use the
    /// listing's `offline` commands.
    #[schema(
        example = "pip install http://127.0.0.1:8080/downloads/sternhalma-0.1.0-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
    )]
    pub pip: String,
    /// Which Pythons and machines it installs on, from its name.
    pub tags: WheelTags,
}

/// An example client, to download and run.
#[derive(Debug, Serialize, ToSchema)]
pub struct ExampleClient {
    /// The file name.
    #[schema(example = "random_bot.js")]
    pub name: String,
    /// Size in bytes.
    #[schema(example = 5120)]
    pub size: u64,
    /// The SHA-256 digest of the file, 64 lowercase hex digits.
    #[schema(example = "3b4c0f8a9d6e2f1a0c5b7e9d8f6a4c2e1b3d5f7a9c8e6d4b2a0f1e3c5d7b9a8f")]
    pub sha256: String,
    /// Its address on this server, as the client reached it.
    #[schema(example = "http://127.0.0.1:8080/downloads/examples/random_bot.js")]
    pub url: String,
    /// How to run it against this server (the words in capitals are the
    /// match's or tournament's).
    #[schema(example = "node random_bot.js http://127.0.0.1:8080 MATCH_ID SEAT TOKEN")]
    pub run: String,
}

/// A wheel's compatibility tags (the last three fields of its name).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct WheelTags {
    /// The Pythons: `cp311` is CPython 3.11 (with `abi3`: and every later
    /// version); `py3` any Python 3.
    #[schema(example = "cp311")]
    pub python: String,
    /// The ABI: `abi3` is CPython's stable ABI, `none` pure Python.
    #[schema(example = "abi3")]
    pub abi: String,
    /// The machines, `.`-separated: `manylinux_2_17_x86_64` is 64-bit
    /// Linux on Intel or AMD with glibc 2.17 or newer; `any` every machine.
    #[schema(example = "manylinux2014_x86_64.manylinux_2_17_x86_64")]
    pub platform: String,
}

/// The example clients compiled into the binary (`examples/clients/`): the
/// name, the text, and the arguments after the server's address.
const EXAMPLES: [(&str, &str, &str); 2] = [
    (
        "random_bot.js",
        include_str!("../../../examples/clients/random_bot.js"),
        "MATCH_ID SEAT TOKEN",
    ),
    (
        "tournament_entrant.js",
        include_str!("../../../examples/clients/tournament_entrant.js"),
        "TOURNAMENT_ID TOKEN",
    ),
];

/// The digests of [`EXAMPLES`], in their order.
static EXAMPLE_DIGESTS: LazyLock<Vec<String>> = LazyLock::new(|| {
    EXAMPLES
        .iter()
        .map(|(_, text, _)| hex::encode(Sha256::digest(text.as_bytes())))
        .collect()
});

/// The text of the example named `name` exactly.
fn example(name: &str) -> Option<&'static str> {
    EXAMPLES
        .iter()
        .find(|(n, ..)| *n == name)
        .map(|(_, text, _)| *text)
}

/// Whether `name` is a wheel of the module itself (not a dependency).
fn ours(name: &str) -> bool {
    name.split('-')
        .next()
        .is_some_and(|project| project.eq_ignore_ascii_case("sternhalma"))
}

/// The tags of `name` if it is a file this server offers: a wheel name of
/// plain characters, not hidden.
pub fn offered(name: &str) -> Option<WheelTags> {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-');
    if name.starts_with('.') || !name.chars().all(plain) {
        return None;
    }
    // name-version(-build)?-python-abi-platform.whl
    let fields: Vec<&str> = name.strip_suffix(".whl")?.split('-').collect();
    if !(5..=6).contains(&fields.len()) || fields.iter().any(|f| f.is_empty()) {
        return None;
    }
    let [python, abi, platform] = fields[fields.len() - 3..] else {
        return None;
    };
    Some(WheelTags {
        python: python.to_owned(),
        abi: abi.to_owned(),
        platform: platform.to_owned(),
    })
}

/// Whether the client prefers HTML (a browser) to JSON: `text/html` ranks
/// before `application/json` in its `Accept`. Anything else, `*/*` or no
/// `Accept` at all, is answered JSON.
fn wants_html(request: &HttpRequest) -> bool {
    let Ok(accept) = <Accept as header::Header>::parse(request) else {
        return false;
    };
    accept
        .ranked()
        .iter()
        .find_map(
            |mime| match (mime.type_().as_str(), mime.subtype().as_str()) {
                ("text", "html") => Some(true),
                ("application", "json") => Some(false),
                _ => None,
            },
        )
        .unwrap_or(false)
}

fn unreadable(dir: &Path, error: &std::io::Error) -> ApiError {
    tracing::error!(folder = %dir.display(), %error, "cannot read the downloads folder");
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "downloads_unreadable",
        "Internal error",
        "the server cannot read its downloads folder",
    )
}

/// The wheels this server offers (the Python module's, and its
/// dependencies' once `scripts/wheelhouse` has filled the folder), the
/// commands that install the module, and the example clients.
///
/// `pip install http://<server>/downloads/<wheel>` needs no Rust
/// toolchain; `pip install --no-index --find-links
/// http://<server>/downloads/ --trusted-host <server> "sternhalma[notebooks]"`
/// (the listing's `offline` commands) needs no internet either. JSON by
/// default; a browser (`Accept: text/html` before `application/json`) gets
/// a page with links, which pip also reads as `--find-links`. A server
/// without wheels (its downloads folder empty or missing) lists none.
#[utoipa::path(
    tag = "downloads",
    responses(
        (status = 200, description = "The wheels, sorted by name, the install commands and the examples", headers(("Vary" = String, description = "`Accept`: JSON or HTML")), content(
            (DownloadList = "application/json"),
            (String = "text/html"),
        )),
        (status = 500, description = "The downloads folder exists but cannot be read (`downloads_unreadable`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/downloads/")]
pub async fn list_downloads(
    request: HttpRequest,
    dir: web::Data<DownloadsDir>,
    proxies: web::Data<TrustedProxies>,
    base_path: web::Data<BasePath>,
) -> Result<HttpResponse, ApiError> {
    let downloads = dir.get_ref().clone();
    let found = web::block(move || downloads.scan())
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(|e| unreadable(dir.folder(), &e))?;
    let (scheme, host) = proxies.origin(&request);
    // The server's address as clients outside see it: under its base path.
    let origin = format!("{scheme}://{host}{}", base_path.as_str());
    let base = format!("{origin}/downloads/");
    let files: Vec<Download> = found
        .into_iter()
        .map(|(name, size, wheel)| {
            let url = format!("{base}{name}");
            Download {
                pip: format!("pip install {url}"),
                url,
                name,
                size,
                sha256: wheel.sha256,
                tags: wheel.tags,
            }
        })
        .collect();
    // pip reads a --find-links page over plain HTTP only from the machine
    // itself, or from a host it is told to trust.
    let trust = if scheme == "http" {
        format!(" --trusted-host {host}")
    } else {
        String::new()
    };
    let offline = format!("pip install --no-index --find-links {base}{trust}");
    let offline = OfflineCommands {
        plain: format!("{offline} sternhalma"),
        notebooks: format!("{offline} \"sternhalma[notebooks]\""),
    };
    let examples = EXAMPLES
        .iter()
        .zip(EXAMPLE_DIGESTS.iter())
        .map(|((name, text, arguments), sha256)| ExampleClient {
            name: (*name).to_owned(),
            size: text.len() as u64,
            sha256: sha256.clone(),
            url: format!("{base}examples/{name}"),
            run: format!("node {name} {origin} {arguments}"),
        })
        .collect();
    let list = DownloadList {
        files,
        find_links: base,
        offline,
        examples,
    };
    let mut response = HttpResponse::Ok();
    response.insert_header((header::VARY, "Accept"));
    if wants_html(&request) {
        crate::pages::secured(&mut response);
        return Ok(response
            .content_type("text/html; charset=utf-8")
            .body(page(&list, &origin, &base_path)?));
    }
    Ok(response.json(list))
}

/// The listing as a page (`api/templates/downloads.html`): the install
/// commands, the example clients, and a table of links (the module's
/// wheels, then the dependencies' under a summary). Links are relative,
/// with their digests, so pip's `--find-links` follows them.
#[derive(askama::Template)]
#[template(path = "downloads.html")]
struct DownloadsPage<'a> {
    /// The server's address as the client reached it, under its base path.
    origin: &'a str,
    offline: &'a OfflineCommands,
    examples: &'a [ExampleClient],
    /// The module's own wheels.
    module: Vec<&'a Download>,
    /// Every other wheel.
    dependencies: Vec<&'a Download>,
    /// The dependencies' size in MiB.
    dependency_mib: f64,
}

/// The listing as a page, its absolute links under `base_path`.
fn page(list: &DownloadList, origin: &str, base_path: &BasePath) -> Result<String, ApiError> {
    let (module, dependencies): (Vec<&Download>, Vec<&Download>) =
        list.files.iter().partition(|file| ours(&file.name));
    let bytes: u64 = dependencies.iter().map(|file| file.size).sum();
    let page = DownloadsPage {
        origin,
        offline: &list.offline,
        examples: &list.examples,
        module,
        dependencies,
        dependency_mib: bytes as f64 / f64::from(1 << 20),
    };
    let html = askama::Template::render(&page).map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(crate::pages::under(&html, base_path))
}

/// A file's bytes, as they are on the disk.
#[derive(ToSchema)]
#[schema(value_type = String, format = Binary)]
pub struct FileBytes(pub Vec<u8>);

/// The file to download.
#[derive(Debug, serde::Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct DownloadPath {
    /// A file name from the listing (`GET /downloads/`).
    #[param(
        example = "sternhalma-0.1.0-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
    )]
    pub file: String,
}

/// One wheel from the listing, as it is on the server's disk.
///
/// What `pip install http://<server>/downloads/<wheel>` fetches, and pip
/// with `--find-links http://<server>/downloads/`. Any name the listing
/// does not offer (another file, a hidden one, `..`, a path) is a 404.
///
/// A download that was cut can go on where it stopped: `Range` with one
/// range of bytes (`bytes=1000-` for all after the first 1,000; `If-Range`
/// with the ETag or Last-Modified) is answered 206 with those bytes, 416
/// if the range is not within the file. A client that has the file
/// already revalidates it: `If-None-Match` with its ETag (or
/// `If-Modified-Since`) is answered 304 while the file on disk is the
/// same. `If-Match` and `If-Unmodified-Since` are honoured too (412).
#[utoipa::path(
    tag = "downloads",
    params(DownloadPath),
    responses(
        (status = 200, description = "The wheel's bytes", content_type = "application/octet-stream", body = FileBytes,
            headers(
                ("Content-Length" = u64, description = "The file's size in bytes"),
                ("Content-Disposition" = String, description = "`attachment` with the file name"),
                ("ETag" = String, description = "The file's version on disk (its inode, size and modification time)"),
                ("Last-Modified" = String, description = "When the file was last written"),
                ("Accept-Ranges" = String, description = "`bytes`: a download may ask for a range"),
            )),
        (status = 206, description = "The range of the wheel's bytes asked for (`Range`)", content_type = "application/octet-stream", body = FileBytes,
            headers(
                ("Content-Range" = String, description = "The bytes sent and the file's size, e.g. `bytes 0-1023/795141`"),
                ("Content-Length" = u64, description = "The range's size in bytes"),
                ("Content-Disposition" = String, description = "`attachment` with the file name"),
                ("ETag" = String, description = "The file's version on disk"),
                ("Last-Modified" = String, description = "When the file was last written"),
            )),
        (status = 304, description = "Not modified: the client's copy (`If-None-Match`, `If-Modified-Since`) is the file on disk; no body",
            headers(
                ("ETag" = String, description = "The file's version on disk"),
            )),
        (status = 400, description = "A `Range` header that is not ASCII text (`malformed_range`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such wheel here (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "The file on disk is not the version `If-Match` or `If-Unmodified-Since` names (`precondition_failed`)", body = Problem, content_type = "application/problem+json"),
        (status = 416, description = "The range is not within the file (`range_not_satisfiable`)", body = Problem, content_type = "application/problem+json",
            headers(
                ("Content-Range" = String, description = "The file's size, e.g. `bytes */795141`"),
            )),
    )
)]
#[get("/downloads/{file}")]
pub async fn download_file(
    request: HttpRequest,
    path: web::Path<DownloadPath>,
    dir: web::Data<DownloadsDir>,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner().file;
    let downloads = dir.get_ref().clone();
    let file = web::block(move || downloads.open(&name))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .ok_or_else(|| {
            ApiError::not_found("no such file here; the wheels are listed at /downloads/")
        })?;
    Ok(answer_download(file, &request))
}

/// actix-files refuses a failed condition, a range out of the file and an
/// unreadable `Range` with an empty body: here they are problem details,
/// as every error of the API, with actix-files' headers (`Content-Range`,
/// `ETag`, `Last-Modified`) kept.
fn refusal_as_problem(response: HttpResponse) -> HttpResponse {
    let status = response.status();
    let error = match status {
        StatusCode::PRECONDITION_FAILED => ApiError::new(
            status,
            "precondition_failed",
            "Precondition failed",
            "the file on disk is not the version If-Match or If-Unmodified-Since names",
        ),
        StatusCode::RANGE_NOT_SATISFIABLE => ApiError::new(
            status,
            "range_not_satisfiable",
            "Range not satisfiable",
            "the range is not within the file; Content-Range gives its size",
        ),
        StatusCode::BAD_REQUEST => {
            ApiError::bad_request("malformed_range", "the Range header is not ASCII text")
        }
        _ => return response,
    };
    let mut problem = error.error_response();
    for name in [header::CONTENT_RANGE, header::ETAG, header::LAST_MODIFIED] {
        if let Some(value) = response.headers().get(&name) {
            problem.headers_mut().insert(name, value.clone());
        }
    }
    problem
}

/// The example client to download.
#[derive(Debug, serde::Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ExamplePath {
    /// An example's name from the listing (`examples` of `GET
    /// /downloads/`).
    #[param(example = "random_bot.js")]
    pub file: String,
}

/// An example client in JavaScript, to run with Node 18 or later.
///
/// The text of `examples/clients/<file>` as compiled into this server, so
/// it speaks this server's API: `curl -O
/// http://<server>/downloads/examples/random_bot.js`, then `node
/// random_bot.js http://<server> MATCH_ID SEAT TOKEN`. Any other name is a
/// 404.
#[utoipa::path(
    tag = "downloads",
    params(ExamplePath),
    responses(
        (status = 200, description = "The script", content_type = "text/javascript; charset=utf-8", body = String,
            headers(
                ("Content-Disposition" = String, description = "`attachment` with the file name"),
            )),
        (status = 404, description = "No such example (`not_found`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/downloads/examples/{file}")]
pub async fn download_example(path: web::Path<ExamplePath>) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner().file;
    let text = example(&name).ok_or_else(|| {
        ApiError::not_found("no such example; the examples are listed at /downloads/")
    })?;
    Ok(HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header(ContentDisposition {
            disposition: DispositionType::Attachment,
            parameters: vec![DispositionParam::Filename(name)],
        })
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offers_wheel_names_only() {
        let tags =
            offered("sternhalma-0.1.0-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl")
                .unwrap();
        assert_eq!(tags.python, "cp311");
        assert_eq!(tags.abi, "abi3");
        assert_eq!(tags.platform, "manylinux2014_x86_64.manylinux_2_17_x86_64");
        assert!(offered("sternhalma-0.1.0-1-cp311-abi3-linux_x86_64.whl").is_some());
        // The names of a wheelhouse (scripts/wheelhouse): pure and compiled,
        // several platform tags, capitals, a build number, a local version.
        for name in [
            "jupyterlab-4.4.9-py3-none-any.whl",
            "numpy-2.3.3-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
            "numpy-2.2.6-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
            "charset_normalizer-3.4.3-cp312-cp312-manylinux1_x86_64.manylinux_2_28_x86_64.manylinux_2_5_x86_64.whl",
            "psutil-7.1.0-cp36-abi3-manylinux2010_x86_64.manylinux_2_12_x86_64.manylinux_2_28_x86_64.whl",
            "debugpy-1.8.17-py2.py3-none-any.whl",
            "MarkupSafe-3.0.2-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
            "prompt_toolkit-3.0.52-py3-none-any.whl",
            "certifi-2025.8.3.post1-py3-none-any.whl",
            "torch-2.8.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl",
            "pyzmq-27.1.0-cp312-abi3-manylinux_2_26_x86_64.manylinux_2_28_x86_64.whl",
            "tornado-6.5.2-cp39-abi3-manylinux_2_5_x86_64.manylinux1_x86_64.manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
            "widgetsnbextension-4.0.14-2-py3-none-any.whl",
        ] {
            assert!(offered(name).is_some(), "{name}");
        }
        let numpy =
            offered("numpy-2.3.3-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl")
                .unwrap();
        assert_eq!(
            (numpy.python.as_str(), numpy.abi.as_str()),
            ("cp311", "cp311")
        );
        assert_eq!(
            numpy.platform,
            "manylinux_2_27_x86_64.manylinux_2_28_x86_64"
        );
        for name in [
            "..",
            ".",
            "",
            ".hidden-0.1.0-cp311-abi3-any.whl",
            "../sternhalma-0.1.0-cp311-abi3-any.whl",
            "a/b-0.1.0-cp311-abi3-any.whl",
            "a\\b-0.1.0-cp311-abi3-any.whl",
            "sternhalma-0.1.0.tar.gz",
            "notes.txt",
            "x.whl",
            "a-b-c-d.whl",
            "a--cp311-abi3-any.whl",
            "a-0.1-cp311-abi3-any.whl\0",
            "a b-0.1-cp311-abi3-any.whl",
            "a-0.1-cp311-abi3-<script>.whl",
        ] {
            assert_eq!(offered(name), None, "{name:?}");
        }
    }

    #[test]
    fn tells_the_module_from_its_dependencies() {
        assert!(ours(
            "sternhalma-0.1.0-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
        ));
        assert!(ours("Sternhalma-0.2.0-py3-none-any.whl"));
        assert!(!ours("sternhalma_extra-0.1.0-py3-none-any.whl"));
        assert!(!ours("numpy-2.3.3-cp311-cp311-manylinux_2_28_x86_64.whl"));
    }

    #[test]
    fn examples_are_the_compiled_in_names_only() {
        for (name, text, _) in EXAMPLES {
            assert_eq!(example(name), Some(text));
            assert!(text.starts_with("#!/usr/bin/env node"), "{name}");
        }
        for name in [
            "",
            ".",
            "..",
            "random_bot.py",
            "RANDOM_BOT.JS",
            "random_bot.js ",
            "../random_bot.js",
            "examples/random_bot.js",
        ] {
            assert_eq!(example(name), None, "{name:?}");
        }
    }
}
