//! The web board: the pages a class watches, replays and plays matches
//! and follows tournaments on, served by the same binary as the API and
//! from the same origin.
//!
//! The pages and their scripts live in `api/web/` and are compiled into
//! the binary ([`rust_embed`]), so a server on a LAN with no internet
//! serves them whole: no CDN, no outside fonts. Each page is a small HTML
//! file with one ES module; every board is the core's SVG
//! (`/v1/matches/{id}/board.svg`, `/v1/render.svg`), and the rules stay on
//! the server (legal moves come from the API). `sternhalma serve --web-dir
//! api/web` serves the folder from disk instead, to edit the pages without
//! rebuilding.
//!
//! Every answer here carries a Content-Security-Policy that allows only
//! this origin's scripts, styles and connections, and no inline script: a
//! match or seat name can never run as code. Tokens travel in the page's
//! URL fragment or session storage, which browsers never send to a server,
//! and in `Authorization` headers, which the access log leaves out.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use actix_web::http::header::{self, EntityTag, Header as _, IfNoneMatch};
use actix_web::{HttpRequest, HttpResponse, web};
use sternhalma::{Triangle, triangle_colour};

use sternhalma_http::error::ApiError;

use crate::base_path::BasePath;

/// The compiled-in copy of `api/web/`.
#[derive(rust_embed::Embed)]
#[folder = "web/"]
struct Embedded;

/// Where the pages come from.
#[derive(Clone, Debug, Default)]
pub enum WebAssets {
    /// The copy compiled into the binary (the default).
    #[default]
    Embedded,
    /// A folder on disk, read at each request (`--web-dir`, for editing
    /// the pages without rebuilding).
    Dir(PathBuf),
}

impl WebAssets {
    fn read(&self, name: &str) -> Option<(Cow<'static, [u8]>, String)> {
        match self {
            WebAssets::Embedded => {
                let file = Embedded::get(name)?;
                let hash = hex::encode(&file.metadata.sha256_hash()[..12]);
                Some((file.data, hash))
            }
            WebAssets::Dir(dir) => {
                // Only plain names below the folder: no `..`, no absolute
                // paths, so a request cannot read elsewhere on the disk.
                let relative = Path::new(name);
                if !relative
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)))
                {
                    return None;
                }
                let data = std::fs::read(dir.join(relative)).ok()?;
                let hash = format!("{:x}-{}", data.len(), fnv(&data));
                Some((Cow::Owned(data), hash))
            }
        }
    }
}

/// A short, stable digest for the ETag of a file read from disk.
fn fnv(data: &[u8]) -> String {
    let hash = data.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// The policy every page and asset is served with: scripts, styles,
/// images and connections from this origin only; no inline script, no
/// plugin, no framing, no `<base>`.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; \
     manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The pages: the path pattern and the file that answers it.
pub const PAGES: &[(&str, &str)] = &[
    ("/", "index.html"),
    ("/matches/{id}", "match.html"),
    ("/matches/{id}/replay", "replay.html"),
    ("/replay", "replay.html"),
    ("/tournaments/{id}", "tournament.html"),
    ("/tournaments/{id}/play", "entrant.html"),
    ("/explorer", "explorer.html"),
];

/// Registers the pages and `/assets/...`.
pub fn configure(config: &mut web::ServiceConfig) {
    for &(path, file) in PAGES {
        config.route(
            path,
            web::get().to(
                move |request: HttpRequest,
                      assets: web::Data<WebAssets>,
                      base: web::Data<BasePath>| async move {
                    serve(&request, &assets, &base, file)
                },
            ),
        );
    }
    config
        .route("/assets/palette.css", web::get().to(palette))
        .route(
            "/assets/{name:.*}",
            web::get().to(
                |request: HttpRequest,
                 name: web::Path<String>,
                 assets: web::Data<WebAssets>,
                 base: web::Data<BasePath>| async move {
                    serve(&request, &assets, &base, &format!("assets/{name}"))
                },
            ),
        );
}

fn content_type(name: &str) -> &'static str {
    match name.rsplit_once('.').map(|(_, extension)| extension) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// The headers of every page and asset: the policy and its companions.
pub(crate) fn secured(
    response: &mut actix_web::HttpResponseBuilder,
) -> &mut actix_web::HttpResponseBuilder {
    response
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
}

fn serve(
    request: &HttpRequest,
    assets: &WebAssets,
    base: &BasePath,
    name: &str,
) -> Result<HttpResponse, ApiError> {
    let Some((mut data, mut hash)) = assets.read(name) else {
        return Err(ApiError::not_found(format!("no file {}", request.path())));
    };
    if !base.is_none() && name.ends_with(".html") {
        let page = under(&String::from_utf8_lossy(&data), base).into_bytes();
        hash = format!("{:x}-{}", page.len(), fnv(&page));
        data = Cow::Owned(page);
    }
    let tag = EntityTag::new_strong(hash);
    let unchanged = matches!(
        IfNoneMatch::parse(request),
        Ok(IfNoneMatch::Items(tags)) if tags.iter().any(|t| t.weak_eq(&tag))
    );
    let mut response = if unchanged {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    secured(&mut response)
        .insert_header(header::ETag(tag))
        // Revalidated at each load: a new server version is picked up at
        // once, an unchanged file costs a 304.
        .insert_header(header::CacheControl(vec![header::CacheDirective::NoCache]));
    if unchanged {
        return Ok(response.finish());
    }
    Ok(response
        .content_type(content_type(name))
        .body(data.into_owned()))
}

/// The meta element that tells the pages' scripts the base path
/// (`api.js` reads it): a `<base>` element would do it for relative links,
/// but the policy forbids it (`base-uri 'none'`), and the pages name paths
/// absolutely.
pub const BASE_META: &str = "sternhalma-base";

/// A page as served under `base`: every `href="/..."` and `src="/..."`
/// names the path under the prefix, and the head tells the scripts the
/// prefix (`<meta name="sternhalma-base" content="/services/game">`). The
/// prefix is made of URL characters that need no escaping in HTML.
/// Without a prefix, the page as it is.
pub fn under(html: &str, base: &BasePath) -> String {
    if base.is_none() {
        return html.to_owned();
    }
    let mut page = String::with_capacity(html.len() + 64 * base.as_str().len());
    let mut rest = html;
    while let Some(at) = next_absolute_link(rest) {
        page.push_str(&rest[..at]);
        page.push_str(base.as_str());
        rest = &rest[at..];
    }
    page.push_str(rest);
    if let Some(head) = page.find("<head>") {
        page.insert_str(
            head + "<head>".len(),
            &format!("\n  <meta name=\"{BASE_META}\" content=\"{base}\">"),
        );
    }
    page
}

/// Where in `html` the value of the next `href` or `src` attribute that
/// names a path of this server (`/...`, not `//host`) starts.
fn next_absolute_link(html: &str) -> Option<usize> {
    ["href=\"/", "src=\"/"]
        .iter()
        .filter_map(|needle| {
            html.match_indices(needle)
                .find(|&(at, _)| {
                    let value = at + needle.len() - 1;
                    // An attribute of its own (not `data-href`), naming a
                    // path (not `//other.example`).
                    html[..at].ends_with(|c: char| c.is_ascii_whitespace())
                        && !html[value..].starts_with("//")
                })
                .map(|(at, _)| at + needle.len() - 1)
        })
        .min()
}

/// The set colours as CSS custom properties and classes, from the core's
/// palette ([`triangle_colour`]): the seats' swatches on every page are the
/// colours of the pegs on the board.
pub fn palette_css() -> String {
    let mut css =
        String::from("/* The set colours, from the core's palette (src/svg.rs). */\n:root {\n");
    for triangle in Triangle::ALL {
        css.push_str(&format!(
            "  --set-{}: {};\n",
            triangle.name().replace('_', "-"),
            triangle_colour(triangle)
        ));
    }
    css.push_str("}\n");
    for triangle in Triangle::ALL {
        css.push_str(&format!(
            ".set-{} {{ --set: {}; }}\n",
            triangle.name().replace('_', "-"),
            triangle_colour(triangle)
        ));
    }
    css
}

async fn palette() -> HttpResponse {
    let mut response = HttpResponse::Ok();
    secured(&mut response)
        .insert_header(header::CacheControl(vec![header::CacheDirective::NoCache]))
        .content_type("text/css; charset=utf-8")
        .body(palette_css())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_under_a_prefix_names_its_paths_there() {
        let base: BasePath = "/game".parse().unwrap();
        let page = "<html>\n<head>\n  <link href=\"/assets/a.css\">\n</head>\n\
                    <a href=\"/\">home</a> <script src=\"/assets/js/x.js\"></script>\n\
                    <a href=\"#main\">skip</a> <a href=\"//cdn.example/x\">far</a>\n\
                    <a data-href=\"/kept\" href=\"relative\">r</a>";
        assert_eq!(
            under(page, &base),
            "<html>\n<head>\n  <meta name=\"sternhalma-base\" content=\"/game\">\n  \
             <link href=\"/game/assets/a.css\">\n</head>\n\
             <a href=\"/game/\">home</a> <script src=\"/game/assets/js/x.js\"></script>\n\
             <a href=\"#main\">skip</a> <a href=\"//cdn.example/x\">far</a>\n\
             <a data-href=\"/kept\" href=\"relative\">r</a>"
        );
        assert_eq!(under(page, &BasePath::default()), page);
    }
}
