/work/main/bench/udp-floor/target/release/udp-floor: /work/main/bench/udp-floor/src/main.rs
