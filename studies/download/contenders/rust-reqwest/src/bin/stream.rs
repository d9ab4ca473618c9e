//! GET a URL with reqwest and stream the body (`Response::chunk`) into the output file (or
//! /dev/null) with tokio's async file, updating a CRC-32 per chunk; print bytes and checksum.
use tokio::io::AsyncWriteExt;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (url, out, sink) = (&args[1], &args[2], &args[3]);
    let dest = if sink == "file" {
        out.as_str()
    } else {
        "/dev/null"
    };
    let mut resp = reqwest::get(url).await?.error_for_status()?;
    let mut file =
        tokio::io::BufWriter::with_capacity(1 << 20, tokio::fs::File::create(dest).await?);
    let mut crc = crc32fast::Hasher::new();
    let mut n: u64 = 0;
    while let Some(chunk) = resp.chunk().await? {
        crc.update(&chunk);
        n += chunk.len() as u64;
        file.write_all(&chunk).await?;
    }
    file.flush().await?;
    println!("bytes={n} crc32={:08x}", crc.finalize());
    Ok(())
}
