//! Compiles the vendored nodejs/http-parser 2.9.4 and a two-function layout probe with `cc`.

fn main() {
    println!("cargo:rerun-if-changed=vendor/http_parser.c");
    println!("cargo:rerun-if-changed=vendor/http_parser.h");
    println!("cargo:rerun-if-changed=src/layout.c");
    cc::Build::new()
        .file("vendor/http_parser.c")
        .file("src/layout.c")
        .include("vendor")
        // As Node.js and Debian build it: the lenient (non-strict) parser, asserts off.
        .define("HTTP_PARSER_STRICT", "0")
        .define("NDEBUG", None)
        .warnings(false)
        .compile("http_parser");
}
