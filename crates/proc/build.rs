//! Builds barrage-init (src/supervise/init.c), the PID 1 of each contender's PID namespace, as a
//! static executable (dynamic where no static C library is installed) that the supervisor embeds
//! and runs from memory.

use std::path::PathBuf;

fn main() {
    let src = "src/supervise/init.c";
    println!("cargo:rerun-if-changed={src}");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("barrage-init");
    let compiler = cc::Build::new().get_compiler();
    let build = |flags: &[&str]| {
        let mut cmd = compiler.to_command();
        cmd.args(["-O2", "-Wall"])
            .args(flags)
            .arg("-o")
            .arg(&out)
            .arg(src);
        cmd.status().is_ok_and(|s| s.success())
    };
    if !build(&["-static"]) && !build(&[]) {
        panic!("cannot compile {src} with {:?}", compiler.path());
    }
}
