// The Lua C API exported from a binary that links barrage-script, included by the build script
// of each crate whose binaries (tests included) run scripts: barrage-script, barrage-engine and
// barrage (the CLI). LuaJIT is linked in statically (mlua's vendored build), and a Lua C module
// (Debian's lua-cjson: `require "cjson"`) takes lua_* and luaL_* from the program that loads it,
// as it takes them from wrk; an executable exports none of its symbols unless told. Linux with
// glibc only: a static (musl) barrage cannot dlopen a module at all.

/// Has this crate's linked targets export the Lua C API.
fn export_lua_api() {
    println!("cargo:rerun-if-changed=../script/lua_api.rs");
    let target = |v: &str| std::env::var(v).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") != "linux" || target("CARGO_CFG_TARGET_ENV") != "gnu" {
        return;
    }
    let list = std::path::PathBuf::from(target("OUT_DIR")).join("lua-api.list");
    std::fs::write(&list, "{\n  lua_*;\n  luaL_*;\n  luaopen_*;\n  luaJIT_*;\n};\n")
        .expect("OUT_DIR is writable");
    println!("cargo:rustc-link-arg=-Wl,--dynamic-list={}", list.display());
}
