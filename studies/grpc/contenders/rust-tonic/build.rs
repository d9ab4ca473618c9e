//! Compiles docs/grpc/barrage.proto (and failing.proto, the tests' Failing service) without
//! protoc: protox parses them into a descriptor set, tonic-prost-build writes the messages and
//! the server traits from it into OUT_DIR.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let docs = "../../../../docs/grpc";
    let fds = protox::compile(["barrage.proto", "failing.proto"], [docs, "proto"])?;
    tonic_prost_build::configure()
        .build_client(false)
        .compile_fds(fds)?;
    println!("cargo:rerun-if-changed={docs}/barrage.proto");
    println!("cargo:rerun-if-changed=proto/failing.proto");
    Ok(())
}
