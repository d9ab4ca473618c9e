//! The naive variant: `Response::bytes()` (the whole body in memory), then write it and print
//! bytes and CRC-32.
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (url, out, sink) = (&args[1], &args[2], &args[3]);
    let dest = if sink == "file" {
        out.as_str()
    } else {
        "/dev/null"
    };
    let body = reqwest::get(url).await?.error_for_status()?.bytes().await?;
    tokio::fs::write(dest, &body).await?;
    println!("bytes={} crc32={:08x}", body.len(), crc32fast::hash(&body));
    Ok(())
}
