//! The web pages (`web/`) are compiled into the binary: rebuild when any
//! file there is added, changed or removed (rust-embed alone notices only
//! changes to the files it saw at the last build).

fn main() {
    println!("cargo:rerun-if-changed=web");
}
