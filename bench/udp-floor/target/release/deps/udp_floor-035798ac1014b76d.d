/work/main/bench/udp-floor/target/release/deps/udp_floor-035798ac1014b76d.d: src/main.rs

/work/main/bench/udp-floor/target/release/deps/udp_floor-035798ac1014b76d: src/main.rs

src/main.rs:
