//! Wheels of the Python module, offered for download: a class on a LAN
//! installs `sternhalma` with pip from the teacher's server, with no Rust
//! toolchain. `scripts/wheel` builds the wheel into `dist/`; `sternhalma
//! serve --downloads-dir` names the folder served.
//!
//! Only wheels are offered: regular files (not links) directly in the
//! folder, not hidden, whose names are wheel names (`*.whl` with its tags)
//! made of letters, digits and `._+-`. A download names one of them exactly;
//! any other name (`..`, a path, a hidden or unlisted file) is a 404, so a
//! request cannot read anything else on the disk.

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use actix_web::http::StatusCode;
use actix_web::http::header::{
    self, Accept, ContentDisposition, DispositionParam, DispositionType,
};
use actix_web::{HttpRequest, HttpResponse, get, web};
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::service_config::ServiceConfig;

use sternhalma_http::error::{ApiError, Problem};

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config.service(list_downloads).service(download_file);
}

/// The folder whose wheels `/downloads/` offers (`--downloads-dir`; by
/// default `dist` in the server's working directory), and the wheels read
/// from it. A folder that does not exist offers nothing.
///
/// Each wheel is read once per version on disk (its size and modification
/// time) and kept in memory with its digest: a class downloading at once
/// shares one copy, and a listing hashes nothing twice. Clones share the
/// copies; build one per server.
#[derive(Clone, Debug)]
pub struct DownloadsDir {
    folder: PathBuf,
    read: Arc<Mutex<HashMap<String, Wheel>>>,
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

/// A wheel as read from the disk.
#[derive(Clone, Debug)]
struct Wheel {
    /// Size and modification time when read: another version on disk is
    /// read again.
    stamp: (u64, Option<SystemTime>),
    bytes: web::Bytes,
    sha256: String,
    tags: WheelTags,
}

impl DownloadsDir {
    /// Offers the wheels of `folder`.
    pub fn new(folder: impl Into<PathBuf>) -> DownloadsDir {
        DownloadsDir {
            folder: folder.into(),
            read: Arc::default(),
        }
    }

    /// The folder.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// The wheel named `name` if this folder offers it: an offered name
    /// (see [`offered`]) of a regular file (a link is not followed). Reads
    /// it unless the copy in memory is of the same version.
    fn wheel(&self, name: &str) -> Option<Wheel> {
        let tags = offered(name)?;
        let path = self.folder.join(name);
        let metadata = std::fs::symlink_metadata(&path).ok()?;
        if !metadata.is_file() {
            return None;
        }
        let stamp = (metadata.len(), metadata.modified().ok());
        let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(wheel) = read.get(name).filter(|w| w.stamp == stamp) {
            return Some(wheel.clone());
        }
        // Stamped as read: a file still being written is read again once
        // it is done.
        let bytes = std::fs::read(&path).ok()?;
        let stamp = (bytes.len() as u64, metadata.modified().ok());
        let wheel = Wheel {
            stamp,
            sha256: hex(&Sha256::digest(&bytes)),
            bytes: web::Bytes::from(bytes),
            tags,
        };
        read.insert(name.to_owned(), wheel.clone());
        Some(wheel)
    }

    /// The wheels in the folder, sorted by name; the copies of files gone
    /// from it are dropped. A missing folder holds none; a file that goes
    /// while it is read (a wheel being replaced) is left out.
    fn scan(&self) -> std::io::Result<Vec<(String, Wheel)>> {
        let mut found = Vec::new();
        match std::fs::read_dir(&self.folder) {
            Ok(entries) => {
                for entry in entries {
                    let Some(name) = entry?.file_name().to_str().map(str::to_owned) else {
                        continue;
                    };
                    if let Some(wheel) = self.wheel(&name) {
                        found.push((name, wheel));
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
            .retain(|name, _| found.iter().any(|(n, _)| n == name));
        Ok(found)
    }
}

impl Default for DownloadsDir {
    /// `dist`, in the working directory.
    fn default() -> DownloadsDir {
        DownloadsDir::new("dist")
    }
}

/// The wheels offered, by name.
#[derive(Debug, Serialize, ToSchema)]
pub struct DownloadList {
    /// Every wheel in the server's downloads folder, sorted by name; empty
    /// when the folder is empty or missing.
    pub files: Vec<Download>,
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
    /// The command that installs it; numpy, its dependency, comes from the
    /// package index (or pip's cache).
    #[schema(
        example = "pip install http://127.0.0.1:8080/downloads/sternhalma-0.1.0-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
    )]
    pub pip: String,
    /// Which Pythons and machines it installs on, from its name.
    pub tags: WheelTags,
}

/// A wheel's compatibility tags (the last three fields of its name).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct WheelTags {
    /// The Pythons: `cp311` is CPython 3.11 (with `abi3`: and every later
    /// version).
    #[schema(example = "cp311")]
    pub python: String,
    /// The ABI: `abi3` is CPython's stable ABI.
    #[schema(example = "abi3")]
    pub abi: String,
    /// The machines, `.`-separated: `manylinux_2_17_x86_64` is 64-bit
    /// Linux on Intel or AMD with glibc 2.17 or newer.
    #[schema(example = "manylinux2014_x86_64.manylinux_2_17_x86_64")]
    pub platform: String,
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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

/// The wheels of the Python module this server offers, each with the
/// command that installs it.
///
/// `pip install http://<server>/downloads/<wheel>` needs no Rust
/// toolchain. JSON by default; a browser (`Accept:
/// text/html` before `application/json`) gets a page with links, which pip
/// also reads as `--find-links`. A server without wheels (its downloads
/// folder empty or missing) answers an empty list.
#[utoipa::path(
    tag = "downloads",
    responses(
        (status = 200, description = "The wheels, sorted by name", headers(("Vary" = String, description = "`Accept`: JSON or HTML")), content(
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
) -> Result<HttpResponse, ApiError> {
    let downloads = dir.get_ref().clone();
    let found = web::block(move || downloads.scan())
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(|e| unreadable(dir.folder(), &e))?;
    let (scheme, host) = proxies.origin(&request);
    let base = format!("{scheme}://{host}/downloads/");
    let files: Vec<Download> = found
        .into_iter()
        .map(|(name, wheel)| {
            let url = format!("{base}{name}");
            Download {
                pip: format!("pip install {url}"),
                url,
                name,
                size: wheel.bytes.len() as u64,
                sha256: wheel.sha256,
                tags: wheel.tags,
            }
        })
        .collect();
    let mut response = HttpResponse::Ok();
    response.insert_header((header::VARY, "Accept"));
    if wants_html(&request) {
        crate::pages::secured(&mut response);
        return Ok(response
            .content_type("text/html; charset=utf-8")
            .body(page(&files)));
    }
    Ok(response.json(DownloadList { files }))
}

/// The listing as a page: a table of links and the pip commands. Links are
/// relative, so pip's `--find-links` follows them too.
fn page(files: &[Download]) -> String {
    let mut html = String::from(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"utf-8\">\n  \
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n  \
         <title>Downloads · Sternhalma</title>\n  \
         <link rel=\"icon\" href=\"/assets/favicon.svg\" type=\"image/svg+xml\">\n  \
         <link rel=\"stylesheet\" href=\"/assets/site.css\">\n</head>\n<body>\n  \
         <header class=\"site\">\n    <nav aria-label=\"Site\">\n      \
         <a class=\"brand\" href=\"/\">Sternhalma</a>\n      <a href=\"/explorer\">Explorer</a>\n      \
         <a href=\"/downloads/\" aria-current=\"page\">Downloads</a>\n      \
         <a href=\"/docs/\">API</a>\n    </nav>\n  </header>\n  <main id=\"main\">\n    \
         <h1>The Python module</h1>\n",
    );
    if files.is_empty() {
        html.push_str(
            "    <p>No wheels here yet. The teacher builds one with <code>scripts/wheel</code> \
             and serves its folder (<code>sternhalma serve --downloads-dir dist</code>).</p>\n",
        );
    } else {
        html.push_str(
            "    <p>Install with one command, no Rust needed. A file's name ends with \
             where it works: <code>cp311-abi3</code> is CPython 3.11 or newer, \
             <code>manylinux_2_17_x86_64</code> 64-bit Linux on Intel or AMD with glibc 2.17 \
             or newer.</p>\n    <div class=\"table-wrap\">\n    <table>\n      \
             <thead><tr><th scope=\"col\">File</th><th scope=\"col\" class=\"num\">Bytes</th>\
             <th scope=\"col\">Install</th><th scope=\"col\">SHA-256</th></tr></thead>\n      <tbody>\n",
        );
        for file in files {
            html.push_str(&format!(
                "        <tr><td><a href=\"{name}#sha256={sha}\">{name}</a></td>\
                 <td class=\"num\">{size}</td><td><code>{pip}</code></td>\
                 <td><code>{sha}</code></td></tr>\n",
                name = escape(&file.name),
                sha = file.sha256,
                size = file.size,
                pip = escape(&file.pip),
            ));
        }
        html.push_str("      </tbody>\n    </table>\n    </div>\n");
    }
    html.push_str("  </main>\n</body>\n</html>\n");
    html
}

/// Text for HTML: the host in the pip command comes from the request.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
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
/// What `pip install http://<server>/downloads/<wheel>` fetches. Any name
/// the listing does not offer (another file, a hidden one, `..`, a path)
/// is a 404.
#[utoipa::path(
    tag = "downloads",
    params(DownloadPath),
    responses(
        (status = 200, description = "The wheel's bytes", content_type = "application/octet-stream", body = FileBytes,
            headers(
                ("Content-Length" = u64, description = "The file's size in bytes"),
                ("Content-Disposition" = String, description = "`attachment` with the file name"),
            )),
        (status = 404, description = "No such wheel here (`not_found`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/downloads/{file}")]
pub async fn download_file(
    path: web::Path<DownloadPath>,
    dir: web::Data<DownloadsDir>,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner().file;
    let downloads = dir.get_ref().clone();
    let wanted = name.clone();
    let wheel = web::block(move || downloads.wheel(&wanted))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .ok_or_else(|| {
            ApiError::not_found("no such file here; the wheels are listed at /downloads/")
        })?;
    Ok(HttpResponse::Ok()
        .content_type("application/octet-stream")
        .insert_header(ContentDisposition {
            disposition: DispositionType::Attachment,
            parameters: vec![DispositionParam::Filename(name)],
        })
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(wheel.bytes))
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
}
