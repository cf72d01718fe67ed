//! The server's layers, as `docs/architecture.md` draws them: the store
//! crate builds without the web framework, no module of the server's
//! crates, or of the Python binding's, imports, through others, itself,
//! and neither the core nor the server keeps a registry of solved tables.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("api/ is inside the workspace")
        .to_owned()
}

/// The packages `cargo tree -p package` lists (`-e edges`, and `extra`
/// arguments), one name each; `cargo tree` failing fails the test.
fn tree(package: &str, edges: &str, extra: &[&str]) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(workspace())
        .args(["tree", "--offline", "-p", package, "-e", edges])
        .args(["--prefix", "none", "--format", "{p}"])
        .args(extra)
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// The packages `package` depends on to build (normal dependencies,
/// transitively, with the features the workspace resolves).
fn normal_dependencies(package: &str) -> BTreeSet<String> {
    tree(package, "normal", &[])
}

#[test]
fn the_store_builds_without_the_web_framework() {
    let store = normal_dependencies("sternhalma-store");
    assert!(store.contains("rusqlite"), "the tree was read: {store:?}");
    let web: Vec<&String> = store
        .iter()
        .filter(|name| name.starts_with("actix") || name.starts_with("sternhalma-http"))
        .collect();
    assert!(web.is_empty(), "sternhalma-store depends on {web:?}");
}

#[test]
fn the_heavy_work_pool_builds_without_the_web_framework_or_a_database() {
    let pool = normal_dependencies("sternhalma-pool");
    assert!(pool.contains("tokio"), "the tree was read: {pool:?}");
    let outside: Vec<&String> = pool
        .iter()
        .filter(|name| {
            name.starts_with("actix")
                || name.starts_with("sternhalma-") && name.as_str() != "sternhalma-pool"
                || ["rusqlite", "postgres"].contains(&name.as_str())
        })
        .collect();
    assert!(outside.is_empty(), "sternhalma-pool depends on {outside:?}");
}

#[test]
fn background_work_speaks_no_http() {
    // The bot runner and the tournament director answer no request: they
    // use the store, the pool and the core, never the HTTP crate.
    let server = modules(&workspace().join("api/src"));
    for module in ["runner", "director", "failure"] {
        let code = server
            .get(module)
            .unwrap_or_else(|| panic!("api/src/{module}.rs was read"));
        assert!(
            !code.contains("sternhalma_http") && !code.contains("actix_web::web"),
            "api/src/{module}.rs reaches into the HTTP layer"
        );
    }
}

#[test]
fn the_stateless_surface_builds_without_a_database() {
    // Without its `store` feature (the server turns it on for the one
    // `From` that maps store errors), sternhalma-http needs no driver.
    let alone = tree(
        "sternhalma-http",
        "normal,no-proc-macro",
        &["--no-default-features"],
    );
    for driver in ["rusqlite", "postgres", "sternhalma-store"] {
        assert!(
            !alone.contains(driver),
            "sternhalma-http alone depends on {driver}"
        );
    }
    assert!(alone.contains("actix-web"));
}

/// Every module of the crate whose sources are under `root`, by path
/// (`matches::game`), with its source (comments and unit tests left out).
fn modules(root: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let mut folders = vec![root.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let relative = path.strip_prefix(root).unwrap().with_extension("");
            let mut parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                parts.pop();
            }
            let source = std::fs::read_to_string(&path).unwrap();
            let code: String = source
                .split("#[cfg(test)]\nmod tests")
                .next()
                .unwrap()
                .lines()
                .map(|line| line.split("//").next().unwrap())
                .collect::<Vec<_>>()
                .join("\n");
            found.insert(parts.join("::"), code);
        }
    }
    found
}

/// The paths a use tree names, from its start (what follows `crate::`) up
/// to the first item that is not a module's name: `errors::Error` gives
/// `errors::`, `{enums, errors::{self, Error}}` gives `enums` and
/// `errors::self` and `errors::`.
fn use_paths(tree: &str) -> Vec<String> {
    let path: String = tree
        .chars()
        .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_' || *c == ':')
        .collect();
    let rest = &tree[path.len()..];
    if !(path.is_empty() || path.ends_with("::")) || !rest.starts_with('{') {
        return vec![path];
    }
    // The group's items, split at its own commas (not a nested group's).
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 1);
    for (at, c) in rest.char_indices() {
        match c {
            '{' => depth += 1,
            '}' | ',' if depth == 1 => {
                items.push(rest[start..at].trim_start());
                start = at + 1;
                if c == '}' {
                    break;
                }
            }
            '}' => depth -= 1,
            _ => {}
        }
    }
    items
        .into_iter()
        .flat_map(use_paths)
        .map(|item| format!("{path}{item}"))
        .collect()
}

/// The modules each module imports with `crate::...`, braced groups
/// included (a parent module's imports of its own children do not count:
/// it declares them).
fn imports(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph = BTreeMap::new();
    for (name, code) in modules {
        let mut used = BTreeSet::new();
        let paths = code
            .match_indices("crate::")
            .flat_map(|(index, _)| use_paths(&code[index + "crate::".len()..]));
        for path in paths {
            let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
            for length in (1..=parts.len()).rev() {
                let candidate = parts[..length].join("::");
                if modules.contains_key(&candidate) {
                    let own_child = name.is_empty() || candidate.starts_with(&format!("{name}::"));
                    let ancestor = name.starts_with(&format!("{candidate}::"));
                    if candidate != *name && !own_child && !ancestor {
                        used.insert(candidate);
                    }
                    break;
                }
            }
        }
        graph.insert(name.clone(), used);
    }
    graph
}

/// A module that reaches itself through its imports, if any.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|n| n == node) {
            return Some(path[start..].to_vec());
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_module_imports_itself_through_others() {
    for crate_root in ["api/store/src", "api/http/src", "api/src", "pybind/src"] {
        let modules = modules(&workspace().join(crate_root));
        assert!(modules.len() > 5, "{crate_root} was read");
        let graph = imports(&modules);
        assert_eq!(cycle(&graph), None, "an import cycle in {crate_root}");
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut modules = BTreeMap::new();
    modules.insert(
        "store".to_owned(),
        "use crate::director::Tournaments;".to_owned(),
    );
    modules.insert("director".to_owned(), "use crate::runner::Bots;".to_owned());
    modules.insert("runner".to_owned(), "use crate::store::Store;".to_owned());
    modules.insert("sql".to_owned(), "use crate::error::Error;".to_owned());
    modules.insert("error".to_owned(), String::new());
    let found = cycle(&imports(&modules)).expect("a cycle");
    assert_eq!(found.len(), 3, "{found:?}");
    modules.insert("runner".to_owned(), "use crate::sql::Db;".to_owned());
    assert_eq!(cycle(&imports(&modules)), None);
    // Through a braced group, nested or not.
    modules.insert(
        "runner".to_owned(),
        "use crate::{sql::Db, store::{self, Store}};".to_owned(),
    );
    let found = cycle(&imports(&modules)).expect("a cycle through a group");
    assert_eq!(found.len(), 3, "{found:?}");
}

#[test]
fn a_braced_import_names_each_of_its_paths() {
    assert_eq!(use_paths("errors::Error;"), ["errors::"]);
    assert_eq!(
        use_paths("{enums, errors::{self, Error}, board::PyBoard};"),
        ["enums", "errors::self", "errors::", "board::"]
    );
    assert_eq!(
        use_paths("{a::{b::{c, d}}, e}"),
        ["a::b::c", "a::b::d", "e"]
    );
}

/// Whether `code` names `word` as a whole identifier.
fn names(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + word.len()..].chars().next();
        let edge = |c: Option<char>| !c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        edge(before) && edge(after)
    })
}

#[test]
fn the_server_writes_only_through_the_stores_commands() {
    // The routes, the director and the runner call a command of the store
    // (`Store::submit_move`, ...), which runs its own transaction and whose
    // changes the store tells after the commit: they never hold the store's
    // connection, run a transaction, or tell a change themselves.
    let server = modules(&workspace().join("api/src"));
    assert!(server.contains_key("routes::matches"), "api/src was read");
    for (module, code) in &server {
        for forbidden in [
            "Db",
            "transaction",
            "publish",
            "announce",
            "tournament_changed",
        ] {
            assert!(
                !names(code, forbidden),
                "api/src/{module} names `{forbidden}`: a write goes through a store command"
            );
        }
        // `sql::Database` names where the data lives (the command line's
        // choice); nothing else of the SQL layer is the server's.
        assert!(
            !code.replace("sql::Database", "").contains("sql::"),
            "api/src/{module} reaches into the store's SQL layer"
        );
    }
}

/// Whether `code` declares a `static` that holds solved tables.
fn tables_in_a_static(code: &str) -> bool {
    code.lines().any(|line| {
        let words: Vec<&str> = line.split_whitespace().collect();
        words.contains(&"static") && line.contains("Tablebase")
    })
}

#[test]
fn solved_tables_are_passed_never_kept_in_a_static() {
    // Tables are a handle given to whoever reads them (`Store::open`, the
    // app's data, `PerfectBot::new`, `new_bot`): the core and the server
    // keep none of their own, so two servers (or tests) in one process
    // never see each other's. The Python module keeps its one registry
    // (`Tablebase.installed()`), which the check finds.
    for root in [
        "src",
        "api/src",
        "api/http/src",
        "api/store/src",
        "api/pool/src",
    ] {
        let crate_modules = modules(&workspace().join(root));
        assert!(!crate_modules.is_empty(), "{root} was read");
        for (module, code) in &crate_modules {
            assert!(
                !tables_in_a_static(code),
                "{root}: `{module}` keeps solved tables in a static; pass them as a handle"
            );
        }
    }
    let binding = modules(&workspace().join("pybind/src"));
    assert!(
        tables_in_a_static(&binding["tablebase"]),
        "the Python module's registry is where the check looks"
    );
}

#[test]
fn query_strings_are_the_http_layers() {
    // The HTTP contract leaves the store piece by piece (issue 49): its
    // query strings already have, and none comes back.
    let store = modules(&workspace().join("api/store/src"));
    assert!(
        store.contains_key("matches::model"),
        "api/store/src was read"
    );
    for (module, code) in &store {
        for forbidden in ["IntoParams", "actix"] {
            assert!(
                !names(code, forbidden) && !code.contains(&format!("{forbidden}_")),
                "api/store/src/{module} names `{forbidden}`: the HTTP contract is the routes'"
            );
        }
    }
}

#[test]
fn the_http_contract_is_the_servers() {
    // Requests, answers and events, their OpenAPI schemas and their words
    // are the server's (`api/src/wire`): the store answers domain values,
    // and builds without utoipa.
    let store = normal_dependencies("sternhalma-store");
    assert!(store.contains("rusqlite"), "the tree was read: {store:?}");
    assert!(
        !store.iter().any(|name| name.starts_with("utoipa")),
        "sternhalma-store depends on utoipa"
    );
    let sources = modules(&workspace().join("api/store/src"));
    assert!(
        sources.contains_key("tournaments::model"),
        "api/store/src was read"
    );
    for (module, code) in &sources {
        for forbidden in ["utoipa", "ToSchema", "IntoParams", "actix"] {
            assert!(
                !names(code, forbidden),
                "api/store/src/{module} names `{forbidden}`: the HTTP contract is the server's"
            );
        }
        assert!(
            !code.contains("#[schema("),
            "api/store/src/{module} has an OpenAPI schema attribute"
        );
    }
    let server = modules(&workspace().join("api/src"));
    for wire in ["wire::matches", "wire::tournaments", "wire::bots"] {
        assert!(server.contains_key(wire), "api/src/{wire} is the wire");
    }
}

#[test]
fn the_word_finder_sees_whole_words_only() {
    assert!(names("fn f(c: &mut Db) {}", "Db"));
    assert!(names("use sternhalma_store::sql::Db;", "Db"));
    assert!(!names("let dbs = Dbx::new();", "Db"));
    assert!(!names("store.publish_all()", "publish"));
    assert!(names("store.publish(id, 1)", "publish"));
}
