//! Exports the Lua C API from this crate's binaries and tests, so that a wrk script's
//! `require` loads Lua C modules (lua-cjson) as under wrk: see ../script/lua_api.rs.

include!("../script/lua_api.rs");

fn main() {
    export_lua_api();
}
