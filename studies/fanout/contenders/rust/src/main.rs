//! N concurrent GETs, one tokio task each, over one shared reqwest client.
//! Usage: fanout-tokio URL N   Prints "fanout_s=<seconds>" (the fan-out timed in here, from the
//! client's creation to the last task done, without the process and runtime start-up), then
//! "ok=<200 responses> crc32=<distinct body CRC-32s>".

use std::collections::BTreeSet;
use std::time::Instant;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let url = args.next().ok_or("usage: fanout-tokio URL N")?;
    let n: usize = args.next().ok_or("usage: fanout-tokio URL N")?.parse()?;
    let start = Instant::now();
    let client = reqwest::Client::new();
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let (client, url) = (client.clone(), url.clone());
            tokio::spawn(async move {
                let r = client.get(&url).send().await?;
                let status = r.status().as_u16();
                let body = r.bytes().await?;
                Ok::<_, reqwest::Error>((status, format!("{:08x}", crc32fast::hash(&body))))
            })
        })
        .collect();
    let mut answers = Vec::with_capacity(n);
    for t in tasks {
        answers.push(t.await?);
    }
    let fanout_s = start.elapsed().as_secs_f64();
    let (mut ok, mut crcs) = (0, BTreeSet::new());
    for a in answers {
        match a {
            Ok((status, crc)) => {
                ok += usize::from(status == 200);
                crcs.insert(crc);
            }
            Err(e) => eprintln!("{e}"),
        }
    }
    let crcs: Vec<_> = crcs.into_iter().collect();
    println!("fanout_s={fanout_s:.6}");
    println!("ok={ok} crc32={}", crcs.join(","));
    std::process::exit(if ok == n { 0 } else { 1 });
}
